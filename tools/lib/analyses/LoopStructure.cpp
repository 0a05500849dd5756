//===- analyses/LoopStructure.cpp - Peel and remainder loops --------------===//
//
// Part of decan. Loop structure (thesis 5.4.3): the loops of one source loop
// (vector body, peel, remainder: same function and line) where the loops other
// than the busiest take more than MaxTailShare of the group's time: the unroll
// or vector factor may be too high for the trip count.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <tuple>

using namespace llvm;

namespace decan::tool::analyses {

void loopStructure(AnalysisContext &C) {
  Report &R = C.R;
  const Thresholds &T = C.T;
  std::map<std::tuple<std::string, std::string, unsigned>,
           std::vector<LoopReport *>>
      Groups;
  for (LoopReport &L : R.Loops)
    if (L.Line && L.TimeCycles > 0 && !L.isRegion())
      Groups[{L.Function, L.File, L.Line}].push_back(&L);
  for (auto &[Key, Ls] : Groups) {
    if (Ls.size() < 2)
      continue;
    LoopReport *Main = Ls.front();
    double Total = 0;
    for (LoopReport *L : Ls) {
      Total += L->TimeCycles;
      if (L->TimeCycles > Main->TimeCycles)
        Main = L;
    }
    double Tail = (Total - Main->TimeCycles) / Total;
    if (Tail > T.MaxTailShare) {
      std::string Others;
      for (LoopReport *L : Ls)
        if (L != Main)
          Others += (Others.empty() ? "" : ", ") + L->Id;
      Main->Diagnosis.push_back(
          formatv("loop structure: {0} ({1}) take {2} of this source loop's "
                  "time; the unroll or vector factor may be too high for its "
                  "trip count (thesis 5.4.3)",
                  Others,
                  Ls.size() == 2 ? "peel/remainder loop"
                                 : "peel/remainder loops",
                  pct(Tail))
              .str());
    }
  }
}

} // namespace decan::tool::analyses
