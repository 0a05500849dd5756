//===- analyses/Divisions.cpp - Expensive instructions (NO_DIV) -----------===//
//
// Part of decan. Sat(NO_DIV), the loop without its divisions and square
// roots (thesis 4.5.5): whether they cost at least DivCost of the loop,
// and what removing them would gain the program.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool::analyses {

void divisions(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    const Variant NoDiv = Variant::NO_DIV;
    if (!St.Sat[NoDiv] || St.TooShort)
      return;
    double Sat = *St.Sat[NoDiv];
    L.DivGain = std::max(0.0, 1 - Sat);
    bool Paired = !St.Boot[NoDiv].empty();
    Classified Cl = costClaim(Sat, St.Boot[NoDiv], T.DivCost, T, St.ShortCall);
    if (!confident(Cl, Paired, T)) {
      L.Diagnosis.push_back(
          formatv("divisions/square roots: Sat(NO_DIV)={0}: whether they "
                  "cost at least {1} is inconclusive ({2})",
                  interval(*L.SatInterval[NoDiv]), pct(T.DivCost),
                  describeSplit(Cl))
              .str());
      return;
    }
    if (Cl.Label != "costly") {
      L.Diagnosis.push_back(
          formatv("divisions/square roots cost little (Sat(NO_DIV)={0:F2})",
                  Sat)
              .str());
      return;
    }
    StringRef AtLeast = atLeast(St, T);
    std::string S =
        formatv("expensive instructions: divisions/square roots cost {0}{1} "
                "of the loop (Sat(NO_DIV)={2:F2}{3}); use reciprocals, "
                "hoist or vectorise them",
                AtLeast, pct(*L.DivGain), Sat, confidenceText(Cl, Paired))
            .str();
    if (L.ProgramShare)
      S += formatv("; without them the program would run {0}{1:F2}x faster "
                   "(Amdahl, program share {2})",
                   AtLeast, 1 / (1 - *L.ProgramShare * *L.DivGain),
                   pct(*L.ProgramShare))
               .str();
    L.Diagnosis.push_back(S);
  });
}

} // namespace decan::tool::analyses
