//===- analyses/SuspectVariants.cpp - Saturations no claim may rest on ----===//
//
// Part of decan. A variant removes work from the loop: measured slower
// than the loop by more than MaxVariantSat, it measured something else
// (page faults in whichever copy ran first, placement, aliasing with its
// scratch area, stores turned into loads that miss), and REF against its
// REF neighbours far from 1 says the pairing itself was disturbed. No claim
// rests on either. On a short call the excess may be the short-call term's
// (Saturations.cpp), which a variant's copy pays and its REF neighbours do
// not (in the rewriter 15-40 cycles a call for every copy but REF's, CTRL
// included; in a real program a cold copy's caches and predictors too):
// the reason then says so instead of "slower than the loop". Claims
// read LoopState's saturations: the suspect ones are taken out of it (the
// table still shows them), and a loop whose streams verdict would rest on
// them is inconclusive, saying why.
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
    // A reading the short-call term explains is named for it, but no claim
    // rests on it either.
    auto Within = [&](double Excess) {
      return S.ShortCall >= 0.005 && Excess <= S.ShortCall;
    };
    if (Twin && std::fabs(Twin->Value - 1) > T.MaxRefTwinOff) {
      double Excess = Twin->Value - 1 - T.MaxRefTwinOff;
      Why = Excess > 0 && Within(Excess)
                ? formatv("REF against its REF neighbours is {0:F2}, within "
                          "the short-call term ({1:F2}, which the slot's "
                          "system calls before its sample can explain); no "
                          "saturation is used",
                          Twin->Value, S.ShortCall)
                      .str()
                : formatv("REF against its REF neighbours is {0:F2}, not 1: "
                          "the pairs measured a disturbance (page faults, "
                          "placement), not the variants; no saturation is "
                          "used",
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
          *L.Saturation[V] <= T.MaxVariantSat)
        continue;
      double Sat = *L.Saturation[V];
      Why += Why.empty() ? "" : "; ";
      Why += Within(Sat - T.MaxVariantSat)
                 ? formatv("{0} reads {1:F2}, within the short-call term "
                           "({2:F2}, which a short call's copy pays and its "
                           "REF neighbours do not): not used",
                           variantName(V), Sat, S.ShortCall)
                       .str()
                 : formatv("{0} slower than the loop (Sat {1:F2}): not used",
                           variantName(V), Sat)
                       .str();
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
