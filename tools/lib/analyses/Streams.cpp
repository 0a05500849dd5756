//===- analyses/Streams.cpp - Memory or arithmetic: Algorithm 2 -----------===//
//
// Part of decan. Sat(LS) against Sat(FP) (thesis 4.5.3, Algorithm 2):
// which stream bounds the loop, classified on every bootstrap replicate;
// the loop's headline verdict when the replicates agree.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool {

StreamsClass classifyStreams(double SatLS, double SatFP, const Thresholds &T) {
  if (SatLS - SatFP >= T.Gap)
    return StreamsClass::MemoryBound;
  if (SatFP - SatLS >= T.Gap)
    return StreamsClass::FPBound;
  if (SatLS < T.Full && SatFP < T.Full)
    return StreamsClass::Unsaturated;
  return StreamsClass::Balanced;
}

std::string explainStreams(StreamsClass C, double SatLS, double SatFP,
                           const Thresholds &T) {
  std::string Sats = formatv("Sat(LS)={0:F2}, Sat(FP)={1:F2}", SatLS, SatFP);
  switch (C) {
  case StreamsClass::MemoryBound:
    return "memory-bound (" + Sats + "): " +
           (SatLS >= T.Full
                ? std::string("the memory stream alone takes REF's time; "
                              "optimise the loads/stores, or add computation "
                              "to fill the gap")
                : std::string("memory accesses dominate, but neither stream "
                              "saturates: part of the time is their "
                              "interaction"));
  case StreamsClass::FPBound:
    return "FP-bound (" + Sats + "): " +
           (SatFP >= T.Full
                ? std::string("the arithmetic stream alone takes REF's time; "
                              "optimise the computation (see NO_DIV), memory "
                              "accesses come for free")
                : std::string("arithmetic dominates, but neither stream "
                              "saturates: part of the time is their "
                              "interaction"));
  case StreamsClass::Balanced:
    return "balanced (" + Sats + "): " +
           (SatLS >= T.Full && SatFP >= T.Full
                ? std::string("both streams saturate and overlap fully; "
                              "only optimising both shortens the loop")
                : std::string("one stream saturates, the other is close "
                              "behind; optimise both"));
  case StreamsClass::Unsaturated:
    return "unsaturated (" + Sats + ", both below " +
           formatv("{0:F2}", T.Full).str() +
           "): the streams interact (dependences), the front end limits, or "
           "shared resources (ROB, registers) are relieved in the variants";
  case StreamsClass::None:
  case StreamsClass::NearThreshold:
    break;
  }
  return "";
}

namespace analyses {

void streams(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    const Variant FP = Variant::FP;
    // A search's LS would be REF itself: Sat(LS) is 1, and FP still says
    // whether its arithmetic could take that long alone.
    auto [SatLS, BootLS] = satOfLS(L, S, S.Boot[FP].size());
    if (!SatLS || !S.Sat[FP] || S.TooShort)
      return;
    bool Paired = !BootLS.empty() && !S.Boot[FP].empty();
    auto Classify = [&](double ShortCall) {
      return classifyReplicates(
          {*SatLS, *S.Sat[FP]}, {BootLS, S.Boot[FP]},
          [&](const double *X) {
            return nameOf(classifyStreams(X[0], X[1], T)).str();
          },
          T.Margin, ShortCall);
    };
    Classified Cl = Classify(S.ShortCall);
    if (confident(Cl, Paired, T)) {
      L.VerdictConfidence = Paired ? Cl.Agreement : 0;
      L.Streams = parseName<StreamsClass>(Cl.Label).value_or(
          StreamsClass::NearThreshold);
      L.Verdict = verdictOf(L.Streams);
      L.Diagnosis.push_back(
          explainStreams(classifyStreams(*SatLS, *S.Sat[FP], T), *SatLS,
                         *S.Sat[FP], T) +
          confidenceText(Cl, Paired) +
          (lsIsRef(L) ? "; Sat(LS) is 1: LS would be REF itself (all "
                        "arithmetic feeds the exit test or an address)"
                      : ""));
    } else {
      L.Verdict = VerdictClass::Inconclusive;
      // Confident but for the short-call term: samples cannot settle it.
      bool TermOnly = S.ShortCall > 0 && confident(Classify(0), Paired, T);
      std::string Settle =
          TermOnly ? formatv("calls this short may read up to {0:F2} high "
                             "(the short-call term), which spans the "
                             "thresholds: more samples would not settle it, "
                             "longer calls would (a larger input)",
                             S.ShortCall)
                         .str()
                   : "more samples would settle it (a longer run, or "
                     "--max-runs N)";
      L.Inconclusive =
          formatv("Sat(LS)={0}, Sat(FP)={1}: {2}; {3}", satLSInterval(L, S),
                  interval(*S.SatI[FP]), describeSplit(Cl), Settle)
              .str();
    }
  });
}

} // namespace analyses
} // namespace decan::tool
