//===- FlagsCommand.cpp - decan flags -------------------------------------===//
//
// Part of decan. Prints the clang-22 flags that build a program for decan,
// like pkg-config: `clang-22 -O2 $(decan flags) prog.c -o prog`. With
// --hot REPORT.json[:PERCENT], only the loops covering PERCENT of an earlier
// run are instrumented (docs/pgo.md); each loop gets the variants `decan run`
// rotates by default, --extended, --groups or --variants build more.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/Feedback.h"
#include "decan/Tool/Install.h"
#include "decan/Tool/Tune.h"
#include "decan/Tool/TuneInputs.h"
#include "decan/Tool/TuneKinds.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

/// -decan-build-variants for --variants, --extended and --groups: the plugin's
/// lists by name ("default,extended"), empty for the default build.
static std::string variantsFlag(const FlagsArgs &A) {
  std::vector<std::string> Entries;
  if (!A.Variants)
    Entries.push_back("default");
  else if (A.Variants->size() == NumVariants)
    Entries.push_back("all");
  else
    for (Variant V : *A.Variants)
      if (V != Variant::REF)
        Entries.push_back(variantName(V));
  if (A.Extended)
    Entries.push_back("extended");
  if (A.Groups)
    Entries.push_back("groups");
  if (Entries.empty())
    Entries.push_back("REF");
  if (Entries.size() == 1 && Entries[0] == "default")
    return "";
  return " -mllvm -decan-build-variants=" + join(Entries, ",");
}

/// The tune files of --apply (several: one training input each, one
/// choice per loop across them, with a note where it depends on the input).
static Expected<std::vector<TunedLoop>>
readTuneFiles(ArrayRef<StringRef> Files) {
  std::vector<TuneInput> Inputs;
  for (StringRef F : Files) {
    auto T = readTuneFile(F);
    if (!T)
      return T.takeError();
    Inputs.push_back({F.str(), std::move(*T)});
  }
  if (Inputs.size() == 1)
    return std::move(Inputs[0].second);
  std::vector<std::string> Notes;
  std::vector<TunedLoop> Out = chooseAcrossInputs(Inputs, Notes);
  for (const std::string &N : Notes)
    errs() << "decan flags: " << N << "\n";
  return Out;
}

/// The flags of --apply FILE: a `decan tune` file's choices as loop hints,
/// a report's measured trip counts as estimated trip counts.
static Expected<std::string> applyFlags(const std::string &File) {
  SmallVector<StringRef, 4> Files;
  if (!sys::fs::exists(File))
    StringRef(File).split(Files, ',', -1, false);
  if (Files.size() > 1 || isTuneFile(File)) {
    auto T = readTuneFiles(Files.size() > 1 ? Files
                                            : SmallVector<StringRef, 4>{File});
    if (!T)
      return T.takeError();
    std::vector<std::string> Entries;
    for (const TunedLoop &L : *T)
      if (L.Choice != "default")
        Entries.push_back(L.Position + "=" + L.Choice);
    errs() << formatv("decan flags: {0} of {1} tuned loops change: {2}\n",
                      Entries.size(), T->size(),
                      Entries.empty() ? "none" : join(Entries, ", "));
    return Entries.empty() ? ""
                           : " -mllvm -decan-loop-hints=" + join(Entries, ",");
  }
  bool Raw;
  auto R = readReportFile(File, Raw);
  if (!R)
    return R.takeError();
  analyse(*R);
  std::vector<TripCount> Ts = measuredTripCounts(*R);
  if (Ts.empty())
    return createStringError("'" + File +
                             "' has no loop with a source identity and a "
                             "known trip count (build with $(decan flags), "
                             "which adds -gline-tables-only)");
  // A loop whose calls' trip counts spread wide is left to the compiler:
  // a build for their mean would slow the calls far from it.
  std::vector<std::string> Entries;
  for (const TripCount &T : Ts)
    if (T.Wide)
      errs() << formatv("decan flags: {0}: not specialised: its calls ran "
                        "{1} to {2} iterations in '{3}' (mean {4}); a build "
                        "for one count would slow the others\n",
                        T.Position, T.MinTrips, T.MaxTrips, File, T.Trips);
    else
      Entries.push_back(T.Position + "=" + std::to_string(T.Trips));
  errs() << formatv("decan flags: trip counts of {0} source loops from "
                    "'{1}': {2}\n",
                    Entries.size(), File,
                    Entries.empty() ? "none" : join(Entries, ", "));
  if (Entries.empty())
    return "";
  errs() << "decan flags: the build is specialised to these trip counts, "
            "those of the run's input: an input whose loops run other "
            "counts may run slower (decan compare shows it)\n";
  return " -mllvm -decan-trip-counts=" + join(Entries, ",");
}

