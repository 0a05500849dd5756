//===- analyses/Inconclusive.cpp - Why a loop has no verdict --------------===//
//
// Part of decan. A loop called too few times while measured to have any
// variant sample is inconclusive too (its REF time is its whole-run time);
// an inconclusive loop's diagnosis says why, and what would settle it. A
// plugin build without loop nests whose hot loops are inconclusive for
// short calls gets one line: rebuild with `decan flags --nests`.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

/// Whether \p Id names a loop nest ("F:N<k>", `decan flags --nests`).
static bool isNestId(StringRef Id) {
  StringRef Local = Id.rsplit(':').second;
  return Local.size() > 1 && Local[0] == 'N' &&
         all_of(Local.drop_front(), isDigit);
}

/// A plugin build without nests whose hot loops are inconclusive for their
/// short calls: one line saying what would time them longer (docs/variants.md,
/// "Loop nests"). Rewritten loops (a dispatcher's calls) have no nests.
static void nestsHint(AnalysisContext &C) {
  if (any_of(C.R.Loops, [](const LoopReport &L) { return isNestId(L.Id); }))
    return;
  std::string Ids;
  unsigned Named = 0;
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    // Below the precision floor, or inconclusive with a short-call term
    // (Saturations.cpp) that spans the thresholds or at least the gap
    // between LS and FP that makes a bound: longer calls would settle it.
    bool Short = S.TooShort || S.ShortCall >= C.T.Gap ||
                 StringRef(L.Inconclusive).contains("short-call term");
    if (L.Verdict != VerdictClass::Inconclusive || !Short || L.DispatchCalls ||
        L.ProgramShare.value_or(0) < 0.02)
      return;
    if (Named++ < 3)
      Ids += (Ids.empty() ? "" : ", ") + L.name();
  });
  if (!Named)
    return;
  std::string W =
      formatv("{0} hot loop{1} inconclusive for short calls ({2}{3}): "
              "rebuild with 'decan flags --nests' to time {4} with the loop "
              "around {4}",
              Named, Named == 1 ? " is" : "s are", Ids,
              Named > 3 ? ", ..." : "", Named == 1 ? "it" : "them")
          .str();
  if (!is_contained(C.R.Warnings, W))
    C.R.Warnings.push_back(W);
}

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
  nestsHint(C);
}

} // namespace decan::tool::analyses
