//===- RunCommand.cpp - decan run -----------------------------------------===//
//
// Part of decan. Measures a program's loops and variants, then prints,
// and optionally writes, the analysed report.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "Outputs.h"
#include "decan/InstrKnowledge/VariantTable.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/Args.h"
#include "decan/Tool/Install.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Render.h"
#include "decan/Tool/Runner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace decan::tool;

static void help() {
  using decan::VariantSet, decan::variantNamesIn;
  outs()
      << "USAGE: decan run [options] -- PROGRAM [ARGS...]\n\n"
         "OPTIONS:\n"
         "  --loops IDS|all       loops to measure (default all)\n"
         "  --variants LIST       of "
      << variantNamesIn(VariantSet::Default)
      << " (the default,\n"
         "                        the verdicts'), "
      << variantNamesIn(VariantSet::Extended) << ",\n                        "
      << variantNamesIn(VariantSet::Groups)
      << "; REF is always added\n"
         "  --extended            also "
      << variantNamesIn(VariantSet::Extended)
      << ": what stores,\n"
         "                        the reduction chain and the load ports "
         "cost\n"
         "  --groups              also GROUPING ("
      << variantNamesIn(VariantSet::Groups)
      << "): what\n"
         "                        each array costs\n"
         "  --reps N              measured calls wanted per loop and "
         "variant (default 31)\n"
         "  --mode M              rotate (default), replace or instance "
         "(these two run the\n"
         "                        program once per variant)\n"
         "  --instance K          instance mode: the call to measure "
         "(default 1)\n"
         "  --events LIST         perf/libpfm4 events read around each "
         "call\n"
         "  --regions             also time the regions of a build made with "
         "'decan flags --regions'\n"
         "                        (outer loops, functions with loops; REF "
         "only): where the time\n"
         "                        the innermost loops miss goes\n"
         "  --hot PERCENT         measure REF first, keep the loops "
         "covering PERCENT of loop time\n"
         "                        (the program runs twice)\n"
         "  --max-runs N          program runs at most (default 1: the "
         "program runs once;\n"
         "                        more, up to N, for loops short of "
         "samples)\n"
         "  -o, --output FILE     write the table to FILE (default: "
         "standard error)\n"
         "  --json FILE           write the analysed report\n"
         "  --html FILE           write the HTML report\n"
         "  --remarks FILE        write LLVM optimization-record YAML "
         "remarks\n"
         "  --raw-dir DIR         keep the raw runtime reports in DIR\n"
         "Output FILEs may be '-' (standard output), a device or a FIFO "
         "(written in place)\n"
         "or a symbolic link (its target is written).\n"
         "  --lib PATH[,PATH...]  also measure these shared libraries the "
         "program loads\n"
         "                        (rewritten copies put first on "
         "LD_LIBRARY_PATH, and opened\n"
         "                        instead by dlopen; repeatable)\n"
         "  --lib auto            the libraries the program links (read "
         "from the files, not\n"
         "                        run), and those it opens with dlopen "
         "(copied as it opens them)\n"
         "  --find-first          a prebuilt PROGRAM or --lib library: a "
         "first REF-only run\n"
         "                        (its output dropped) finds the loops "
         "that run, and only\n"
         "                        those get variants: fast start for a "
         "large library, but\n"
         "                        the program runs twice (default: every "
         "loop, one run)\n"
         "  --late                a prebuilt PROGRAM or --lib library: "
         "start at once on a\n"
         "                        quick copy; the loops that run get "
         "variants while it runs\n"
         "                        (the program waits once while they are "
         "built) and from the\n"
         "                        start of the next run (cached). The "
         "default for inputs of\n"
         "                        16 MB or more (DECAN_LATE_MIN_MB)\n"
         "  --no-late             rewrite every loop with its variants "
         "before the run, however\n"
         "                        large the input\n"
         "  --late-nowait         late variants, but the program never "
         "waits for them: they\n"
         "                        arrive while it goes on (loops are "
         "measured from then on)\n"
         "  --fp-env ftz|keep     floating-point environment while "
         "measuring: ftz (default)\n"
         "                        masks FP exceptions and sets FTZ/DAZ "
         "for every variant but REF;\n"
         "                        keep leaves MXCSR as the program set "
         "it\n"
         "PROGRAM may be a launcher: decan run -- mpirun -np 4 ./app\n"
         "The program's standard input, output and error are its own; "
         "decan prints to\n"
         "standard error (or -o FILE) and exits with the program's "
         "status, like time(1).\n";
}

