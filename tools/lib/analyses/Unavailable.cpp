//===- analyses/Unavailable.cpp - Variants not built or not measured ------===//
//
// Part of decan. What the report says of the variants it has no samples of: not
// built (when the reason tells something of the loop: its work all feeds its
// control; not for a loop without division, store...), not measured (and why),
// runaway copies, copies that faulted, calls past the iteration cap.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "decan/abi_names.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

/// An empty variant's reason that says only that the loop lacks its work.
static bool isNothingToDo(StringRef Why) {
  for (decan_variant_why W :
       {DECAN_WHY_NONE, DECAN_WHY_NO_DIV, DECAN_WHY_NO_MEMORY,
        DECAN_WHY_NO_CALL, DECAN_WHY_NO_STORE, DECAN_WHY_NO_RED})
    if (Why == decan_variant_why_text(W))
      return true;
  return false;
}

void unavailable(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &) {
    for (const auto &KV : L.Unavailable) {
      // "empty": the variant would equal REF (e.g. no division for
      // NO_DIV); a fact about the loop, not a measurement problem.
      if (KV.second == "empty") {
        // GROUPING's copies past the loop's groups: the groups line says it.
        std::optional<Variant> V = parseVariant(KV.first);
        if (V && variantGroup(*V) >= 0)
          continue;
        auto W = L.UnavailableWhy.find(KV.first);
        // Nothing of that work in the loop (no division for NO_DIV): the
        // variant is simply not there; only a reason that tells something
        // of the loop (its work all feeds its control) is said.
        if (W == L.UnavailableWhy.end() || isNothingToDo(W->second))
          continue;
        L.Diagnosis.push_back(
            formatv("{0} not built: {1}", KV.first,
                    W == L.UnavailableWhy.end() || W->second.empty()
                        ? std::string("nothing to remove in this loop")
                        : W->second)
                .str());
      } else if (KV.second == "not-emitted") {
        // Not in this build: `decan run` says it once for every loop
        // (RunHints.h), with the options that build it.
        continue;
      } else if (KV.second == "faulted") {
        L.Warnings.push_back(
            formatv("{0} faulted ({1}): dropped; that call was abandoned "
                    "and the original loop ran in its place",
                    KV.first, L.UnavailableWhy[KV.first])
                .str());
      } else if (KV.second == "runaway") {
        auto C = L.CappedCalls.find(KV.first);
        L.Warnings.push_back(
            formatv("{0} {1}: not measured ({2} capped)", KV.first,
                    L.UnavailableWhy[KV.first],
                    plural(C == L.CappedCalls.end() ? 0 : C->second, "call"))
                .str());
      } else {
        auto W = L.UnavailableWhy.find(KV.first);
        L.Warnings.push_back(
            formatv("{0} not measured: {1}{2}", KV.first, KV.second,
                    W == L.UnavailableWhy.end() ? "" : " (" + W->second + ")")
                .str());
      }
    }
    for (const auto &[V, N] : L.CappedCalls)
      if (auto U = L.Unavailable.find(V);
          U == L.Unavailable.end() || U->second != "runaway")
        L.Warnings.push_back(
            formatv("{0}: {1} past the iteration cap on inputs longer than "
                    "REF's so far: not samples",
                    V, plural(N, "call"))
                .str());
  });
}

} // namespace decan::tool::analyses
