//===- analyses/Phases.cpp - What changes over the run --------------------===//
//
// Part of decan. The run in quarters of its calls: each part's saturations and
// streams class; REF's cost per iteration or streams class changing between
// parts (phases), and samples whose trip counts miss the run's.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace decan::tool::analyses {

/// Point saturations of the pairs whose run position is in [From, To).
static std::optional<double> partSaturation(const VariantStats &S, double From,
                                            double To, unsigned MinPairs) {
  std::vector<Pair> In;
  for (const Pair &P : S.Pairs)
    if (P.RunPos >= From && (P.RunPos < To || (To >= 1 && P.RunPos <= 1)))
      In.push_back(P);
  if (In.size() < MinPairs)
    return std::nullopt;
  return ratioOfSums(In);
}

/// What the loop's whole-run figures say about its run: phases, trip counts
/// of the samples against the run's.
static void checkRun(LoopReport &L, const Thresholds &T) {
  // REF's cost per iteration (per call without trip counts) per part.
  std::vector<double> Cost;
  std::string Costs;
  for (const RunPart &Q : L.Parts) {
    if (!Q.Calls)
      continue;
    double C =
        Q.Iterations > 0 ? Q.Cycles / Q.Iterations : Q.Cycles / (double)Q.Calls;
    Cost.push_back(C);
    Costs += formatv("{0}{1:F1}", Costs.empty() ? "" : ", ", C).str();
  }
  if (Cost.size() >= 2) {
    auto [Lo, Hi] = std::minmax_element(Cost.begin(), Cost.end());
    if (*Lo > 0 && *Hi > *Lo * (1 + T.PhaseCost))
      L.Diagnosis.push_back(
          formatv("phases: REF's cost per {0} changes over the run (by "
                  "quarter of its calls: {1} cycles): the verdict describes "
                  "the whole run",
                  L.RunTripsKnown ? "iteration" : "call", Costs)
              .str());
  }
  StreamsClass First = StreamsClass::None, Last = StreamsClass::None;
  for (const RunPart &Q : L.Parts)
    if (Q.Streams != StreamsClass::None) {
      if (First == StreamsClass::None)
        First = Q.Streams;
      Last = Q.Streams;
    }
  if (First != Last)
    L.Diagnosis.push_back(formatv("phases: {0} early in the run, {1} late",
                                  nameOf(First), nameOf(Last))
                              .str());
  if (L.RunMeanTrips && L.SampleMeanTrips && *L.RunMeanTrips > 0 &&
      std::fabs(*L.SampleMeanTrips - *L.RunMeanTrips) >
          T.MaxTripsDrift * *L.RunMeanTrips)
    L.Warnings.push_back(
        formatv("samples average {0:F1} iterations per call, the whole run "
                "{1:F1}: the samples may not represent the run",
                *L.SampleMeanTrips, *L.RunMeanTrips)
            .str());
}

void phases(AnalysisContext &C) {
  for (LoopReport &L : C.R.Loops)
    for (RunPart &Q : L.Parts) {
      for (Variant V : AllVariants)
        Q.Saturation[V] = L.Variants[V] ? partSaturation(*L.Variants[V], Q.From,
                                                         Q.To, C.TC.MinCalls)
                                        : std::nullopt;
      const auto &LS = Q.Saturation[Variant::LS],
                 &FP = Q.Saturation[Variant::FP];
      Q.Streams =
          LS && FP ? classifyStreams(*LS, *FP, C.T) : StreamsClass::None;
    }
  forEachLoop(C, [&](LoopReport &L, LoopState &) { checkRun(L, C.T); });
}

} // namespace decan::tool::analyses
