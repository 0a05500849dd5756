//===- analyses/Ranking.cpp - Loops ranked by share and by DL1 gain -------===//
//
// Part of decan. The plain profile's order (share of the loops' time) and
// the thesis's re-ranking by the potential gain of L1-resident data
// (4.5.4): each loop's DL1 gain and both ranks.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include <algorithm>

namespace decan::tool {

namespace analyses {

void ranking(AnalysisContext &C) {
  Report &R = C.R;
  std::vector<LoopReport *> Order;
  for (LoopReport &L : R.Loops)
    Order.push_back(&L);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     return A->Share > B->Share;
                   });
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I]->RankByShare = I + 1;
  for (LoopReport &L : R.Loops)
    if (L.Saturation[Variant::DL1])
      L.DL1Gain = dl1Gain(L.Share, *L.Saturation[Variant::DL1]);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     return A->DL1Gain.value_or(-1) > B->DL1Gain.value_or(-1);
                   });
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I]->RankByGain = I + 1;
}

} // namespace analyses

std::vector<const LoopReport *> rankedLoops(const Report &R) {
  std::vector<const LoopReport *> Out;
  for (const LoopReport &L : R.Loops)
    Out.push_back(&L);
  std::stable_sort(
      Out.begin(), Out.end(), [](const LoopReport *A, const LoopReport *B) {
        // Loops first; regions after, by program share.
        if (A->isRegion() != B->isRegion())
          return B->isRegion();
        if (A->isRegion())
          return A->ProgramShare.value_or(0) > B->ProgramShare.value_or(0);
        if (A->DL1Gain.value_or(-1) != B->DL1Gain.value_or(-1))
          return A->DL1Gain.value_or(-1) > B->DL1Gain.value_or(-1);
        return A->Share > B->Share;
      });
  return Out;
}

} // namespace decan::tool
