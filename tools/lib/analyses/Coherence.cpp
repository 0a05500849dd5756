//===- analyses/Coherence.cpp - Measurements one should not trust ---------===//
//
// Part of decan. The coherence checks of one loop's measurements: too few
// calls, unstable samples, excluded calls, calls too short for the probes, rank
// and thread imbalance, samples without equal work, variants slower than
// REF. Each is a warning; no loop is dropped.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool {

using analyses::pct;

void checkCoherence(LoopReport &L, double ProbeCycles, const Thresholds &T) {
  auto Warn = [&](std::string S) {
    if (std::find(L.Warnings.begin(), L.Warnings.end(), S) == L.Warnings.end())
      L.Warnings.push_back(std::move(S));
  };
  const VariantStats *Ref =
      L.Variants[Variant::REF] ? &*L.Variants[Variant::REF] : nullptr;
  for (Variant V : AllVariants) {
    if (!L.Variants[V])
      continue;
    const VariantStats &S = *L.Variants[V];
    StringRef N = variantName(V);
    if (S.Calls == 0) {
      // Every call disturbed: a loop that first-touches memory on each call
      // pays page faults in whichever copy touches it (REF, LS).
      Warn(S.Excluded
               ? formatv("{0}: all {1} calls excluded (context switch "
                         "or page fault during each: a loop that blocks, or "
                         "touches fresh memory, on every call)",
                         N, S.Excluded)
                     .str()
               : formatv("{0}: no call measured", N).str());
      continue;
    }
    if (S.Calls < T.MinCalls)
      Warn(formatv("{0}: only {1} measured calls, too few for a median "
                   "(need {2})",
                   N, S.Calls, T.MinCalls)
               .str());

    if (S.Stability > T.Unstable)
      Warn(formatv("{0}: unstable samples, (median-min)/min = {1}", N,
                   pct(S.Stability))
               .str());
    if (S.Excluded) {
      double Frac = double(S.Excluded) / double(S.Calls + S.Excluded);
      Warn(formatv("{0}: {1} of {2} calls excluded (context switch or page "
                   "fault during the call){3}",
                   N, S.Excluded, S.Calls + S.Excluded,
                   Frac > T.MaxExcluded ? ": the machine is busy" : "")
               .str());
    }
    if (ProbeCycles > 0 && S.Cycles.Median > 0 &&
        ProbeCycles / S.Cycles.Median > T.MaxProbeShare)
      Warn(formatv("{0}: a call ({1:F0} cycles) is too short for the "
                   "precision: the probes alone cost {2:F0} cycles ({3})",
                   N, S.Cycles.Median, ProbeCycles,
                   pct(ProbeCycles / S.Cycles.Median))
               .str());
    // Rank/thread imbalance (thesis 5.4.7): rows whose typical call differs
    // widely point at uneven work or data placement.
    double Lo = 0, Hi = 0;
    unsigned Rows = 0;
    for (const ThreadRow &Row : S.Rows) {
      if (!Row.Calls || Row.Cycles.Median <= 0)
        continue;
      Lo = Rows ? std::min(Lo, Row.Cycles.Median) : Row.Cycles.Median;
      Hi = Rows ? std::max(Hi, Row.Cycles.Median) : Row.Cycles.Median;
      ++Rows;
    }
    if (Rows > 1 && Hi > Lo * (1 + T.Unstable))
      Warn(formatv("{0}: imbalance between ranks/threads: median cycles per "
                   "call range from {1:F0} to {2:F0} over {3} rows",
                   N, Lo, Hi, Rows)
               .str());
    uint64_t Differ = S.PairKinds[static_cast<unsigned>(PairKind::TripsDiffer)];
    uint64_t NoWork = S.PairKinds[static_cast<unsigned>(PairKind::NoEqualWork)];
    if (Differ)
      Warn(formatv("{0}: {1} sample(s) excluded: the variant's trip count "
                   "differs from the original run on the same input (the "
                   "variant changed the control flow)",
                   N, Differ)
               .str());
    if (NoWork)
      Warn(formatv("{0}: {1} sample(s) excluded: no REF call of equal work "
                   "next to them",
                   N, NoWork)
               .str());
    // PREFETCH adds accesses on purpose: slower than REF is its result.
    if (V == Variant::REF || V == Variant::PREFETCH || !Ref)
      continue;
    if (L.SatInterval[V]) {
      if (L.SatInterval[V]->Lo > 1 + T.NoiseFloor)
        Warn(formatv("{0} is slower than REF (Sat {1:F2}, interval [{2:F2}, "
                     "{3:F2}]): the variant adds cost (layout, a new "
                     "dependence, see thesis 6.5); its saturation is no "
                     "bound",
                     N, L.SatInterval[V]->Value, L.SatInterval[V]->Lo,
                     L.SatInterval[V]->Hi)
                 .str());
    } else if (auto Sat = saturation(L, V)) {
      double Noise = std::max(T.NoiseFloor, Ref->Stability + S.Stability);
      if (*Sat > 1 + Noise)
        Warn(formatv("{0} is slower than REF beyond noise (Sat {1:F2} > "
                     "{2:F2}): the variant adds cost (layout, a new "
                     "dependence, see thesis 6.5); its saturation is no "
                     "bound",
                     N, *Sat, 1 + Noise)
                 .str());
    }
  }
}

namespace analyses {

void coherence(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &) {
    checkCoherence(L, C.R.ProbeCycles, C.TC);
  });
}

} // namespace analyses
} // namespace decan::tool