/// --lto: clang runs a pre-link module's optimizer and codegen again at link
/// time and does not pass -fpass-plugin on, so the link loads the plugin
/// (lld's --load-pass-plugin; the gold plugin of GNU ld cannot) with the
/// same -mllvm options as the compile (\p Compile holds them).
static std::string ltoLinkFlags(const InstallLayout &L, StringRef Compile) {
  std::string F = "-fuse-ld=lld -Wl,--load-pass-plugin=" + L.Plugin;
  SmallVector<StringRef, 16> Words;
  Compile.split(Words, ' ', -1, false);
  for (size_t I = 0; I + 1 < Words.size(); ++I)
    if (Words[I] == "-mllvm" && Words[I + 1] != "-decan-lto-link")
      // -Xlinker keeps the commas of a loop list in one argument.
      F += " -Xlinker -mllvm -Xlinker " + Words[I + 1].str();
  return F;
}

/// The plugin's options as cc1-only arguments: clang loads the plugin (and
/// registers its options) in cc1 only, and its assembler (cc1as, which gets
/// the same CFLAGS for `.S` files) would reject an `-mllvm -decan-...` that
/// nobody registered.
static std::string forCompilerOnly(StringRef Flags) {
  SmallVector<StringRef, 16> Words;
  Flags.split(Words, ' ', -1, false);
  std::string Out;
  for (size_t I = 0; I < Words.size(); ++I) {
    bool PluginOption = Words[I] == "-mllvm" && I + 1 < Words.size() &&
                        Words[I + 1].starts_with("-decan-");
    Out += PluginOption ? " -Xclang -mllvm -Xclang " + Words[++I].str()
                        : " " + Words[I].str();
  }
  return Out.empty() ? Out : Out.substr(1);
}

/// --ship: the plugin loaded only to set --apply's hints; -decan-disable
/// keeps it from instrumenting, so nothing of decan's is linked.
static int printShipFlags(const InstallLayout &L, const FlagsArgs &A,
                          const OptionTable &P) {
  for (const char *Opt :
       {"hot", "tune", "regions", "nests", "variants", "extended", "groups"})
    if (P.has(Opt))
      return reportError(formatv("--ship builds no instrumentation: it "
                                 "does not take --{0}",
                                 Opt)
                             .str());
  if (!P.has("apply"))
    return reportError("--ship builds with the choices of --apply "
                       "tune.json (or the trip counts of --apply "
                       "REPORT.json): give --apply");
  auto Flags = applyFlags(A.Apply);
  if (!Flags)
    return reportError(Flags.takeError());
  if (A.AllowFastMath)
    *Flags += " -mllvm -decan-tune-fast-math";
  bool Both = !A.CFlags && !A.Libs;
  std::string Compile = shipCompileFlags(L) + " -mllvm -decan-disable" + *Flags;
  if (Both || A.CFlags)
    outs() << forCompilerOnly(Compile);
  // The hints are set where the loops are optimized: at link time with LTO.
  if (A.Lto && (Both || A.Libs))
    outs() << (Both ? " " : "") << ltoLinkFlags(L, Compile);
  outs() << "\n";
  return 0;
}

