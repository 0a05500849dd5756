//===- analyses/Shares.cpp - Shares of the loops' and the program's time --===//
//
// Part of decan. Each loop's share of the measured loops' time and of the
// program's own time (the processes' time less what decan added), the
// loops' coverage of the program; and, after the claims, how far a
// loop's program share can be trusted.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool {

void computeShares(Report &R) {
  double Total = 0;
  for (const LoopReport &L : R.Loops)
    if (!L.isRegion()) // regions enclose loops: not loop time
      Total += L.TimeCycles;
  for (LoopReport &L : R.Loops)
    L.Share = Total > 0 && !L.isRegion() ? L.TimeCycles / Total : 0;
  // The program's own time: the processes' less what decan added.
  double Program = R.ProcessCycles - R.OverheadCycles;
  if (R.ProcessCycles <= 0 || Program <= 0)
    return;
  double Cov = 0;
  for (LoopReport &L : R.Loops) {
    if (!L.RunCalls)
      continue;
    L.ProgramShare = std::min(1.0, L.TimeCycles / Program);
    L.ProgramShareLowerBound =
        L.InsideCycles > 0 &&
        L.overheadCycles(R.ProbeCallCycles, R.CountdownCycles) > L.TimeCycles;
    // Regions enclose loops: their time is not added twice.
    if (!L.isRegion())
      Cov += *L.ProgramShare;
  }
  R.Coverage = std::min(1.0, Cov);
}

namespace analyses {

void shares(AnalysisContext &C) { computeShares(C.R); }

void shareCaveats(AnalysisContext &C) {
  const Report &R = C.R;
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    if (L.ProgramShareLowerBound && L.RunCalls)
      L.Warnings.push_back(
          formatv("decan's accounting costs {0:F0} cycles per call, more "
                  "than the loop's own {1:F0}: the part it cannot time "
                  "weighs on the program's time, and the program share ({2}) "
                  "is a lower bound",
                  L.overheadCycles(R.ProbeCallCycles, R.CountdownCycles) /
                      (double)L.RunCalls,
                  L.TimeCycles / (double)L.RunCalls,
                  L.ProgramShare ? pct(*L.ProgramShare) : "-")
              .str());
    if (S.TooShort && L.ProgramShare && !L.ProgramShareLowerBound) {
      L.ProgramShareApproximate = true;
      L.Warnings.push_back(
          formatv("the program share ({0}) is approximate: calls of {1:F0} "
                  "cycles are timed alone between the probes, without the "
                  "overlap with the code around them that they have in the "
                  "program (their cost there may be lower or higher)",
                  pct(*L.ProgramShare), S.MeanCall)
              .str());
    }
  });
}

} // namespace analyses
} // namespace decan::tool
