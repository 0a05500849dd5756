//===- Analysis.cpp - Differential analyses of a report -------------------===//
//
// Part of decan. What every analysis reads (saturations, classifications
// over bootstrap replicates) and the run of the list; the analyses
// themselves are in analyses/, one file each (AnalysisList.h).
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"
#include "decan/Tool/AnalysisList.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace decan::tool {

std::optional<double> saturation(const LoopReport &L, Variant V) {
  if (!L.Variants[Variant::REF] || !L.Variants[V])
    return std::nullopt;
  double Ref = L.Variants[Variant::REF]->Cycles.Median;
  if (Ref <= 0 || L.Variants[V]->Calls == 0)
    return std::nullopt;
  return L.Variants[V]->Cycles.Median / Ref;
}

Classified
classifyReplicates(const std::vector<double> &Point,
                   const std::vector<std::vector<double>> &Replicates,
                   const std::function<std::string(const double *)> &Classify,
                   double Margin, double Below) {
  // The class of \p X, or kNearThreshold when a corner of the box
  // [X - Margin - Below, X + Margin] falls in another one.
  std::vector<double> Corner(Point.size());
  auto Robust = [&](const double *X) {
    std::string Label = Classify(X);
    if (Margin <= 0 && Below <= 0)
      return Label;
    for (unsigned Mask = 0; Mask < (1u << Point.size()); ++Mask) {
      for (size_t I = 0; I < Point.size(); ++I)
        Corner[I] = X[I] + ((Mask >> I) & 1 ? Margin : -Margin - Below);
      if (Classify(Corner.data()) != Label)
        return std::string(kNearThreshold);
    }
    return Label;
  };
  Classified C;
  C.Label = Robust(Point.data());
  size_t B = Replicates.empty() ? 0 : Replicates[0].size();
  for (const auto &R : Replicates)
    B = std::min(B, R.size());
  if (!B) {
    C.Agreement = 0;
    return C;
  }
  std::map<std::string, unsigned> Count;
  std::vector<double> X(Replicates.size());
  for (size_t K = 0; K < B; ++K) {
    for (size_t I = 0; I < Replicates.size(); ++I)
      X[I] = Replicates[I][K];
    ++Count[Robust(X.data())];
  }
  // A point near a threshold states no class, however its replicates fall.
  C.Agreement =
      C.Label == kNearThreshold ? 0 : double(Count[C.Label]) / double(B);
  for (const auto &[Label, N] : Count)
    C.Labels.emplace_back(Label, double(N) / double(B));
  std::stable_sort(
      C.Labels.begin(), C.Labels.end(),
      [](const auto &A, const auto &B) { return A.second > B.second; });
  return C;
}

void runAnalyses(Report &R, const Thresholds &T, ArrayRef<AnalysisUnit> Units) {
  AnalysisContext C{R, T, T, std::vector<LoopState>(R.Loops.size())};
  if (R.Config.getString("mode") == "instance") // one call per variant
    C.TC.MinCalls = 1;
  for (LoopReport &L : R.Loops) {
    L.SatInterval = {};
    L.Saturation = {};
    L.Diagnosis.clear();
    L.Warnings.clear();
    L.Streams = StreamsClass::None;
    L.MemoryCpu = MemoryCpuClass::None;
    L.Verdict = VerdictClass::None;
    L.Inconclusive.clear();
    L.VerdictConfidence = 0;
    L.DL1Gain.reset();
    L.DivGain.reset();
    L.CtrlShare.reset();
    L.PredictedGain.reset();
    L.PredictedGainBy.clear();
  }
  for (const AnalysisUnit &U : Units)
    U.Run(C);
}

void analyse(Report &R, const Thresholds &T) {
  runAnalyses(R, T, analysisList());
}

} // namespace decan::tool
