//===- TuneKinds.cpp - Candidates chosen by the diagnosis -----------------===//
//
// Part of decan. See decan/Tool/TuneKinds.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/TuneKinds.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/Feedback.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool {

namespace {
/// The kinds one analysed loop asks for, with the reasons.
void kindsOf(const LoopReport &L, const Thresholds &T,
             std::vector<std::string> &Kinds, std::vector<std::string> &Why) {
  auto Add = [&](const char *Kind, std::string Reason) {
    if (!is_contained(Kinds, Kind))
      Kinds.push_back(Kind);
    if (!is_contained(Why, Reason))
      Why.push_back(std::move(Reason));
  };
  std::optional<double> SatDL1 = L.Saturation[Variant::DL1];
  if (L.Verdict == VerdictClass::MemoryBound ||
      L.MemoryCpu == MemoryCpuClass::MemoryBound)
    Add("nest", "memory-bound");
  else if (SatDL1 && *SatDL1 < T.DL1InL1)
    Add("nest", formatv("data not in L1 (Sat(DL1)={0:F2})", *SatDL1).str());
  if (L.Verdict == VerdictClass::FPBound)
    Add("vector", "fp-bound");
  if (L.DivGain && *L.DivGain >= T.DivCost)
    Add("vector",
        formatv("division-bound (Sat(NO_DIV) saves {0:F0}%)", *L.DivGain * 100)
            .str());
  if (L.CtrlShare && *L.CtrlShare >= T.CtrlHigh)
    Add("unroll",
        formatv("control-bound (Sat(CTRL)={0:F2})", *L.CtrlShare).str());
  // The vectoriser's width and interleave gained on loops of every
  // diagnosis in a brute-force search over PolyBench (correlation, atax,
  // gemver, syrk; docs/pgo.md), and each costs a copy, not a build: every
  // diagnosed loop gets them.
  if (!Kinds.empty() && !is_contained(Kinds, "vector"))
    Kinds.push_back("vector");
}
} // namespace

std::vector<TuneKinds> tuneKinds(const Report &R,
                                 const std::vector<std::string> &Entries) {
  Thresholds T;
  std::vector<TuneKinds> Out;
  for (const std::string &E : Entries) {
    TuneKinds K;
    K.Entry = E;
    std::vector<std::string> Why;
    for (const LoopReport &L : R.Loops)
      if (hotEntry(L) == E)
        kindsOf(L, T, K.Kinds, Why);
    if (K.Kinds.empty()) {
      K.Kinds = {"vector", "unroll", "nest"};
      Why = {"no diagnosis"};
    }
    K.Why = join(Why, ", ");
    Out.push_back(std::move(K));
  }
  return Out;
}

std::string tuneKindsFlag(const std::vector<TuneKinds> &Ks) {
  std::vector<std::string> Entries;
  for (const TuneKinds &K : Ks)
    Entries.push_back(K.Entry + "=" + join(K.Kinds, "+"));
  return Entries.empty() ? ""
                         : " -mllvm -decan-tune-kinds=" + join(Entries, ",");
}

} // namespace decan::tool
