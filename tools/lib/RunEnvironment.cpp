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
    if (is_contained({"DECAN_LOOPS", "DECAN_VARIANTS", "DECAN_MODE",
                      "DECAN_REPS", "DECAN_INSTANCE", "DECAN_EVENTS",
                      "DECAN_OUTPUT", "DECAN_FP_ENV", "DECAN_LIB_MAP",
                      "DECAN_REGIONS", "DECAN_LATE_DIR", "DECAN_LATE_WAIT_MS",
                      "DECAN_LATE_DLOPEN"},
                     Name))
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
