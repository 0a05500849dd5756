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

void prefetch(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    Variant StoreRef = referenceOf(St, Variant::PREFETCH);
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
            T.Margin, St.ShortCall);
        L.Diagnosis.push_back(
            !settled(Cl, Paired, T)
                ? formatv("load ports: Sat(PREFETCH)={0:F2}{1}: whether one "
                          "more L1 access per access slows the loop is "
                          "inconclusive ({2})",
                          *S, againstText(StoreRef), describeSplit(Cl))
                      .str()
            : Cl.Label == "busy"
                ? formatv("load ports near saturation: one more L1 access "
                          "per memory access slows the loop by {0} "
                          "(Sat(PREFETCH)={1:F2}{2}{3}); fewer or wider "
                          "accesses would pay",
                          pct(*S - 1), *S, againstText(StoreRef),
                          confidenceText(Cl, Paired))
                      .str()
                : formatv(
                      "load ports have headroom: one more L1 access per "
                      "memory access costs {0} (Sat(PREFETCH)={1:F2}{2}{3})",
                      pct(std::max(0.0, *S - 1)), *S, againstText(StoreRef),
                      confidenceText(Cl, Paired))
                      .str());
      }
    }
  });
}

} // namespace decan::tool::analyses
