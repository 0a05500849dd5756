//===- CommandLines.cpp - Each command's options, declared once -----------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/CommandLines.h"
#include "decan/Tool/Feedback.h"
#include "decan/Tool/LatePacks.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool {

std::string variantNames(ArrayRef<Variant> Vs, StringRef Sep) {
  std::string S;
  for (Variant V : Vs)
    S += (S.empty() ? "" : Sep.str()) + std::string(variantName(V));
  return S;
}

static std::string allVariantNames() { return variantNames(AllVariants, ", "); }

/// --variants: a list of variant names, or "all".
static Option::Reader readVariants(std::vector<Variant> &Into) {
  return [&Into](StringRef, StringRef Value) -> Error {
    auto Vs = parseVariantList(Value);
    if (!Vs)
      return Vs.takeError();
    Into = std::move(*Vs);
    return Error::success();
  };
}

/// --variants, --extended, --groups of the commands that build copies
/// (`flags` for the plugin, `rewrite`): by default what `decan run` rotates.
static void addBuildVariants(OptionTable &T,
                             std::optional<std::vector<Variant>> &Variants,
                             bool &Extended, bool &Groups) {
  T.custom("variants", "V",
           "build these variants of each loop (REF always; 'all': every "
           "one), for 'decan run --variants'",
           [&Variants](StringRef Spelt, StringRef Value) -> Error {
             Variants.emplace();
             return readVariants(*Variants)(Spelt, Value);
           })
      .defaultText(variantNames(RunOptions().Variants));
  T.flag("extended",
         "also " + variantNames(ExtendedVariants) +
             ", for 'decan run --extended'",
         Extended);
  T.flag("groups",
         "also " + variantNames(GroupVariants) + ", for 'decan run --groups'",
         Groups);
}

static void addReportFiles(OptionTable &T, ReportFiles &F,
                           StringRef JsonDefault = "") {
  T.text("json", "FILE", "write the analysed report", F.Json)
      .defaultText(JsonDefault.str());
  T.text("html", "FILE", "write the HTML report", F.Html);
  T.text("remarks", "FILE", "write LLVM optimization-record YAML remarks",
         F.Remarks);
  T.flag("verbose",
         "print each loop's warnings one a line (the table folds them into "
         "one line per loop)",
         F.Verbose);
}

OptionTable runOptionTable(RunArgs &A) {
  RunOptions &O = A.Run;
  OptionTable T(
      "decan run [options] -- PROGRAM [ARGS...]", "",
      "Output FILEs may be '-' (standard output), a device or a FIFO "
      "(written in place) or a symbolic link (its target is written).\n"
      "PROGRAM may be a launcher: decan run -- mpirun -np 4 ./app\n"
      "The program's standard input, output and error are its own; decan "
      "prints to standard error (or -o FILE) and exits with the program's "
      "status, like time(1).\n"
      "The table's columns (stab, excl, pairs, sat...): decan help table.\n"
      "Loop nests (F:N<k>: an outer loop and its short inner loops measured "
      "as one loop, with variants) need a build with 'decan flags --nests'.");
  T.text("loops", "IDS|all", "loops to measure", O.Loops);
  T.custom("variants", "LIST",
           "variants to rotate, of " + allVariantNames() +
               " ('all': every one); REF is always added; by default the "
               "verdicts'",
           readVariants(O.Variants))
      .defaultText(variantNames(O.Variants));
  T.flag("extended",
         "also " + variantNames(ExtendedVariants, ", ") +
             ": what stores, the reduction chain and the load ports cost",
         O.Extended);
  T.flag("groups",
         "also GROUPING (" + variantNames(GroupVariants, ", ") +
             "): what each array costs",
         O.Groups);
  T.number("reps", "N", "measured calls wanted per loop and variant", O.Reps);
  T.text("mode", "M",
         "rotate, replace or instance (these two run the program once per "
         "variant)",
         O.Mode);
  T.number("instance", "K", "instance mode: the call to measure", O.Instance);
  T.list("events", "LIST", "perf/libpfm4 events read around each call",
         O.Events);
  T.flag("regions",
         "also time the regions of a build made with 'decan flags "
         "--regions' (outer loops, functions with loops; REF only), and "
         "the outer loops of prebuilt programs and --lib libraries: where "
         "the time the innermost loops miss goes",
         O.Regions);
  T.flag("nests",
         "also measure each 2-level loop nest of prebuilt programs and "
         "--lib libraries as one loop with its variants (F:N<k>, as a "
         "'decan flags --nests' build does; no late variants)",
         O.Nests);
  T.custom("hot", "PERCENT",
           "measure REF first, keep the loops covering PERCENT (90 or 90%) "
           "of loop time (the program runs twice)",
           [&O](StringRef, StringRef V) -> Error {
             // Read as `decan flags --hot REPORT.json:PERCENT` reads it.
             O.HotPercent = readHotPercent(V);
             if (!O.HotPercent)
               return createStringError("--hot wants a percentage in (0, "
                                        "100], got '%s'",
                                        V.str().c_str());
             return Error::success();
           });
  T.number("max-runs", "N",
           "program runs at most: more than 1 runs it again, up to N times, "
           "while loops are short of samples",
           O.MaxRuns);
  T.text("o,output", "FILE", "write the table to FILE", A.TableFile)
      .defaultText("standard error");
  addReportFiles(T, A.Files,
                 std::string(DefaultResultsFile) +
                     " in the current directory, for decan report; an "
                     "existing one is kept as " +
                     DefaultResultsFile + ".old");
  T.text("raw-dir", "DIR", "keep the raw runtime reports in DIR", O.KeepRawDir);
  T.custom("lib", "PATH[,PATH...]",
           "also measure these shared libraries the program loads "
           "(rewritten copies put first on LD_LIBRARY_PATH, and opened "
           "instead by dlopen; repeatable)",
           [&O](StringRef, StringRef V) -> Error {
             SmallVector<StringRef, 4> Libs;
             V.split(Libs, ',', -1, false);
             if (Libs.empty())
               return createStringError("--lib wants a shared library path");
             for (StringRef L : Libs)
               O.Libs.push_back(L.trim().str());
             return Error::success();
           })
      .form("auto", "the libraries the program links (read from the files, "
                    "not run), and those it opens with dlopen (copied as it "
                    "opens them)");
  T.flag("find-first",
         "a prebuilt PROGRAM or --lib library: a first REF-only run (its "
         "output dropped) finds the loops that run, and only those get "
         "variants: fast start for a large library, but the program runs "
         "twice (default: every loop, one run)",
         O.FindFirst);
  T.flag("late",
         formatv("a prebuilt PROGRAM or --lib library: start at once on a "
                 "quick copy; the loops that run get variants while it runs "
                 "(the program waits once while they are built) and from "
                 "the start of the next run (cached). The default for "
                 "inputs of {0} MB or more (DECAN_LATE_MIN_MB)",
                 LateMinMegabytes)
             .str(),
         O.AskLate);
  T.flag("no-late",
         "rewrite every loop with its variants before the run, however "
         "large the input",
         O.AskNoLate);
  T.flag("late-nowait",
         "late variants, but the program never waits for them: they arrive "
         "while it goes on (loops are measured from then on)",
         O.AskLateNoWait);
  T.text("fp-env", "ftz|keep",
         "floating-point environment while measuring: ftz masks FP "
         "exceptions and sets FTZ/DAZ for every variant but REF; keep "
         "leaves MXCSR as the program set it",
         O.FpEnv);
  return T;
}

