//===- analyses/VariantCalls.cpp - Calls the variants deleted or moved ----===//
//
// Part of decan. Variants that deleted calls REF makes are compared with
// NO_CALL, the loop without them (thesis 4.5.2: saturation between two
// variants), so LS and FP still say "memory or arithmetic" for the loop's
// own work; and DL1's redirected memcpy/memset/memmove are named.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

/// Sat(V) / Sat(NO_CALL) in \p S for the variants that deleted the loop's
/// calls (their replicates too); those without a NO_CALL measurement lose
/// their saturation. Returns what was done, in words ("" when nothing).
static std::string againstNoCall(const LoopReport &L, LoopState &S) {
  auto &Sat = S.Sat;
  auto &B = S.Boot;
  auto &SatI = S.SatI;
  const Variant NoCall = Variant::NO_CALL;
  std::string Moved, Dropped;
  for (const std::string &Name : L.CallsDeleted) {
    std::optional<Variant> V = parseVariant(Name);
    if (!V || *V == NoCall || *V == Variant::REF || !Sat[*V])
      continue;
    if (!Sat[NoCall] || *Sat[NoCall] <= 0) {
      Sat[*V].reset();
      B[*V].clear();
      SatI[*V].reset();
      Dropped += (Dropped.empty() ? "" : ", ") + Name;
      continue;
    }
    double Ref = *Sat[NoCall];
    *Sat[*V] /= Ref;
    if (SatI[*V])
      SatI[*V] = Interval{SatI[*V]->Value / Ref, SatI[*V]->Lo / Ref,
                          SatI[*V]->Hi / Ref, SatI[*V]->N};
    if (B[*V].size() == B[NoCall].size())
      for (size_t I = 0; I < B[*V].size(); ++I)
        B[*V][I] = B[NoCall][I] > 0 ? B[*V][I] / B[NoCall][I] : B[*V][I];
    else
      B[*V].clear();
    Moved += formatv("{0}{1}: Sat={2:F2} against NO_CALL",
                     Moved.empty() ? "" : ", ", Name, *Sat[*V])
                 .str();
  }
  std::string Out;
  if (!Moved.empty())
    Out = "calls deleted in " + Moved +
          " (the loop's own work, calls left out: thesis 4.5.2)";
  if (!Dropped.empty())
    Out += (Out.empty() ? "" : "; ") + Dropped +
           " deleted the loop's calls and NO_CALL was not measured: no "
           "stream analysis for them";
  return Out;
}

void variantCalls(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    std::string CallRef = againstNoCall(L, S);
    if (!CallRef.empty())
      L.Diagnosis.push_back(CallRef);
    if (L.DL1MemoryCallBytes && L.Variants[Variant::DL1])
      L.Diagnosis.push_back(formatv(
          "DL1 redirected the loop's memcpy/memset/memmove to its scratch "
          "area, lengths above {0} bytes clamped to {0}: where a call moves "
          "more, DL1 did less of its work than REF",
          L.DL1MemoryCallBytes));
  });
}

} // namespace decan::tool::analyses
