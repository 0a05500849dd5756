//===- HelpCommand.cpp - decan help ---------------------------------------===//
//
// Part of decan. `decan help` (the command list), `decan help COMMAND`
// (that command's --help) and `decan help table`: what the columns and
// words of `decan run`'s table and `decan list` mean.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

/// Every abbreviation the tables print, spelt as they print it.
static constexpr StringLiteral TableLegend =
    R"(decan run's table, one block per measured loop:

#RANK ID  FUNCTION at FILE:LINE  program P%  loops L%  DL1 gain G%  [VERDICT, C%]
  program   the loop's part of the whole program's time (~ estimated,
            >= a lower bound)
  loops     its part of the time of all measured loops
  DL1 gain  what the program would save if the loop's data were in L1
  VERDICT   the bottleneck class (memory-bound, FP-bound, balanced,
            unsaturated, latency-bound, near-threshold, inconclusive); C% is
            how many bootstrap replicates agree
  whole run every call of the loop, timed or not: calls, iterations/call
            (samples: the mean over the timed calls), REF cycles

Per variant (REF is the loop as built, the others remove or redirect part
of its work; docs/variants.md):
  variant   the copy timed
  samples   calls timed and kept
  pairs     samples paired with a REF sample on equal work (the same trip
            count): the saturation and its interval come from these; few
            pairs, no verdict
  excl      calls left out of the figures (a context switch during the
            call, a failed counter read)
  cyc/call  median cycles per call
  cyc/iter  median cycles per iteration (calls with a known trip count)
  stab      stability: (median - min) / min of the cycles per call; above
            20% the samples are unstable
  sat       saturation: the variant's time over REF's on the same work; near
            1.00 the work it removed costs nothing, low it costs much.
            "bound": the variant also dropped a dependence through memory,
            so the figure is a lower bound
  95% interval  the bootstrap interval of sat
  counters  --events: median counter deltas per call
  diagnosis what the analyses conclude; warning: why a figure may mislead
  not measured  loops never called while active

decan list, one line per loop:
  LOOP      its id (a C++ function's short name, the id at the line's end)
  VARIANTS  the variants built, and why others were not; "REF only: WHY"
            when none could be
  BYTES     the loop body's size in bytes (REF)
  STEP      source iterations per loop iteration (vectorised or unrolled)
  SUBSETS   with --verbose: instructions of the body (N), loads (L),
            stores (S), floating-point and SIMD arithmetic (FP), divisions
            and square roots (DIV), the exit test's slice (CTRL), the
            addresses' slice (ADDR)
)";

int runHelpCommand(int argc, char **argv) {
  if (argc < 3)
    return printCommandList(outs()), 0;
  StringRef Topic = argv[2];
  if (Topic == "--help" || Topic == "-h") {
    outs() << "USAGE: decan help [COMMAND|table]\n\n"
              "'decan help COMMAND' is 'decan COMMAND --help'; 'decan help "
              "table' says what\nthe columns of the run table and of "
              "'decan list' mean.\n";
    return 0;
  }
  if (Topic == "table" || Topic == "columns") {
    outs() << TableLegend;
    return 0;
  }
  // `decan help run` is `decan run --help`.
  char Help[] = "--help";
  char *Args[] = {argv[0], argv[2], Help, nullptr};
  if (int RC = runNamedCommand(3, Args); RC != -1)
    return RC;
  return reportError("no help on '" + Topic +
                     "' (topics: table, or a command: see 'decan --help')");
}
