//===- analyses/Regions.cpp - What a timed region takes -------------------===//
//
// Part of decan. A region (decan_region_begin, an outer loop, a function
// with `decan run --regions`) is timed, not diagnosed: its part of the
// program's time and, for a function, how much of it the innermost loops
// measured in that function take (the rest is code outside them: where to
// look next).
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace decan::tool::analyses {

static void describeRegion(const Report &R, LoopReport &L,
                           const Thresholds &T) {
  if (!L.ProgramShare || !L.RunCalls)
    return;
  double MeanCall = L.RunCycles / (double)L.RunCalls;
  L.ProgramShareApproximate =
      R.ProbeCycles > 0 && MeanCall < T.PrecisionFactor * R.ProbeCycles;
  std::string S =
      formatv("region (REF only): {0} of the program's time in "
              "{1} call{2}",
              pct(*L.ProgramShare), L.RunCalls, L.RunCalls == 1 ? "" : "s")
          .str();
  StringRef Rest = StringRef(L.Id).drop_front(strlen("region:"));
  if (Rest == L.Function) { // the whole function
    double Inner = 0;
    for (const LoopReport &O : R.Loops)
      if (!O.isRegion() && O.Function == L.Function && O.ProgramShare)
        Inner += *O.ProgramShare;
    S += formatv("; its own innermost loops that decan measured take {0}, "
                 "the rest ({1}) is outside them (straight-line code, outer "
                 "loops, callees)",
                 pct(Inner), pct(std::max(0.0, *L.ProgramShare - Inner)))
             .str();
  }
  if (L.ProgramShareApproximate)
    S += formatv("; approximate: activations of {0:F0} cycles are timed "
                 "alone, without their overlap with the code around them",
                 MeanCall)
             .str();
  L.Diagnosis.push_back(S);
}

void regions(AnalysisContext &C) {
  for (LoopReport &L : C.R.Loops)
    if (L.isRegion())
      describeRegion(C.R, L, C.T);
}

} // namespace decan::tool::analyses
