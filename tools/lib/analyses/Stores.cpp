//===- analyses/Stores.cpp - What the stores cost (NO_STORE, S2L) ---------===//
//
// Part of decan. Stores (thesis 5.12, Table 5.2): NO_STORE deletes them,
// S2L keeps their reads; S2L vs REF is what writing costs (coherence
// traffic, write-allocate, store-buffer pressure).
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool::analyses {

void stores(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    if (St.Sat[Variant::NO_STORE] && !St.TooShort) {
      bool Paired = !St.Boot[Variant::NO_STORE].empty();
      Classified Cl =
          costClaim(*St.Sat[Variant::NO_STORE], St.Boot[Variant::NO_STORE],
                    T.StoreCost, T, St.ShortCall);
      L.Diagnosis.push_back(
          !settled(Cl, Paired, T)
              ? formatv("stores: Sat(NO_STORE)={0}: whether they cost at "
                        "least {1} is inconclusive ({2})",
                        satText(St, Variant::NO_STORE), pct(T.StoreCost),
                        describeSplit(Cl))
                    .str()
          : Cl.Label == "costly"
              ? formatv(
                    "stores cost {0}{1} of this loop (Sat(NO_STORE)={2:F2}{3})",
                    atLeast(St, T),
                    pct(std::max(0.0, 1 - *St.Sat[Variant::NO_STORE])),
                    *St.Sat[Variant::NO_STORE], confidenceText(Cl, Paired))
                    .str()
              : formatv("stores cost little (Sat(NO_STORE)={0:F2}{1})",
                        *St.Sat[Variant::NO_STORE], confidenceText(Cl, Paired))
                    .str());
    }
    if (St.Sat[Variant::S2L] && !St.TooShort) {
      bool Paired = !St.Boot[Variant::S2L].empty();
      Classified Cl = costClaim(*St.Sat[Variant::S2L], St.Boot[Variant::S2L],
                                T.StoreCost, T, St.ShortCall);
      L.Diagnosis.push_back(
          !settled(Cl, Paired, T)
              ? formatv("store writes (coherence, write-allocate): "
                        "Sat(S2L)={0}: whether they cost at least {1} is "
                        "inconclusive ({2})",
                        satText(St, Variant::S2L), pct(T.StoreCost),
                        describeSplit(Cl))
                    .str()
          : Cl.Label == "costly"
              ? formatv("store writes cost {0}{1} of this loop: coherence and "
                        "write-allocate traffic (stores as loads: "
                        "Sat(S2L)={2:F2}{3}); in a parallel loop, look for "
                        "threads writing one cache line (false sharing)",
                        atLeast(St, T),
                        pct(std::max(0.0, 1 - *St.Sat[Variant::S2L])),
                        *St.Sat[Variant::S2L], confidenceText(Cl, Paired))
                    .str()
              : formatv("store writes cost little: coherence none "
                        "(Sat(S2L)={0:F2}{1})",
                        *St.Sat[Variant::S2L], confidenceText(Cl, Paired))
                    .str());
    }
  });
}

} // namespace decan::tool::analyses
