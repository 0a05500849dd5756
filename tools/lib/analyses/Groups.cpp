//===- analyses/Groups.cpp - What each array costs (GROUPING) -------------===//
//
// Part of decan. GROUPING (thesis 4.4.3.3): each measured group's saturations
// (removed, in L1; removed against LS: its share of the memory stream), and the
// groups ranked by what removing them gains.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"
#include "decan/abi.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool::analyses {

static void groupAnalysis(LoopReport &L, const LoopState &St,
                          const Thresholds &T) {
  const auto &Sat = St.Sat;
  struct Cost {
    const MemoryGroup *G;
    unsigned K;
    std::string Claim;
  };
  std::vector<Cost> Costs;
  for (unsigned K = 0; K < L.Groups.size() && K < DECAN_MAX_GROUPS; ++K) {
    MemoryGroup &G = L.Groups[K];
    G.SatDL1 = Sat[groupInL1(K)];
    G.SatRemoved = Sat[groupRemoved(K)];
    G.SatRemovedVsLS.reset();
    if (G.SatRemoved && Sat[Variant::LS] && *Sat[Variant::LS] > 0)
      G.SatRemovedVsLS = *G.SatRemoved / *Sat[Variant::LS];
    if (St.TooShort || !G.SatRemoved)
      continue;
    const std::vector<double> &Reps = St.Boot[groupRemoved(K)];
    Classified C = costClaim(*G.SatRemoved, Reps, T.GroupCost, T, St.ShortCall);
    bool Paired = !Reps.empty();
    bool Settled = settled(C, Paired, T);
    std::string S =
        formatv("array `{0}` ({1} access{2}) costs {3}{4} of this loop "
                "(removed: Sat(NO_G{5})={6:F2}",
                G.Name, G.Accesses, G.Accesses == 1 ? "" : "es",
                Settled && C.Label == "costly" ? atLeast(St, T) : "",
                pct(std::max(0.0, 1 - *G.SatRemoved)), K, *G.SatRemoved)
            .str();
    if (G.SatDL1)
      S += formatv("; in L1: Sat(DL1_G{0})={1:F2}", K, *G.SatDL1).str();
    S += Paired ? formatv(", confidence {0})", pct(C.Agreement)).str() : ")";
    if (!Settled)
      S += ": whether it costs at least " + pct(T.GroupCost) +
           " is inconclusive (" + describeSplit(C) + ")";
    Costs.push_back({&G, K, S});
  }
  if (Costs.empty())
    return;
  std::stable_sort(Costs.begin(), Costs.end(),
                   [](const Cost &A, const Cost &B) {
                     return *A.G->SatRemoved < *B.G->SatRemoved;
                   });
  std::string S = "memory groups (thesis 4.4.3.3), costliest first: ";
  for (size_t I = 0; I < Costs.size(); ++I)
    S += (I ? "; " : "") + Costs[I].Claim;
  if (L.NumGroups > DECAN_MAX_GROUPS)
    S += formatv("; {0} more group(s) not measured (the first {1} are)",
                 L.NumGroups - DECAN_MAX_GROUPS, DECAN_MAX_GROUPS)
             .str();
  L.Diagnosis.push_back(S);
}

void groups(AnalysisContext &C) {
  forEachLoop(C,
              [&](LoopReport &L, LoopState &S) { groupAnalysis(L, S, C.T); });
}

} // namespace decan::tool::analyses
