//===- analyses/Saturations.cpp - Sat(V) with intervals and replicates ----===//
//
// Part of decan. Each variant's saturation: from its pairs with REF on
// equal work (disturbed pairs trimmed, the probes' cost per call taken off
// both sides), with a bootstrap interval that holds the drift between the
// run's time blocks and reaches down by the short-call term, and the
// replicates the verdicts classify; from the medians where the run was
// not paired (replace and instance modes).
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include <algorithm>

namespace decan::tool::analyses {

/// The pairs less what the probes add to each call (both sides pay it, so
/// it pulls every ratio towards 1), where every REF side exceeds it; \p
/// Share: the part of REF's time that was (0: nothing taken off).
static std::vector<Pair> withoutProbes(std::vector<Pair> Ps, double Probe,
                                       double &Share) {
  Share = 0;
  if (Probe <= 0 || std::any_of(Ps.begin(), Ps.end(), [&](const Pair &P) {
        return P.Ref <= 2 * Probe;
      }))
    return Ps;
  double Ref = 0, Off = 0;
  for (Pair &P : Ps) {
    Ref += P.Weight * P.Ref;
    Off += P.Weight * Probe;
    P.Var = std::max(0.0, P.Var - Probe);
    P.Ref -= Probe;
  }
  Share = Ref > 0 ? Off / Ref : 0;
  return Ps;
}

void saturations(AnalysisContext &C) {
  for (size_t LI = 0; LI < C.R.Loops.size(); ++LI) {
    LoopReport &L = C.R.Loops[LI];
    LoopState &S = C.Loops[LI];
    const std::optional<VariantStats> &RefStats = L.Variants[Variant::REF];
    S.MeanCall = L.RunCalls ? L.RunCycles / (double)L.RunCalls
                 : RefStats ? RefStats->MeanCycles
                            : 0;
    // A call timed alone loses the overlap it has in the program: its
    // saturations may read high by about ShortCallProbes probe costs. The
    // call is REF's sampled one (the whole run's mean holds preemptions).
    double Call = RefStats && RefStats->Cycles.Median > 0
                      ? RefStats->Cycles.Median
                      : S.MeanCall;
    S.ShortCall =
        C.R.ProbeCycles > 0 && Call > 0
            ? std::min(1.0, C.T.ShortCallProbes * C.R.ProbeCycles / Call)
            : 0;
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
      double ProbeShare = 0;
      Ps = withoutProbes(std::move(Ps), C.R.ProbeCallCycles, ProbeShare);
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
      // The probes' cost on a call is an estimate: the interval keeps the
      // ratios with nothing taken off too (raw = x + (1 - x) x share).
      // REF against REF has no removal that a neighbour could overlap.
      Interval &I = *L.SatInterval[V];
      auto Raw = [&](double X) { return X + (1 - X) * ProbeShare; };
      I.Lo = std::min(I.Lo, Raw(I.Lo));
      I.Hi = std::max(I.Hi, Raw(I.Hi));
      if (V != Variant::REF)
        I.Lo = std::max(0.0, I.Lo - S.ShortCall);
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
