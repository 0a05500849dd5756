//===- analyses/Inconclusive.cpp - Why a loop has no verdict --------------===//
//
// Part of decan. A loop called too few times while measured to have any
// variant sample is inconclusive too (its REF time is its whole-run time);
// an inconclusive loop's diagnosis says why, and what would settle it.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

void inconclusive(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    bool AnyPairs = any_of(
        L.Variants, [](const auto &V) { return V && !V->Pairs.empty(); });
    if (L.RunCalls && !AnyPairs && L.Verdict == VerdictClass::None &&
        none_of(L.Saturation, [](const auto &X) { return X.has_value(); })) {
      L.Verdict = VerdictClass::Inconclusive;
      L.Inconclusive =
          formatv("called {0} time{1} while measured: too few calls for "
                  "variant samples; its REF time above is its whole-run time",
                  L.RunCalls, L.RunCalls == 1 ? "" : "s")
              .str();
    }
    if (!L.Inconclusive.empty())
      L.Diagnosis.push_back("inconclusive: " + L.Inconclusive);
    if (S.TooShort)
      L.Warnings.push_back("calls too short for the precision: see "
                           "'inconclusive'");
  });
}

} // namespace decan::tool::analyses
