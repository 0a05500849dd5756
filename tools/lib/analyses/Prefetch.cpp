//===- analyses/Prefetch.cpp - Load ports near saturation (PREFETCH) ------===//
//
// Part of decan. Sat(PREFETCH), one more L1 access per memory access,
// against S2L where the loop stores: a slowdown of at least PortSlowdown
// says the L1 load ports are busy.
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

void prefetch(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    Variant StoreRef = storeRef(St);
    if (St.Sat[Variant::PREFETCH] && !St.TooShort) {
      auto [S, Reps] = against(St, Variant::PREFETCH, StoreRef);
      if (S) {
        bool Paired = !Reps.empty();
        // A slowdown of at least PortSlowdown: the L1 ports were busy.
        Classified Cl = classifyReplicates(
            {*S}, {Reps},
            [&](const double *X) {
              return std::string(X[0] - 1 >= T.PortSlowdown ? "busy"
                                                            : "headroom");
            },
            T.Margin);
        L.Diagnosis.push_back(
            !settled(Cl, Paired, T)
                ? formatv("load ports: Sat(PREFETCH)={0:F2}{1}: whether one "
                          "more L1 access per access slows the loop is "
                          "inconclusive ({2})",
                          *S, refName(StoreRef), describeSplit(Cl))
                      .str()
            : Cl.Label == "busy"
                ? formatv("load ports near saturation: one more L1 access "
                          "per memory access slows the loop by {0} "
                          "(Sat(PREFETCH)={1:F2}{2}{3}); fewer or wider "
                          "accesses would pay",
                          pct(*S - 1), *S, refName(StoreRef),
                          confidenceText(Cl, Paired))
                      .str()
                : formatv(
                      "load ports have headroom: one more L1 access per "
                      "memory access costs {0} (Sat(PREFETCH)={1:F2}{2}{3})",
                      pct(std::max(0.0, *S - 1)), *S, refName(StoreRef),
                      confidenceText(Cl, Paired))
                      .str());
      }
    }
  });
}

} // namespace decan::tool::analyses
