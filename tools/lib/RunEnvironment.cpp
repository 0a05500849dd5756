//===- RunEnvironment.cpp - The environment of the measured program -------===//
//
// Part of decan. Everything else of decan's own environment is dropped
// from the user's, so that a variable left over from another run never
// changes this one.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/RunEnvironment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

extern char **environ;

namespace decan::tool {

namespace {
/// What a DECAN_* variable's value must look like.
enum class ValueKind { Any, Count, Number, Switch };
struct KnownVariable {
  StringRef Name;
  ValueKind Kind;
  /// The `decan run` option that sets it for every run ("" = the user's):
  /// the user's value of such a variable never reaches the program.
  StringRef SetBy;
};
} // namespace

/// Every DECAN_* variable some part of decan reads: the runtime
/// (runtime/src/Config.cpp), the rewriter's cache (mc-rewriter), decan run
/// (LatePacks.cpp) and the benchmarks' scripts.
static const KnownVariable KnownVariables[] = {
    {"DECAN_LOOPS", ValueKind::Any, "--loops"},
    {"DECAN_VARIANTS", ValueKind::Any, "--variants"},
    {"DECAN_MODE", ValueKind::Any, "--mode"},
    {"DECAN_REPS", ValueKind::Count, "--reps"},
    {"DECAN_INSTANCE", ValueKind::Count, "--instance"},
    {"DECAN_EVENTS", ValueKind::Any, "--events"},
    {"DECAN_OUTPUT", ValueKind::Any, "--raw-dir"},
    {"DECAN_FP_ENV", ValueKind::Any, "--fp-env"},
    {"DECAN_LIB_MAP", ValueKind::Any, "--lib"},
    {"DECAN_REGIONS", ValueKind::Any, "--regions"},
    {"DECAN_LATE_DIR", ValueKind::Any, "--late"},
    {"DECAN_LATE_WAIT_MS", ValueKind::Count, "--late"},
    {"DECAN_LATE_DLOPEN", ValueKind::Any, "--lib auto"},
    {"DECAN_WARMUP", ValueKind::Count, ""},
    {"DECAN_MAX_RECORDS", ValueKind::Count, ""},
    {"DECAN_ACCOUNT_BUDGET", ValueKind::Count, ""},
    {"DECAN_LATE_AFTER_MS", ValueKind::Count, ""},
    {"DECAN_LATE_MIN_MB", ValueKind::Number, ""},
    {"DECAN_CACHE", ValueKind::Switch, ""},
    {"DECAN_CACHE_DIR", ValueKind::Any, ""},
    {"DECAN_CACHE_MAX_MB", ValueKind::Count, ""},
    {"DECAN_STANDIN_TRIPS", ValueKind::Any, ""},
    {"DECAN_STANDIN_OUT", ValueKind::Any, ""},
    {"DECAN_BASE", ValueKind::Any, ""},
};

static const KnownVariable *knownVariable(StringRef Name) {
  const KnownVariable *K = find_if(
      KnownVariables, [&](const KnownVariable &V) { return V.Name == Name; });
  return K == std::end(KnownVariables) ? nullptr : K;
}

/// Why \p Value is not one of \p Kind ("" when it is).
static std::string badValue(ValueKind Kind, StringRef Value) {
  switch (Kind) {
  case ValueKind::Count:
    return all_of(Value, isDigit) && !Value.empty()
               ? ""
               : "is not a non-negative integer";
  case ValueKind::Number: {
    double D;
    return !Value.trim().getAsDouble(D) && D >= 0 ? "" : "is not a number >= 0";
  }
  case ValueKind::Switch:
    return is_contained({"0", "1", "off", "on", "no", "yes"}, Value)
               ? ""
               : "is not 0, 1, off, on, no or yes";
  case ValueKind::Any:
    return "";
  }
  return "";
}

std::vector<std::string> checkDecanVariables(const char *const *Env) {
  std::vector<std::string> Warnings;
  for (; *Env; ++Env) {
    auto [Name, Value] = StringRef(*Env).split('=');
    if (!Name.starts_with("DECAN_"))
      continue;
    const KnownVariable *K = knownVariable(Name);
    if (!K) {
      std::string Near;
      unsigned Best = 4;
      for (const KnownVariable &V : KnownVariables)
        if (unsigned D = Name.edit_distance(V.Name, true, Best); D < Best) {
          Best = D;
          Near = V.Name.str();
        }
      Warnings.push_back(("unknown variable " + Name + " ignored" +
                          (Near.empty() ? "" : "; did you mean " + Near + "?"))
                             .str());
    } else if (!K->SetBy.empty()) {
      Warnings.push_back((Name + " is set by decan run (" + K->SetBy +
                          "): this value is ignored")
                             .str());
    } else if (std::string Why = badValue(K->Kind, Value); !Why.empty()) {
      Warnings.push_back(
          (Name + "='" + Value + "' " + Why + ": the default is used").str());
    }
  }
  return Warnings;
}

std::vector<std::string> buildEnvironment(const RunOptions &O,
                                          const RunEnvironment &R) {
  StringRef LoaderDir = R.LoaderDir;
  std::vector<std::string> Env;
  std::string OldPreload, OldLibPath;
  for (char **E = environ; *E; ++E) {
    StringRef S(*E);
    StringRef Name = S.split('=').first;
    if (Name == "LD_PRELOAD") {
      OldPreload = S.split('=').second.str();
      continue;
    }
    if (Name == "LD_LIBRARY_PATH" && !LoaderDir.empty()) {
      OldLibPath = S.split('=').second.str();
      continue;
    }
    // What decan run sets, or leaves unset, for every run.
    if (const KnownVariable *K = knownVariable(Name); K && !K->SetBy.empty())
      continue;
    Env.push_back(S.str());
  }
  std::string Vars;
  for (Variant V : R.Variants)
    Vars += (Vars.empty() ? "" : ",") + std::string(variantName(V));
  Env.push_back("DECAN_LOOPS=" + R.Loops);
  Env.push_back("DECAN_VARIANTS=" + Vars);
  Env.push_back("DECAN_MODE=" + O.Mode);
  Env.push_back("DECAN_REPS=" + std::to_string(O.Reps));
  Env.push_back("DECAN_INSTANCE=" + std::to_string(O.Instance));
  Env.push_back("DECAN_EVENTS=" + join(O.Events, ","));
  Env.push_back("DECAN_OUTPUT=" + R.OutDir);
  Env.push_back("DECAN_FP_ENV=" + O.FpEnv);
  if (O.Regions)
    Env.push_back("DECAN_REGIONS=1");
  if (!R.MapFile.empty())
    Env.push_back("DECAN_LIB_MAP=" + R.MapFile);
  if (!R.LateDir.empty()) {
    Env.push_back("DECAN_LATE_DIR=" + R.LateDir);
    // The first request waits for its pack (built in seconds; the cap is
    // for a decan that cannot answer).
    if (O.lateWait())
      Env.push_back("DECAN_LATE_WAIT_MS=120000");
    // --lib auto: a dlopen asks for a copy (DlopenCopies.h).
    if (R.AskDlopen)
      Env.push_back("DECAN_LATE_DLOPEN=1");
  }
  // An empty LD_LIBRARY_PATH entry means the current directory: never add
  // one the user did not have.
  if (!LoaderDir.empty())
    Env.push_back("LD_LIBRARY_PATH=" + LoaderDir.str() +
                  (OldLibPath.empty() ? "" : ":" + OldLibPath));
  if (R.Preload)
    OldPreload = O.LibDir + "/libdecan_rt.so" +
                 (OldPreload.empty() ? "" : ":" + OldPreload);
  if (!OldPreload.empty())
    Env.push_back("LD_PRELOAD=" + OldPreload);
  return Env;
}

} // namespace decan::tool