int runFlagsCommand(int argc, char **argv) {
  FlagsArgs A;
  OptionTable P = flagsOptionTable(A);
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.helpAsked()) {
    P.printHelp(outs());
    return 0;
  }
  if (!P.positionals().empty())
    return reportError("unexpected argument '" + P.positionals()[0] + "'");
  auto L = findInstallLayout(argv[0]);
  if (!L)
    return reportError(L.takeError());
  if (A.Ship)
    return printShipFlags(*L, A, P);
  bool Both = !A.CFlags && !A.Libs;
  // With --lto the link takes the compile's plugin options too.
  std::string Out;
  if (Both || A.CFlags || A.Lto) {
    Out = compileFlags(*L);
    if (A.Lto)
      Out += " -mllvm -decan-lto-link";
    Out += variantsFlag(A);
    if (A.Regions)
      Out += " -mllvm -decan-regions";
    if (A.Nests)
      Out += " -mllvm -decan-nests";
    std::pair<const char *, std::string *> Selections[] = {{"hot", &A.Hot},
                                                           {"tune", &A.Tune}};
    for (auto [Opt, Value] : Selections) {
      if (!P.has(Opt))
        continue;
      auto Spec = parseHotSpec(*Value);
      if (!Spec)
        return reportError(Spec.takeError());
      bool Raw;
      auto R = readReportFile(Spec->Report, Raw);
      if (!R)
        return reportError(R.takeError());
      analyse(*R);
      // A tuned loop's calls are shared by 8 candidates, each timed in
      // every quarter of the run.
      HotSelection S =
          selectHotLoops(*R, Spec->Percent, StringRef(Opt) == "tune" ? 64 : 0);
      if (S.Entries.empty())
        return reportError("'" + Spec->Report +
                           "' has no measured loop: nothing to select");
      errs() << formatv("decan flags: {0} of {1} loops cover {2:F1}% of the "
                        "measured loops' time ({3:F1}% of the program's) in "
                        "'{4}' (asked {5:F0}%): {6}\n",
                        S.Loops.size(), R->Loops.size(), S.Covered * 100,
                        S.ProgramCovered * 100, Spec->Report, Spec->Percent,
                        join(S.Loops, ", "));
      // --hot: the instances measured, not every inlined copy or template
      // instance of their source loops; --tune clones the functions, so
      // its loops go by position.
      bool Tune = StringRef(Opt) == "tune";
      if (!Tune)
        errs() << formatv(
            "decan flags: {0} loop instance(s) by function and "
            "loop index, checked against the source position{1}\n",
            S.Instances.size() - S.ByIdOnly,
            S.ByIdOnly ? formatv("; {0} by id only (the report "
                                 "has no position for them)",
                                 S.ByIdOnly)
                             .str()
                       : "");
      Out +=
          " -mllvm -decan-loops=" + join(Tune ? S.Entries : S.Instances, ",");
      if (Tune) {
        Out += " -mllvm -decan-tune=" + join(S.Entries, ",");
        std::vector<TuneKinds> Ks = tuneKinds(*R, S.Entries);
        for (const TuneKinds &K : Ks)
          errs() << formatv("decan flags: {0}: {1} -> {2} candidates\n",
                            K.Entry, K.Why, join(K.Kinds, "+"));
        Out += tuneKindsFlag(Ks);
        if (A.AllowFastMath)
          Out += " -mllvm -decan-tune-fast-math";
      }
    }
    if (P.has("apply")) {
      auto Flags = applyFlags(A.Apply);
      if (!Flags)
        return reportError(Flags.takeError());
      Out += *Flags;
      if (A.AllowFastMath && !P.has("tune"))
        Out += " -mllvm -decan-tune-fast-math";
    }
  }
  std::string Link;
  if (Both || A.Libs)
    Link = (A.Lto ? ltoLinkFlags(*L, Out) + " " : "") + linkFlags(*L);
  if (!Both && !A.CFlags)
    Out.clear();
  Out = forCompilerOnly(Out);
  outs() << Out << (Out.empty() || Link.empty() ? "" : " ") << Link << "\n";
  return 0;
}
