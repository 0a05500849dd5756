//===- analyses/Saturations.cpp - Sat(V) with intervals and replicates ----===//
//
// Part of decan. Each variant's saturation: from its pairs with REF on
// equal work (disturbed pairs trimmed), with a bootstrap interval that
// holds the drift between the run's time blocks, and the replicates the
// verdicts classify; from the medians where the run was
// not paired (replace and instance modes).
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

namespace decan::tool::analyses {

void saturations(AnalysisContext &C) {
  for (size_t LI = 0; LI < C.R.Loops.size(); ++LI) {
    LoopReport &L = C.R.Loops[LI];
    LoopState &S = C.Loops[LI];
    double W = 0, WT = 0;
    bool Paired = C.R.Config.getBoolean("paired").value_or(false);
    for (Variant V : AllVariants)
      Paired |= L.Variants[V] && !L.Variants[V]->Pairs.empty();
    for (Variant V : AllVariants) {
      if (!L.Variants[V])
        continue;
      // Disturbed pairs (one side hit by an interrupt or a fault) would
      // swing a ratio of sums: they are left out, and counted.
      std::vector<Pair> Ps = trimOutliers(L.Variants[V]->Pairs);
      L.Variants[V]->Outliers = L.Variants[V]->Pairs.size() - Ps.size();
      for (const Pair &P : Ps)
        if (P.Work > 0) {
          W += P.Weight;
          WT += P.Weight * P.Work;
        }
      if (!Paired) {
        L.Saturation[V] = saturation(L, V);
        continue;
      }
      if (Ps.size() < C.TC.MinCalls)
        continue;
      double Value = ratioOfSums(Ps);
      // The run's blocks are drawn with one seed for every variant: a
      // drift moves the saturations together, as the verdicts read them.
      S.Boot[V] = runReplicates(
          Ps, C.T.Bootstrap, stableHash(L.Id) + 7919 * static_cast<unsigned>(V),
          stableHash(L.Id));
      L.SatInterval[V] = percentileInterval(Value, S.Boot[V],
                                            static_cast<unsigned>(Ps.size()));
      L.Saturation[V] = Value;
    }
    if (W > 0)
      L.SampleMeanTrips = WT / W;
    // What the claims read, until the variants that deleted the loop's
    // calls are set against NO_CALL (VariantCalls.cpp).
    S.Sat = L.Saturation;
    S.SatI = L.SatInterval;
  }
}

} // namespace decan::tool::analyses
