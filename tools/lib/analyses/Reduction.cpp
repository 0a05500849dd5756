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

/// NO_RED and PREFETCH turn stores into loads: S2L is their reference when
/// the loop stores (thesis 4.5.2), so they measure only their own change.
static Variant storeRef(const LoopState &St) {
  return St.Sat[Variant::S2L] ? Variant::S2L : Variant::REF;
}

/// " against S2L", or "" against REF.
static std::string refName(Variant Ref) {
  return Ref == Variant::REF ? std::string()
                             : formatv(" against {0}", variantName(Ref)).str();
}

void reduction(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    Variant StoreRef = storeRef(St);
    bool StoresUnknown = !St.Sat[Variant::S2L] && !L.Unavailable.count("S2L") &&
                         !L.Variants[Variant::S2L];
    if (St.Sat[Variant::NO_RED] && !St.TooShort) {
      auto [S, Reps] = against(St, Variant::NO_RED, StoreRef);
      if (S) {
        bool Paired = !Reps.empty();
        Classified Cl = costClaim(*S, Reps, T.RedCost, T);
        std::string Txt =
            !settled(Cl, Paired, T)
                ? formatv("reduction: Sat(NO_RED)={0:F2}{1}: whether the "
                          "chain costs at least {2} is inconclusive ({3})",
                          *S, refName(StoreRef), pct(T.RedCost),
                          describeSplit(Cl))
                      .str()
            : Cl.Label == "costly"
                ? formatv("the reduction chain costs {0} of this loop "
                          "(Sat(NO_RED)={1:F2}{2}{3}): its latency bounds "
                          "the loop; use several partial accumulators "
                          "(unroll, or allow reassociation)",
                          pct(std::max(0.0, 1 - *S)), *S, refName(StoreRef),
                          confidenceText(Cl, Paired))
                      .str()
                : formatv("the reduction chain costs little "
                          "(Sat(NO_RED)={0:F2}{1}{2})",
                          *S, refName(StoreRef), confidenceText(Cl, Paired))
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
