//===- analyses/Claims.cpp - What the analyses share: words and claims ----===//
//
// Part of decan. See Claims.h.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

Variant referenceOf(const LoopState &St, Variant V) {
  Variant Ref = referenceVariant(V);
  return St.Sat[Ref] ? Ref : Variant::REF;
}

std::string againstText(Variant Ref) {
  return Ref == Variant::REF ? std::string()
                             : formatv(" against {0}", variantName(Ref)).str();
}

std::string pct(double X) { return formatv("{0:F0}%", X * 100).str(); }

std::string plural(uint64_t N, StringRef Noun) {
  return formatv("{0} {1}{2}", N, Noun, N == 1 ? "" : "s").str();
}

StringRef atLeast(const LoopState &S, const Thresholds &T) {
  return S.ShortCall >= T.NoiseFloor ? "at least " : "";
}

std::string interval(const Interval &I) {
  return formatv("{0:F2} [{1:F2}, {2:F2}]", I.Value, I.Lo, I.Hi).str();
}

std::string describeSplit(const Classified &C) {
  std::string Out;
  for (const auto &[Label, Share] : C.Labels) {
    if (Share < 0.05)
      continue;
    Out += (Out.empty() ? "" : ", ") + Label + " in " + pct(Share) +
           (Out.empty() ? " of resamples" : "");
  }
  return Out;
}

bool confident(const Classified &C, bool Paired, const Thresholds &T) {
  return !Paired || C.Agreement >= T.Confidence;
}

std::string confidenceText(const Classified &C, bool Paired) {
  return Paired ? formatv(", confidence {0}", pct(C.Agreement)).str() : "";
}

bool settled(const Classified &C, bool Paired, const Thresholds &T) {
  return confident(C, Paired, T) && C.Label != kNearThreshold;
}

std::string satText(const LoopState &S, Variant V) {
  return S.SatI[V] ? interval(*S.SatI[V]) : formatv("{0:F2}", *S.Sat[V]).str();
}

Classified costClaim(double Sat, const std::vector<double> &Reps, double Cost,
                     const Thresholds &T, double Below) {
  return classifyReplicates(
      {Sat}, {Reps},
      [&](const double *X) {
        return std::string(1 - X[0] >= Cost ? "costly" : "cheap");
      },
      T.Margin, Below);
}

std::pair<std::optional<double>, std::vector<double>>
against(const LoopState &S, Variant V, Variant Ref) {
  if (!S.Sat[V])
    return {std::nullopt, {}};
  if (Ref == Variant::REF)
    return {S.Sat[V], S.Boot[V]};
  if (!S.Sat[Ref] || *S.Sat[Ref] <= 0)
    return {std::nullopt, {}};
  std::vector<double> X;
  const std::vector<double> &B = S.Boot[V], &BR = S.Boot[Ref];
  if (B.size() == BR.size())
    for (size_t I = 0; I < B.size(); ++I)
      X.push_back(BR[I] > 0 ? B[I] / BR[I] : B[I]);
  return {*S.Sat[V] / *S.Sat[Ref], X};
}

bool lsIsRef(const LoopReport &L) {
  // An empty variant changes nothing (Variants.cpp, emptyBecause); LS
  // turns every store into a load, so an empty LS has none either.
  auto U = L.Unavailable.find("LS");
  return U != L.Unavailable.end() && U->second == "empty";
}

std::pair<std::optional<double>, std::vector<double>>
satOfLS(const LoopReport &L, const LoopState &S, size_t N) {
  if (lsIsRef(L))
    return {1.0, std::vector<double>(N, 1.0)};
  return {S.Sat[Variant::LS], S.Boot[Variant::LS]};
}

std::string satLSInterval(const LoopReport &L, const LoopState &S) {
  if (lsIsRef(L))
    return "1 (LS is REF)";
  return S.SatI[Variant::LS] ? interval(*S.SatI[Variant::LS]) : "?";
}

} // namespace decan::tool::analyses
