//===- analyses/Reduction.cpp - What a reduction chain costs (NO_RED) -----===//
//
// Part of decan. Sat(NO_RED), the loop without its accumulator updates,
// against S2L where the loop stores: whether the reduction chain's
// latency bounds the loop.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool::analyses {

void reduction(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    Variant StoreRef = referenceOf(St, Variant::NO_RED);
    bool StoresUnknown = !St.Sat[Variant::S2L] && !L.Unavailable.count("S2L") &&
                         !L.Variants[Variant::S2L];
    if (St.Sat[Variant::NO_RED] && !St.TooShort) {
      auto [S, Reps] = against(St, Variant::NO_RED, StoreRef);
      if (S) {
        bool Paired = !Reps.empty();
        Classified Cl = costClaim(*S, Reps, T.RedCost, T, St.ShortCall);
        std::string Txt =
            !settled(Cl, Paired, T)
                ? formatv("reduction: Sat(NO_RED)={0:F2}{1}: whether the "
                          "chain costs at least {2} is inconclusive ({3})",
                          *S, againstText(StoreRef), pct(T.RedCost),
                          describeSplit(Cl))
                      .str()
            : Cl.Label == "costly"
                ? formatv("the reduction chain costs {0}{1} of this loop "
                          "(Sat(NO_RED)={2:F2}{3}{4}): its latency bounds "
                          "the loop; use several partial accumulators "
                          "(unroll, or allow reassociation)",
                          atLeast(St, T), pct(std::max(0.0, 1 - *S)), *S,
                          againstText(StoreRef), confidenceText(Cl, Paired))
                      .str()
                : formatv("the reduction chain costs little "
                          "(Sat(NO_RED)={0:F2}{1}{2})",
                          *S, againstText(StoreRef), confidenceText(Cl, Paired))
                      .str();
        if (StoresUnknown)
          Txt += "; S2L was not measured: if the loop stores, turning its "
                 "stores into loads counts too";
        L.Diagnosis.push_back(Txt);
      }
    }
  });
}

} // namespace decan::tool::analyses
