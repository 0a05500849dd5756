//===- analyses/SuspectVariants.cpp - Saturations no claim may rest on ----===//
//
// Part of decan. A variant removes work from the loop: measured slower
// than the loop by more than MaxVariantSat, it measured something else
// (page faults in whichever copy ran first, placement, aliasing with its
// scratch area, stores turned into loads that miss), and REF against its
// REF neighbours far from 1 says the pairing itself was disturbed. A short
// call's copy reads high by up to the short-call term (Saturations.cpp):
// a variant's copy runs 1 call in hundreds, cold in the caches and branch
// predictors where REF's code runs every call, and every sample (REF's
// too) follows the slot's system calls, which its neighbours do not; so
// that much above MaxVariantSat (and above REF's 1 + MaxRefTwinOff) is
// allowed. Claims read LoopState's saturations: the suspect ones are taken
// out of it (the table still shows them), and a loop whose streams verdict
// would rest on them is inconclusive, saying why.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;

namespace decan::tool::analyses {

static void forget(LoopState &S, Variant V) {
  S.Sat[V].reset();
  S.Boot[V].clear();
  S.SatI[V].reset();
}

void suspectVariants(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    std::string Why;
    bool NoVerdict = false, Streams = false;
    const std::optional<Interval> &Twin = L.SatInterval[Variant::REF];
    // The REF sample follows the slot's system calls, its neighbours do
    // not: on a short call it reads high by up to the term too.
    if (Twin && (Twin->Value - 1 > T.MaxRefTwinOff + S.ShortCall ||
                 1 - Twin->Value > T.MaxRefTwinOff)) {
      Why = formatv("REF against its REF neighbours is {0:F2}, not 1: the "
                    "pairs measured a disturbance (page faults, placement), "
                    "not the variants; no saturation is used",
                    Twin->Value)
                .str();
      for (Variant V : AllVariants)
        forget(S, V);
      NoVerdict = true;
    }
    // REF's own row off 1 rules every saturation out already.
    for (Variant V : AllVariants) {
      if (NoVerdict)
        break;
      // PREFETCH adds accesses: slower than the loop is its result.
      if (V == Variant::REF || V == Variant::PREFETCH || !L.Saturation[V] ||
          *L.Saturation[V] - S.ShortCall <= T.MaxVariantSat)
        continue;
      Why += formatv("{0}{1} slower than the loop (Sat {2:F2}",
                     Why.empty() ? "" : "; ", variantName(V), *L.Saturation[V])
                 .str();
      if (S.ShortCall >= 0.005)
        Why +=
            formatv(", {0:F2} of it allowed to short calls", S.ShortCall).str();
      Why += "): not used";
      forget(S, V);
      Streams |= V == Variant::LS || V == Variant::FP;
    }
    NoVerdict |= Streams;
    if (Why.empty())
      return;
    // The rank's gain was read from the table's saturations (ranking).
    if (!S.Sat[Variant::DL1])
      L.DL1Gain.reset();
    if (!NoVerdict) {
      L.Diagnosis.push_back(Why);
      return;
    }
    L.Verdict = VerdictClass::Inconclusive;
    L.Inconclusive += (L.Inconclusive.empty() ? "" : "; ") + Why;
  });
}

} // namespace decan::tool::analyses
