//===- analyses/Ranking.cpp - Loops ranked by what a fix would save -------===//
//
// Part of decan. Three orders of the loops: the plain profile's (share of
// the loops' time), the thesis's re-ranking by the potential gain of
// L1-resident data (4.5.4), and the one the table, the HTML page and the
// remarks print: what the best fix the analyses are sure of would save of
// the program (share x predicted gain), share breaking ties.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include <algorithm>
#include <cmath>

namespace decan::tool {

namespace {

/// The gain at which the analysis of a variant that removes what a
/// programmer can fix (data locality, divisions, calls, stores, a reduction
/// chain, one array) calls that cost worth naming; none for the others.
std::optional<double> fixCost(Variant V, const Thresholds &T) {
  if (V == Variant::DL1 || isGroupDL1(V))
    return 1 - T.DL1InL1; // the data are not in L1
  if (isGroupRemoval(V))
    return T.GroupCost;
  switch (V) {
  case Variant::NO_DIV:
  case Variant::NO_CALL: // calls have no threshold of their own
    return T.DivCost;
  case Variant::NO_STORE:
    return T.StoreCost;
  case Variant::NO_RED:
    return T.RedCost;
  default:
    return std::nullopt;
  }
}

/// The best settled gain of \p St's fix variants: a "costly" or "cheap"
/// claim that holds in the replicates (or, unpaired, at its point) counts
/// with its point gain, so a loop known to gain nothing ranks low and one
/// whose claims are all open keeps its share.
void predictGain(LoopReport &L, const LoopState &St, const Thresholds &T) {
  if (St.TooShort)
    return;
  for (Variant V : AllVariants) {
    std::optional<double> Cost = fixCost(V, T);
    auto [Sat, Reps] = analyses::against(St, V, analyses::referenceOf(St, V));
    if (!Cost || !Sat)
      continue;
    Classified Cl = analyses::costClaim(*Sat, Reps, *Cost, T, St.ShortCall);
    if (!analyses::settled(Cl, !Reps.empty(), T))
      continue;
    double Gain = std::max(0.0, 1 - *Sat);
    if (!L.PredictedGain || Gain > *L.PredictedGain) {
      L.PredictedGain = Gain;
      L.PredictedGainBy = variantName(V);
    }
  }
}

} // namespace

double rankingKey(const LoopReport &L) {
  return L.PredictedGain ? L.Share * *L.PredictedGain : L.Share;
}

bool ranksBefore(const LoopReport &A, const LoopReport &B) {
  // Loops first; regions after, by program share.
  if (A.isRegion() != B.isRegion())
    return B.isRegion();
  if (A.isRegion())
    return A.ProgramShare.value_or(0) > B.ProgramShare.value_or(0);
  double KA = rankingKey(A), KB = rankingKey(B);
  // Equal savings (within rounding) go to the hotter loop.
  if (std::fabs(KA - KB) > 1e-9 * std::max(KA, KB))
    return KA > KB;
  return A.Share > B.Share;
}

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
  for (size_t I = 0; I < R.Loops.size(); ++I)
    if (LoopReport &L = R.Loops[I];
        L.Saturation[Variant::DL1] && !C.Loops[I].Blocked)
      L.DL1Gain = dl1Gain(L.Share, *L.Saturation[Variant::DL1]);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     return A->DL1Gain.value_or(-1) > B->DL1Gain.value_or(-1);
                   });
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I]->RankByGain = I + 1;
  forEachLoop(C,
              [&](LoopReport &L, LoopState &St) { predictGain(L, St, C.T); });
  std::stable_sort(Order.begin(), Order.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     return ranksBefore(*A, *B);
                   });
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I]->Rank = I + 1;
}

} // namespace analyses

std::vector<const LoopReport *> rankedLoops(const Report &R) {
  std::vector<const LoopReport *> Out;
  for (const LoopReport &L : R.Loops)
    Out.push_back(&L);
  std::stable_sort(Out.begin(), Out.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     return ranksBefore(*A, *B);
                   });
  return Out;
}

} // namespace decan::tool