OptionTable reportOptionTable(ReportArgs &A) {
  OptionTable T(
      "decan report [FILE.json...] [options]",
      "Reads analysed (decan run --json) or raw runtime reports; "
      "without FILE, the " +
          std::string(DefaultResultsFile) +
          " decan run wrote in the current directory. "
          "Several files form a sweep: the HTML then draws saturation "
          "and cycles-per-iteration curves against the parameter.");
  addReportFiles(T, A.Files);
  T.text("sweep-param", "NAME=V1,V2,...",
         "the sweep's parameter and its value for each report, in order",
         A.SweepParam)
      .defaultText("the file names, in order");
  return T;
}

OptionTable compareOptionTable(CompareArgs &A) {
  OptionTable T(
      "decan compare [options] A.json B.json",
      "Loops of two builds (plain, PGO, another flag) or two runs, matched "
      "by source identity (function, file:line:column, nest, inlined-at "
      "chain): REF cycles per call and per source iteration, speedup A/B, "
      "program share and bottleneck in A and B, the speedup A's "
      "saturations predicted (best of DL1, NO_DIV, LS/FP overlap) and how "
      "much of it B realized; loops in one build only are listed with why "
      "they may be missing in the other.");
  T.text("json", "OUT.json", "write the comparison as JSON", A.Json);
  T.text("html", "OUT.html", "write the comparison as HTML", A.Html);
  T.text("tune", "tune.json",
         "A's predictions are decan tune's for the loops it chose a "
         "candidate for (A: the default build, B: the build with `decan "
         "flags --apply tune.json`)",
         A.Tune);
  return T;
}

OptionTable listOptionTable(ListArgs &A) {
  OptionTable T("decan list PROGRAM|LIBRARY [options]",
                "Loops of a program's or shared library's decan loop "
                "table (a prebuilt one is rewritten into a temporary "
                "copy), one line each: id, source, loop bytes, iteration "
                "step, the variants built and why others were not.");
  T.flag("verbose,v",
         "per loop, every variant's status and reason, the calls, the "
         "instruction subsets and the full function name",
         A.Verbose);
  T.flag("regions",
         "a prebuilt program's regions too (outer loops and functions with "
         "loops, as 'decan rewrite --regions' places them), each timed or "
         "why not",
         A.Regions);
  return T;
}

