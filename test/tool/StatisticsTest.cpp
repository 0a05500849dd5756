//===- StatisticsTest.cpp - Pairing, weights, intervals, verdicts ---------===//
//
// Part of decan. Synthetic inputs with known answers: trip-count
// distributions, phases, noise levels.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Statistics.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/Pairing.h"
#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace decan::tool;
using llvm::StringRef;

namespace {

Sample sample(double Cyc, double Trips, double Pre, double PreT, double Post,
              double PostT, double Rerun, uint64_t Flags = 0) {
  Sample S;
  S.Cycles = Cyc;
  S.Trips = Trips;
  S.PreCycles = Pre;
  S.PreTrips = PreT;
  S.PostCycles = Post;
  S.PostTrips = PostT;
  S.RerunTrips = Rerun;
  S.Flags = Flags;
  S.Call = 10;
  return S;
}

TEST(Pairing, EqualWorkNeighboursAreAveraged) {
  Pair P;
  EXPECT_EQ(pairSample(sample(50, 100, 98, 100, 102, 100, 100), false, P),
            PairKind::Exact);
  EXPECT_DOUBLE_EQ(P.Ref, 100);
  EXPECT_DOUBLE_EQ(P.Var, 50);
  EXPECT_DOUBLE_EQ(P.Work, 100);
}

TEST(Pairing, OnlyTheNeighbourOfTheSameTripCountCounts) {
  Pair P;
  EXPECT_EQ(pairSample(sample(50, 100, 98, 100, 500, 400, 100), false, P),
            PairKind::Exact);
  EXPECT_DOUBLE_EQ(P.Ref, 98);
}

TEST(Pairing, TriangularNestInterpolatesBetweenBracketingNeighbours) {
  // Call k of a triangular nest runs k iterations at 10 cycles each: the
  // sample's REF (k = 11) lies between its neighbours (10 and 12).
  Pair P;
  EXPECT_EQ(pairSample(sample(55, 11, 100, 10, 120, 12, 11), false, P),
            PairKind::Interpolated);
  EXPECT_DOUBLE_EQ(P.Ref, 110);
}

TEST(Pairing, AVariantThatChangesTheTripCountIsExcluded) {
  Pair P;
  EXPECT_EQ(pairSample(sample(50, 90, 100, 100, 100, 100, 100), false, P),
            PairKind::TripsDiffer);
  // A garbage trip count (the variant deleted the induction variable's
  // update) is unknown, not a changed control flow: the original's counts.
  EXPECT_EQ(pairSample(sample(50, 5.8e12, 100, 100, 100, 100, 100), false, P),
            PairKind::Exact);
  EXPECT_DOUBLE_EQ(P.Work, 100);
  // REF samples have no original run after them: nothing to compare.
  EXPECT_EQ(pairSample(sample(100, 100, 100, 100, 100, 100, 0), true, P),
            PairKind::Exact);
}

TEST(Pairing, NoComparableNeighbourIsExcludedNotGuessed) {
  Pair P;
  EXPECT_EQ(pairSample(sample(50, 100, 300, 300, 400, 400, 100), false, P),
            PairKind::NoEqualWork);
  EXPECT_EQ(pairSample(sample(50, 100, 0, 0, 0, 0, 100,
                              DECAN_SAMPLE_NO_PRE | DECAN_SAMPLE_NO_POST),
                       false, P),
            PairKind::NoEqualWork);
}

TEST(Pairing, ContextSwitchesExcludeTheSampleOrTheirNeighbour) {
  Pair P;
  EXPECT_EQ(pairSample(
                sample(50, 100, 100, 100, 100, 100, 100, DECAN_SAMPLE_SWITCHED),
                false, P),
            PairKind::Switched);
  EXPECT_EQ(pairSample(sample(50, 100, 900, 100, 100, 100, 100,
                              DECAN_SAMPLE_PRE_SWITCHED),
                       false, P),
            PairKind::Exact);
  EXPECT_DOUBLE_EQ(P.Ref, 100) << "the switched neighbour is not used";
  EXPECT_EQ(
      pairSample(sample(50, 100, 900, 100, 900, 100, 100,
                        DECAN_SAMPLE_PRE_SWITCHED | DECAN_SAMPLE_POST_SWITCHED),
                 false, P),
      PairKind::Switched);
}

TEST(Pairing, ADisturbedNeighbourDoesNotInflateREF) {
  Pair P;
  pairSample(sample(50, 100, 100, 100, 400, 100, 100), false, P);
  EXPECT_DOUBLE_EQ(P.Ref, 100) << "an interrupt only adds time";
}

TEST(Weights, SamplesStandForTheCallsAroundThem) {
  // Dense at the start, sparse later: a later sample stands for more calls.
  std::vector<double> W = voronoiWeights({2, 5, 8, 100, 1000}, 2000);
  ASSERT_EQ(W.size(), 5u);
  EXPECT_DOUBLE_EQ(W[0], 2 + 1.5);
  EXPECT_DOUBLE_EQ(W[1], 3);
  EXPECT_DOUBLE_EQ(W[4], 450 + 1000);
  double Sum = 0;
  for (double X : W)
    Sum += X;
  EXPECT_DOUBLE_EQ(Sum, 2000) << "the weights cover the whole run";
  // Order does not matter.
  std::vector<double> W2 = voronoiWeights({1000, 2, 100, 8, 5}, 2000);
  EXPECT_DOUBLE_EQ(W2[0], W[4]);
}

/// A run whose loop moves from L1 (REF 100 cycles, LS 40) to memory (REF
/// 400, LS 390) after 3% of its calls, sampled densely at the start and
/// sparsely afterwards, as the runtime does.
std::vector<Pair> phasedRun(Variant V) {
  std::vector<uint64_t> Calls;
  for (uint64_t C = 2; C < 3000; C += 3)
    Calls.push_back(C);
  for (uint64_t C = 3000; C < 100000; C += 2000)
    Calls.push_back(C);
  std::vector<double> W = voronoiWeights(Calls, 100000);
  std::vector<Pair> Ps;
  for (size_t I = 0; I < Calls.size(); ++I) {
    bool Late = Calls[I] >= 3000;
    Pair P;
    P.Ref = Late ? 400 : 100;
    P.Var = V == Variant::LS ? (Late ? 390 : 40) : (Late ? 120 : 95);
    P.Weight = W[I];
    P.Call = Calls[I];
    P.RunPos = Calls[I] / 100000.0;
    Ps.push_back(P);
  }
  return Ps;
}

TEST(Saturation, WeightedRatioDescribesTheWholeRunNotItsStart) {
  std::vector<Pair> Ps = phasedRun(Variant::LS);
  // Unweighted, the dense early samples would call the loop compute-bound.
  std::vector<Pair> Flat = Ps;
  for (Pair &P : Flat)
    P.Weight = 1;
  EXPECT_LT(ratioOfSums(Flat), 0.8);
  // Weighted: the run is 97% memory-bound calls at 4x the cost.
  EXPECT_GT(ratioOfSums(Ps), 0.9);
}

TEST(Saturation, BootstrapIntervalIsDeterministicAndCoversTheTruth) {
  std::mt19937_64 G(42);
  std::normal_distribution<double> Noise(0, 0.05);
  std::vector<Pair> Ps;
  for (int I = 0; I < 200; ++I) {
    Pair P;
    P.Ref = 1000 * (1 + Noise(G));
    P.Var = 600 * (1 + Noise(G));
    Ps.push_back(P);
  }
  double V = ratioOfSums(Ps);
  auto B1 = bootstrapRatios(Ps, 400, 7), B2 = bootstrapRatios(Ps, 400, 7);
  EXPECT_EQ(B1, B2);
  Interval I = percentileInterval(V, B1, 200);
  EXPECT_LE(I.Lo, 0.6);
  EXPECT_GE(I.Hi, 0.6);
  EXPECT_LT(I.Hi - I.Lo, 0.05);
  EXPECT_EQ(I.N, 200u);
}

/// 400 pairs spread evenly over the run, 5% noise on each side; the
/// variant costs \p Early of REF in the first half of the run and \p Late
/// in the second (a drift: the other hardware thread got busy).
std::vector<Pair> driftingRun(double Early, double Late) {
  std::mt19937_64 G(11);
  std::normal_distribution<double> Noise(0, 0.05);
  std::vector<Pair> Ps;
  for (int I = 0; I < 400; ++I) {
    Pair P;
    P.RunPos = (I + 0.5) / 400;
    P.Ref = 1000 * (1 + Noise(G));
    P.Var = 1000 * (P.RunPos < 0.5 ? Early : Late) * (1 + Noise(G));
    Ps.push_back(P);
  }
  return Ps;
}

double width(const std::vector<Pair> &Ps, const std::vector<double> &Reps) {
  Interval I = percentileInterval(ratioOfSums(Ps), Reps, Ps.size());
  return I.Hi - I.Lo;
}

TEST(Saturation, DriftBetweenTimeBlocksWidensTheInterval) {
  std::vector<Pair> Drift = driftingRun(0.8, 0.95);
  std::vector<Pair> Steady = driftingRun(0.875, 0.875);
  double PairsOnly = width(Drift, bootstrapRatios(Drift, 400, 3));
  double WithDrift = width(Drift, runReplicates(Drift, 400, 3, 5));
  // Each run half is 0.075 from the mean: the run's mean is known to
  // about 0.075 / sqrt(10 blocks), not to the pairs' 0.01.
  EXPECT_LT(PairsOnly, 0.03);
  EXPECT_GT(WithDrift, 2.5 * PairsOnly);
  EXPECT_GT(WithDrift, 0.06);
  // The same noise without the drift: about the pairs' interval.
  double SteadyPairs = width(Steady, bootstrapRatios(Steady, 400, 3));
  double SteadyRun = width(Steady, runReplicates(Steady, 400, 3, 5));
  EXPECT_LT(SteadyRun, 1.5 * SteadyPairs);
  EXPECT_GE(SteadyRun, SteadyPairs);
  // Deterministic, and the point stays inside.
  EXPECT_EQ(runReplicates(Drift, 400, 3, 5), runReplicates(Drift, 400, 3, 5));
  Interval I = percentileInterval(ratioOfSums(Drift),
                                  runReplicates(Drift, 400, 3, 5), 400);
  EXPECT_LT(I.Lo, 0.85);
  EXPECT_GT(I.Hi, 0.90);
}

TEST(Saturation, BlockBootstrapNeedsFourBlocksWithPairs) {
  std::vector<Pair> Ps = driftingRun(0.8, 0.95);
  for (Pair &P : Ps)
    P.RunPos = P.RunPos < 0.5 ? 0.1 : 0.9; // two blocks hold every pair
  EXPECT_TRUE(blockBootstrapRatios(Ps, 100, 1, 10).empty());
  EXPECT_EQ(runReplicates(Ps, 100, 3, 5), bootstrapRatios(Ps, 100, 3));
  EXPECT_EQ(blockBootstrapRatios(driftingRun(0.8, 0.95), 100, 1, 10).size(),
            100u);
}

TEST(Saturation, DisturbedPairsAreTrimmedNotAveraged) {
  std::vector<Pair> Ps;
  for (int I = 0; I < 100; ++I) {
    Pair P;
    P.Ref = 1000;
    P.Var = 500 + (I % 3);
    Ps.push_back(P);
  }
  Ps[7].Var = 50000; // an interrupt in one variant call
  Ps[9].Ref = 90000; // a page fault in one REF neighbour
  std::vector<Pair> T = trimOutliers(Ps);
  EXPECT_EQ(T.size(), 98u);
  EXPECT_NEAR(ratioOfSums(T), 0.501, 0.001);
  EXPECT_GT(std::fabs(ratioOfSums(Ps) - 0.501), 0.02)
      << "untrimmed, single calls swing the sums";
}

/// A loop with paired LS/FP samples whose ratio of sums is exactly the
/// given saturations, each sample off by +-Noise (alternating).
LoopReport pairedLoop(double SatLS, double SatFP, double Noise, int N) {
  LoopReport L;
  L.Id = "p:L0";
  L.RunCalls = 10000;
  L.RunCycles = 1e7;
  for (Variant V : {Variant::REF, Variant::LS, Variant::FP}) {
    VariantStats S;
    double Sat = V == Variant::LS ? SatLS : V == Variant::FP ? SatFP : 1;
    for (int I = 0; I < N; ++I) {
      Pair P;
      P.Ref = 1000;
      P.Var = 1000 * Sat * (1 + (I % 2 ? Noise : -Noise));
      P.Call = 3 * I + 2;
      P.RunPos = (3.0 * I + 2) / 10000;
      S.Pairs.push_back(P);
    }
    S.Calls = N;
    S.Cycles.Median = S.Cycles.Min = 1000 * Sat;
    L.Variants[V] = S;
  }
  return L;
}

TEST(Verdict, ClearMarginIsStatedWithItsConfidence) {
  Report R;
  R.ProbeCycles = 50;
  R.Loops.push_back(pairedLoop(0.95, 0.3, 0.02, 60));
  analyse(R);
  EXPECT_EQ(nameOf(R.Loops[0].Verdict), "memory-bound");
  EXPECT_GE(R.Loops[0].VerdictConfidence, 0.9);
  ASSERT_TRUE(R.Loops[0].SatInterval[Variant::LS]);
  EXPECT_LT(R.Loops[0].SatInterval[Variant::LS]->Lo, 0.95);
  EXPECT_GT(R.Loops[0].SatInterval[Variant::LS]->Hi, 0.95);
}

TEST(Verdict, NoisySamplesAtTheBoundaryAreInconclusive) {
  // Sat(LS) - Sat(FP) right at the 0.2 gap, with large noise.
  Report R;
  R.ProbeCycles = 50;
  R.Loops.push_back(pairedLoop(0.8, 0.6, 0.3, 20));
  analyse(R);
  EXPECT_EQ(nameOf(R.Loops[0].Verdict), "inconclusive");
  EXPECT_NE(R.Loops[0].Inconclusive.find("of resamples"), std::string::npos)
      << R.Loops[0].Inconclusive;
  EXPECT_NE(R.Loops[0].Inconclusive.find("--max-runs"), std::string::npos);
}

/// \p L with variant \p V added: the same pairs as REF's, its side at
/// \p Sat of REF's.
void addVariant(LoopReport &L, Variant V, double Sat) {
  VariantStats S = *L.Variants[Variant::REF];
  for (Pair &P : S.Pairs)
    P.Var = P.Ref * Sat;
  S.Cycles.Median = S.Cycles.Min = S.Cycles.Median * Sat;
  L.Variants[V] = S;
}

/// Calls of \p Probes probe costs (49 cycles) a call, on REF's samples and
/// over the whole run.
LoopReport shortLoop(double SatLS, double SatFP, double Probes) {
  LoopReport L = pairedLoop(SatLS, SatFP, 0.02, 60);
  L.RunCycles = Probes * 49 * L.RunCalls;
  L.Variants[Variant::REF]->Cycles.Median = Probes * 49;
  return L;
}

TEST(Verdict, CallsBelowThePrecisionFloorGetNoVerdict) {
  // One probe cost a call: the probes are most of it.
  Report R;
  R.ProbeCycles = 49;
  LoopReport L = shortLoop(0.95, 0.3, 1);
  addVariant(L, Variant::NO_DIV, 0.64);
  R.Loops.push_back(L);
  analyse(R);
  EXPECT_EQ(nameOf(R.Loops[0].Verdict), "inconclusive");
  EXPECT_NE(R.Loops[0].Inconclusive.find(
                "precision floor (1.5 x the probe's 49 cycles)"),
            std::string::npos)
      << R.Loops[0].Inconclusive;
  for (const std::string &D : R.Loops[0].Diagnosis) {
    EXPECT_EQ(D.find("memory-bound"), std::string::npos) << D;
    EXPECT_EQ(D.find("divisions/square roots cost"), std::string::npos) << D;
  }
}

TEST(Verdict, CallsBelowTheOldFloorKeepTheClaimsOnTheUpperEnd) {
  // bench/truth's s_div16 on the plugin: 98-cycle calls (2 probe costs,
  // below the old floor of 3), Sat(NO_DIV) 0.64 where removing the
  // division from the source gives 0.40, LS 0.33 and FP 1.0 (fp-bound in
  // truth). The term reaches 1: NO_DIV's interval holds 0.40 and its
  // upper end settles that the divisions cost at least 36%; the streams'
  // ranges overlap, so no class.
  Report R;
  R.ProbeCycles = 49;
  LoopReport L = shortLoop(0.33, 1.0, 2);
  addVariant(L, Variant::NO_DIV, 0.64);
  R.Loops.push_back(L);
  analyse(R);
  const LoopReport &A = R.Loops[0];
  ASSERT_TRUE(A.SatInterval[Variant::NO_DIV]);
  EXPECT_LE(A.SatInterval[Variant::NO_DIV]->Lo, 0.40);
  EXPECT_GE(A.SatInterval[Variant::NO_DIV]->Hi, 0.64);
  EXPECT_LT(A.SatInterval[Variant::NO_DIV]->Hi, 0.7);
  EXPECT_EQ(A.Inconclusive.find("precision floor"), std::string::npos)
      << A.Inconclusive;
  EXPECT_NE(nameOf(A.Verdict), "fp-bound") << "LS may be as high as FP";
  EXPECT_TRUE(llvm::any_of(A.Diagnosis, [](const std::string &D) {
    return StringRef(D).contains(
        "divisions/square roots cost at least 36% of the loop");
  }));
  // The old floor refused it.
  Thresholds Old;
  Old.MinCallProbes = 3;
  analyse(R, Old);
  EXPECT_NE(R.Loops[0].Inconclusive.find("precision floor (3.0 x"),
            std::string::npos)
      << R.Loops[0].Inconclusive;
}

TEST(Verdict, ShortCallsKeepTheClaimsThatHoldDownToTheirTerm) {
  // Calls of 600 cycles with 52-cycle probes: each saturation may read up
  // to 3 x 52 / 600 = 0.26 high. A gap of 0.65 survives that; one of 0.35
  // does not, though the same samples in 30,000-cycle calls decide it.
  Report R;
  R.ProbeCycles = 52;
  auto Add = [&](const char *Id, double SatLS, double CallCycles) {
    LoopReport L = pairedLoop(SatLS, 0.3, 0.02, 60);
    L.Id = Id;
    L.RunCycles = CallCycles * L.RunCalls;
    L.Variants[Variant::REF]->Cycles.Median = CallCycles;
    R.Loops.push_back(L);
  };
  Add("wide:L0", 0.95, 600);
  Add("narrow:L0", 0.65, 600);
  Add("long:L0", 0.65, 30000);
  analyse(R);
  auto Get = [&](StringRef Id) -> const LoopReport & {
    return *llvm::find_if(R.Loops,
                          [&](const LoopReport &L) { return L.Id == Id; });
  };
  const LoopReport &Wide = Get("wide:L0");
  EXPECT_EQ(nameOf(Wide.Verdict), "memory-bound");
  EXPECT_GE(Wide.VerdictConfidence, 0.9);
  ASSERT_TRUE(Wide.SatInterval[Variant::LS]);
  EXPECT_LT(Wide.SatInterval[Variant::LS]->Lo, 0.95 - 0.25);
  EXPECT_GT(Wide.SatInterval[Variant::LS]->Hi, 0.95);
  EXPECT_TRUE(llvm::any_of(Wide.Warnings, [](const std::string &W) {
    return StringRef(W).starts_with("short calls (600 cycles)");
  }));
  EXPECT_NE(nameOf(Get("narrow:L0").Verdict), "memory-bound");
  EXPECT_EQ(nameOf(Get("long:L0").Verdict), "memory-bound");
  EXPECT_GE(Get("long:L0").VerdictConfidence, 0.9);
}

TEST(Verdict, TooFewPairsSayWhatWouldSettleIt) {
  Report R;
  R.ProbeCycles = 50;
  R.Loops.push_back(pairedLoop(0.95, 0.3, 0.02, 3));
  analyse(R);
  EXPECT_EQ(nameOf(R.Loops[0].Verdict), "inconclusive");
  EXPECT_NE(R.Loops[0].Inconclusive.find("3 usable pairs (need 5)"),
            std::string::npos)
      << R.Loops[0].Inconclusive;
}

TEST(Phases, AChangeOverTheRunIsReported) {
  Report R;
  R.ProbeCycles = 50;
  LoopReport L = pairedLoop(0.95, 0.3, 0.02, 60);
  // REF's cost per iteration doubles in the second half of the run.
  for (unsigned K = 0; K < 4; ++K) {
    RunPart Q;
    Q.From = K / 4.0;
    Q.To = (K + 1) / 4.0;
    Q.Calls = 2500;
    Q.Iterations = 2500 * 100;
    Q.Cycles = Q.Iterations * (K < 2 ? 10 : 20);
    L.Parts.push_back(Q);
  }
  L.RunTripsKnown = L.RunCalls;
  R.Loops.push_back(L);
  analyse(R);
  bool Said = false;
  for (const std::string &D : R.Loops[0].Diagnosis)
    Said |=
        D.find("phases: REF's cost per iteration changes") != std::string::npos;
  EXPECT_TRUE(Said);
}

TEST(Trips, SamplesThatMissTheRunsTripCountsAreFlagged) {
  Report R;
  R.ProbeCycles = 50;
  LoopReport L = pairedLoop(0.95, 0.3, 0.02, 60);
  for (Variant V : {Variant::REF, Variant::LS, Variant::FP})
    for (Pair &P : L.Variants[V]->Pairs)
      P.Work = 100;
  L.RunMeanTrips = 200; // the run's calls are twice as long on average
  R.Loops.push_back(L);
  analyse(R);
  bool Warned = false;
  for (const std::string &W : R.Loops[0].Warnings)
    Warned |= W.find("may not represent the run") != std::string::npos;
  EXPECT_TRUE(Warned);
}

} // namespace
