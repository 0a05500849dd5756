//===- analyses/Precision.cpp - Calls too short or too few to diagnose ----===//
//
// Part of decan. A loop gets no verdict from its samples when its calls
// are below the precision floor (MinCallProbes probe costs: above it,
// short calls get the short-call term of Saturations.cpp, which reaches 1
// below ShortCallProbes probe costs, so that only the claims resting on a
// saturation's upper end hold), or when LS or FP has too few usable pairs
// where the loop has both streams to compare: its verdict is
// "inconclusive", with what would settle it.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

void precision(AnalysisContext &C) {
  const Report &R = C.R;
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    S.TooShort = R.ProbeCycles > 0 && S.MeanCall > 0 &&
                 S.MeanCall < T.MinCallProbes * R.ProbeCycles;
    // Too few pairs matter only where the loop has both streams to
    // compare (a pointer chase has no FP: its LS decides nothing).
    bool StreamsExist =
        !L.Unavailable.count("LS") && !L.Unavailable.count("FP");
    std::string Missing;
    for (Variant V : {Variant::LS, Variant::FP})
      if (StreamsExist && L.Variants[V] &&
          !L.Saturation[V]) // too few pairs, not dropped
        Missing += formatv("{0}{1}: {2} usable pairs (need {3})",
                           Missing.empty() ? "" : "; ", variantName(V),
                           L.Variants[V]->Pairs.size(), C.TC.MinCalls)
                       .str();
    if (S.TooShort) {
      L.Verdict = VerdictClass::Inconclusive;
      L.Inconclusive =
          formatv("calls average {0:F0} cycles, below the precision floor "
                  "({1:F1} x the probe's {2:F0} cycles): nothing is "
                  "diagnosed from them; time a larger input",
                  S.MeanCall, T.MinCallProbes, R.ProbeCycles)
              .str();
    } else if (S.ShortCall >= T.NoiseFloor) {
      L.Warnings.push_back(
          formatv("short calls ({0:F0} cycles): a call timed alone loses the "
                  "overlap it has in the program, so each saturation may read "
                  "up to {1:F2} high ({2:F0} x the probe's {3:F0} cycles per "
                  "call); the intervals reach down by it and every claim "
                  "holds down to there",
                  T.ShortCallProbes * R.ProbeCycles / S.ShortCall, S.ShortCall,
                  T.ShortCallProbes, R.ProbeCycles)
              .str());
    }
    if (!S.TooShort && !Missing.empty()) {
      L.Verdict = VerdictClass::Inconclusive;
      L.Inconclusive = Missing + ": a longer run (more calls of the loop), "
                                 "or decan run --max-runs N";
    }
  });
}

} // namespace decan::tool::analyses