int runRunCommand(int argc, char **argv) {
  ArgParser P({"loops", "variants", "reps", "mode", "instance", "events", "hot",
               "max-runs", "json", "html", "remarks", "raw-dir", "lib",
               "fp-env", "o", "output"},
              {"help", "h", "regions", "find-first", "late", "no-late",
               "late-nowait", "groups", "extended"});
  if (Error E = P.parse(argc, argv, 2, /*StopAtFirstPositional=*/true))
    return reportError(std::move(E));
  if (P.has("help") || P.has("h")) {
    help();
    return 0;
  }
  RunOptions O;
  O.Command = P.positionals();
  if (O.Command.empty())
    return reportError("no program given (decan run [options] -- PROGRAM "
                       "[ARGS...])");
  O.Loops = P.get("loops", "all");
  if (O.Loops.empty())
    return reportError("--loops wants loop ids or 'all'");
  if (P.has("variants")) {
    auto V = parseVariantList(P.get("variants"));
    if (!V)
      return reportError(V.takeError());
    O.Variants = *V;
  }
  auto Add = [&](ArrayRef<Variant> Vs) {
    for (Variant V : Vs)
      if (!is_contained(O.Variants, V))
        O.Variants.push_back(V);
  };
  if (P.has("extended"))
    Add(ExtendedVariants);
  if (P.has("groups"))
    Add(GroupVariants);
  auto Reps = P.getUnsigned("reps", 31);
  auto Inst = P.getUnsigned("instance", 1);
  auto MaxRuns = P.getUnsigned("max-runs", 1);
  if (!Reps)
    return reportError(Reps.takeError());
  if (!Inst)
    return reportError(Inst.takeError());
  if (!MaxRuns)
    return reportError(MaxRuns.takeError());
  if (!*Reps || !*MaxRuns)
    return reportError("--reps and --max-runs must be at least 1");
  O.Reps = *Reps;
  O.Instance = *Inst;
  O.MaxRuns = *MaxRuns;
  O.Mode = P.get("mode", "rotate");
  O.FindFirst = P.has("find-first");
  if (P.has("late") && P.has("no-late"))
    return reportError("--late or --no-late, not both");
  bool Late = P.has("late") || P.has("late-nowait");
  if (Late && P.has("no-late"))
    return reportError("--late-nowait asks for late variants: no --no-late");
  O.Late = Late               ? RunOptions::LateMode::Always
           : P.has("no-late") ? RunOptions::LateMode::Never
                              : RunOptions::LateMode::Auto;
  O.LateWait = !P.has("late-nowait");
  if (Late && (O.FindFirst || P.has("hot") || P.has("loops")))
    return reportError("--late builds variants for the loops that run: no "
                       "--find-first, --hot or --loops");
  O.FpEnv = P.get("fp-env", "ftz");
  O.Regions = P.has("regions");
  for (const std::string &List : P.getAll("lib")) {
    SmallVector<StringRef, 4> Libs;
    StringRef(List).split(Libs, ',', -1, false);
    if (Libs.empty())
      return reportError("--lib wants a shared library path");
    for (StringRef L : Libs)
      O.Libs.push_back(L.trim().str());
  }
  std::string EventList = P.get("events");
  SmallVector<StringRef, 4> Events;
  StringRef(EventList).split(Events, ',', -1, false);
  for (StringRef E : Events)
    O.Events.push_back(E.trim().str());
  if (P.has("hot")) {
    double H;
    if (!to_float(P.get("hot"), H) || H <= 0 || H > 100)
      return reportError("--hot wants a percentage in (0, 100], got '" +
                         P.get("hot") + "'");
    O.HotPercent = H;
  }
  // Every output path is checked before the program runs: a typo must not
  // cost a long measurement.
  std::string TableFile = P.get("output", P.get("o"));
  if (!TableFile.empty())
    if (Error E = checkOutputPath(TableFile))
      return reportError(std::move(E));
  for (const char *Opt : {"json", "html", "remarks"})
    if (P.has(Opt))
      if (Error E = checkOutputPath(P.get(Opt)))
        return reportError(std::move(E));
  if (P.has("raw-dir")) {
    O.KeepRawDir = P.get("raw-dir");
    if (Error E = prepareOutputDirectory(O.KeepRawDir))
      return reportError(std::move(E));
  }
  auto L = findInstallLayout(argv[0]);
  if (L)
    O.LibDir = L->LibDir;
  else
    consumeError(L.takeError());
  O.Progress = ::isatty(2);

  auto Out = runMeasurements(O, errs());
  if (!Out)
    return reportError(Out.takeError());
  Report &R = Out->Merged;
  analyse(R);
  // The program's standard output is the program's alone.
  int RC = 0;
  if (TableFile.empty()) {
    printReportTable(errs(), R);
  } else {
    std::string Table;
    raw_string_ostream TS(Table);
    printReportTable(TS, R);
    if (Error E = writeOutput(TableFile, Table))
      RC = reportError(std::move(E));
  }
  if (Error E = writeOutputs(R, {R}, nullptr, P.get("json"), P.get("html"),
                             P.get("remarks")))
    RC = reportError(std::move(E));
  for (const std::string &Pb : Out->Problems)
    errs() << "decan: " << Pb << "\n";
  // The program's own status, like time(1): 3 stays 3, a signal 128+N.
  int St = Out->WaitStatus;
  int ProgramRC = WIFEXITED(St)     ? WEXITSTATUS(St)
                  : WIFSIGNALED(St) ? 128 + WTERMSIG(St)
                                    : 1;
  return ProgramRC ? ProgramRC : RC;
}
