//===- analyses/DL1.cpp - Where the data live, and what L1 would gain -----===//
//
// Part of decan. Sat(DL1), the loop with every access in L1 (thesis
// 4.5.4): where the loop's data live, and what L1-resident data would save
// of the loop, of the measured loops' time and of the program's.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool {

double dl1Gain(double Share, double SatDL1) {
  return std::max(0.0, Share * (1 - SatDL1));
}

StringRef dataLocation(double SatDL1, const Thresholds &T) {
  if (SatDL1 >= T.DL1InL1)
    return "L1";
  if (SatDL1 >= T.DL1InL2)
    return "L2";
  return "L3 or memory";
}

namespace analyses {

void dl1(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    const Variant DL1 = Variant::DL1;
    if (!St.Sat[DL1] || St.TooShort)
      return;
    double Sat = *St.Sat[DL1];
    bool Paired = !St.Boot[DL1].empty();
    Classified Cl = classifyReplicates(
        {Sat}, {St.Boot[DL1]},
        [&](const double *X) { return dataLocation(X[0], T).str(); }, T.Margin,
        St.ShortCall);
    std::string S = confident(Cl, Paired, T)
                        ? formatv("DL1: Sat(DL1)={0:F2}, data in {1}{2}", Sat,
                                  Cl.Label, confidenceText(Cl, Paired))
                              .str()
                        : formatv("DL1: Sat(DL1)={0}: where the data live is "
                                  "inconclusive ({1})",
                                  interval(*St.SatI[DL1]), describeSplit(Cl))
                              .str();
    if (Sat < T.DL1InL1) {
      S += formatv("; L1-resident data would save up to {0} of the loop, "
                   "{1} of measured loop time (rank {2} by potential gain, "
                   "{3} by share)",
                   pct(1 - Sat), pct(*L.DL1Gain), L.RankByGain, L.RankByShare)
               .str();
      if (L.ProgramShare)
        S +=
            formatv("; the program would run {0:F2}x faster (Amdahl, "
                    "program share {1})",
                    1 / (1 - *L.ProgramShare * (1 - Sat)), pct(*L.ProgramShare))
                .str();
    } else {
      S += ": nothing to gain from data locality";
    }
    L.Diagnosis.push_back(S);
  });
}

} // namespace analyses
} // namespace decan::tool