OptionTable flagsOptionTable(FlagsArgs &A) {
  OptionTable T("decan flags [options]",
                "Compile (--cflags) and link (--libs) flags for clang-22; "
                "both by default.");
  T.flag("cflags", "the compile flags", A.CFlags);
  T.flag("libs", "the link flags", A.Libs);
  T.flag("lto",
         "for -flto builds: the link flags load the plugin into lld's "
         "link-time optimizer (-fuse-ld=lld) with the plugin's options, "
         "where the loops are instrumented; the compile flags say so",
         A.Lto);
  T.flag("regions",
         "also place regions around outer loops and functions with loops, "
         "timed by 'decan run --regions' (REF only)",
         A.Regions);
  T.flag("nests",
         "also measure each loop nest whose inner loops are instrumented "
         "(2 levels; 3 where those are short) as one loop, with its "
         "variants (id F:N<k>; its "
         "inner loops' share outside it stays theirs): short inner loops "
         "get a verdict at their enclosing level",
         A.Nests);
  addBuildVariants(T, A.Variants, A.Extended, A.Groups);
  T.text(
      "hot", "REPORT.json[:PERCENT]",
      formatv(
          "instrument only the loops that cover PERCENT (90 or "
          "90%; default {0:0}) of the measured loops' time in an earlier decan "
          "report; the others stay plain (decan list says why). With "
          "a clang PGO profile, `-mllvm -decan-pgo-hot` selects the "
          "loops whose header block the profile finds hot instead",
          HotSpec().Percent)
          .str(),
      A.Hot);
  T.text("apply", "REPORT.json",
         "the trip counts per call decan measured in REPORT, per source "
         "loop, as llvm.loop.estimated_trip_count for the vectoriser and "
         "unroller of this build; with a `decan tune` file, each loop's "
         "chosen candidate as loop hints",
         A.Apply);
  T.text("tune", "REPORT.json[:PERCENT]",
         "compile the hot loops of REPORT (as --hot) once per optimization "
         "candidate, for `decan tune`",
         A.Tune);
  T.flag("allow-fast-math",
         "with --tune: vector candidates may reorder floating-point "
         "reductions; with --apply: the choices of a tune build made "
         "with it are applied where they do",
         A.AllowFastMath);
  T.flag("ship",
         "with --apply: the build to ship, a plain clang build plus "
         "--apply's loop hints or trip counts (the plugin only sets them: "
         "no instrumentation, no decan runtime linked, no RUNPATH)",
         A.Ship);
  return T;
}

OptionTable tuneOptionTable(TuneArgs &A) {
  OptionTable T(
      "decan tune [options] -- PROGRAM [ARGS...]",
      "Runs a program built with $(decan flags --tune REPORT.json) once: "
      "each tuned loop's candidates (default and those of the kinds its "
      "diagnosis asked: vector widths and interleaves, unroll counts, nest "
      "transformations) run in turn and are timed; per loop, cycles per "
      "source iteration of each candidate, its speedup over the default by "
      "quarter of the run, and the choice; then the program's predicted "
      "speedup. `decan flags --apply tune.json` builds with the choices.");
  T.text("json,o", "tune.json", "write the timings and the choices", A.Json);
  T.text("report", "run.json", "write the analysed report of the run",
         A.Report);
  return T;
}

OptionTable rewriteOptionTable(RewriteArgs &A) {
  OptionTable T("decan rewrite BINARY [options]",
                "Writes a copy of the x86-64 ELF executable or shared "
                "library BINARY into DIR in which every rewritable "
                "innermost loop runs from new code carrying decan's "
                "variants. The input is never modified.",
                "Run the copy with 'decan run' (or LD_PRELOAD=libdecan_rt.so "
                "and DECAN_LOOPS=...).");
  T.text("o", "DIR", "directory of the copy (created if missing)", A.OutDir)
      .defaultText("BINARY.decan next to BINARY");
  T.flag("list",
         "list innermost loops and why some cannot be rewritten; write "
         "nothing",
         A.List);
  T.flag("all", "rewrite every rewritable loop (the default)", A.All);
  T.text("loops", "IDS", "rewrite only these loop ids (f:L0,...)", A.Loops);
  addBuildVariants(T, A.Variants, A.Extended, A.Groups);
  T.flag("profile",
         "REF alone, without dependence analysis: a quick copy that shows "
         "which loops run and for how long",
         A.Profile);
  T.flag("late-base",
         "the base copy for late variants: per loop a stub and the "
         "relocated original, no measured copy, and a reserved range where "
         "the runtime maps the variants built later",
         A.LateBase);
  T.text("late-pack", "BASE",
         "with --loops=IDS [-o FILE]: the variants of these loops for BASE, "
         "a --late-base copy of BINARY (default FILE: BASE.pack)",
         A.LatePack);
  T.flag("regions",
         "also time outer loops as regions (REF only, as 'decan flags "
         "--regions' does), for 'decan run --regions'",
         A.Regions);
  T.flag("nests",
         "also measure each 2-level loop nest whose inner loops are "
         "rewritten as one loop, with its variants (id F:N<k>, as 'decan "
         "flags --nests' does), for 'decan run --nests'",
         A.Nests);
  T.flag("disasm", "print the emitted copies of every rewritten loop",
         A.Disasm);
  T.number("threads", "N",
           "threads that find and build loops; the copy is the same "
           "whatever N",
           A.Threads)
      .defaultText("one per core");
  T.flag("q", "print nothing on success", A.Quiet);
  return T;
}

} // namespace decan::tool
