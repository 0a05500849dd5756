//===- AnalysisTest.cpp - The analyses on known saturations ---------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"
#include "decan/Tool/Compare.h"

#include "gtest/gtest.h"

using namespace decan::tool;

namespace {

/// A loop whose variant V has median cycles Med[V] (<0: not measured), 31
/// calls, min = median (stable), 100 trips.
LoopReport makeLoop(std::string Id, std::array<double, NumVariants> Med,
                    double Time = 1000) {
  LoopReport L;
  L.Id = Id;
  L.Function = Id.substr(0, Id.find(':'));
  L.File = "x.c";
  L.Line = 3;
  L.TimeCycles = Time;
  for (unsigned V = 0; V < NumVariants; ++V) {
    if (Med[V] <= 0) // -1, or left out of the list (NO_CALL)
      continue;
    VariantStats S;
    S.Calls = 31;
    S.Cycles = {Med[V], Med[V], Med[V]};
    S.MeanCycles = Med[V];
    S.TripsKnown = 31;
    S.TripsMedian = 100;
    S.TripsMin = S.TripsMax = 100;
    S.CyclesPerIter = {Med[V] / 100, Med[V] / 100, Med[V] / 100};
    L.Variants[Variant(V)] = S;
  }
  return L;
}

bool hasWarning(const LoopReport &L, const std::string &Part) {
  for (const std::string &W : L.Warnings)
    if (W.find(Part) != std::string::npos)
      return true;
  return false;
}

TEST(Streams, Algorithm2Cases) {
  Thresholds T;
  EXPECT_EQ(classifyStreams(0.95, 0.30, T), StreamsClass::MemoryBound);
  EXPECT_EQ(classifyStreams(0.30, 0.95, T), StreamsClass::FPBound);
  EXPECT_EQ(classifyStreams(0.97, 0.95, T), StreamsClass::Balanced);
  EXPECT_EQ(classifyStreams(0.50, 0.45, T), StreamsClass::Unsaturated);
  // One stream saturates, the other is close behind: balanced.
  EXPECT_EQ(classifyStreams(0.95, 0.80, T), StreamsClass::Balanced);
  // Memory dominates without saturating: still memory-bound.
  EXPECT_EQ(classifyStreams(0.60, 0.20, T), StreamsClass::MemoryBound);
}

TEST(Streams, ThresholdsAreBoundaries) {
  Thresholds T;
  T.Gap = 0.25;
  EXPECT_EQ(classifyStreams(0.70, 0.50, T), StreamsClass::Unsaturated);
  EXPECT_EQ(classifyStreams(0.75, 0.50, T), StreamsClass::MemoryBound);
  T.Full = 0.8;
  EXPECT_EQ(classifyStreams(0.85, 0.80, T), StreamsClass::Balanced);
}

TEST(Streams, APointOnAThresholdSupportsNoClass) {
  auto Full = [](const double *X) {
    return std::string(X[0] >= 0.9 ? "saturated" : "not");
  };
  std::vector<std::vector<double>> Reps = {std::vector<double>(400, 0.905)};
  Classified Near = classifyReplicates({0.905}, Reps, Full, 0.02);
  EXPECT_EQ(Near.Label, kNearThreshold);
  EXPECT_EQ(Near.Agreement, 0) << "no claim, however the replicates fall";
  Classified Bare = classifyReplicates({0.905}, Reps, Full);
  EXPECT_EQ(Bare.Label, "saturated") << "without a margin: a claim";
  EXPECT_EQ(Bare.Agreement, 1);
  Reps = {std::vector<double>(400, 0.95)};
  Classified Clear = classifyReplicates({0.95}, Reps, Full, 0.02);
  EXPECT_EQ(Clear.Label, "saturated");
  EXPECT_EQ(Clear.Agreement, 1);
}

TEST(Streams, Explanations) {
  Thresholds T;
  std::string S = explainStreams(StreamsClass::MemoryBound, 0.95, 0.3, T);
  EXPECT_NE(S.find("memory-bound"), std::string::npos);
  EXPECT_NE(S.find("Sat(LS)=0.95"), std::string::npos);
  EXPECT_NE(
      explainStreams(StreamsClass::Unsaturated, 0.5, 0.45, T).find("front end"),
      std::string::npos);
}

TEST(MemoryCpu, PAMDAOverview) {
  Thresholds T;
  EXPECT_EQ(nameOf(classifyMemoryCpu(0.95, 0.30, T)), "memory-bound");
  EXPECT_EQ(nameOf(classifyMemoryCpu(0.30, 0.95, T)), "cpu-bound");
  EXPECT_EQ(nameOf(classifyMemoryCpu(0.50, 0.55, T)), "unsaturated");
  EXPECT_EQ(nameOf(classifyMemoryCpu(0.95, 0.92, T)), "balanced");
  Report R;
  R.Loops.push_back(makeLoop("m:L0", {100, 95, 30, -1, 25, 10}));
  analyse(R);
  EXPECT_EQ(nameOf(R.Loops[0].MemoryCpu), "memory-bound");
}

TEST(DL1, GainAndLocation) {
  Thresholds T;
  // The thesis's example (4.5.4): loops A (30%) and B (50%), DL1 cutting
  // their time by 90% and 30%: A gains 27%, B 15%.
  EXPECT_NEAR(dl1Gain(0.30, 0.10), 0.27, 1e-12);
  EXPECT_NEAR(dl1Gain(0.50, 0.70), 0.15, 1e-12);
  EXPECT_EQ(dl1Gain(0.5, 1.2), 0.0); // a slower DL1 promises nothing
  EXPECT_EQ(dataLocation(0.95, T), "L1");
  EXPECT_EQ(dataLocation(0.60, T), "L2");
  EXPECT_EQ(dataLocation(0.40, T), "L3 or memory");
}

TEST(DL1, ReRanksLoops) {
  // The thesis's example as a report: B is hotter, A gains more.
  Report R;
  R.Loops.push_back(makeLoop("b:L0", {100, 90, 50, -1, 70, 10}, 500));
  R.Loops.push_back(makeLoop("a:L0", {100, 95, 20, -1, 10, 10}, 300));
  R.Loops.push_back(makeLoop("c:L0", {100, 95, 20, -1, 100, 10}, 200));
  analyse(R);
  const LoopReport *A = R.findLoop("a:L0"), *B = R.findLoop("b:L0");
  EXPECT_NEAR(A->Share, 0.3, 1e-12);
  EXPECT_NEAR(*A->DL1Gain, 0.27, 1e-12);
  EXPECT_NEAR(*B->DL1Gain, 0.15, 1e-12);
  EXPECT_EQ(B->RankByShare, 1u);
  EXPECT_EQ(A->RankByShare, 2u);
  EXPECT_EQ(A->RankByGain, 1u);
  EXPECT_EQ(B->RankByGain, 2u);
  auto Order = rankedLoops(R);
  ASSERT_EQ(Order.size(), 3u);
  EXPECT_EQ(Order[0]->Id, "a:L0");
  EXPECT_EQ(Order[2]->Id, "c:L0");
}

TEST(Analyse, SaturationsAndDiagnoses) {
  Report R;
  R.Loops.push_back(makeLoop("d:L0", {200, 20, 190, 50, 200, 10}));
  analyse(R);
  const LoopReport &L = R.Loops[0];
  EXPECT_DOUBLE_EQ(*L.Saturation[Variant::REF], 1.0);
  EXPECT_DOUBLE_EQ(*L.Saturation[Variant::LS], 0.1);
  EXPECT_DOUBLE_EQ(*L.Saturation[Variant::NO_DIV], 0.25);
  EXPECT_EQ(nameOf(L.Streams), "fp-bound");
  EXPECT_DOUBLE_EQ(*L.DivGain, 0.75);
  EXPECT_DOUBLE_EQ(*L.CtrlShare, 0.05);
  bool SawDiv = false;
  for (const std::string &D : L.Diagnosis)
    SawDiv |= D.find("expensive instructions") != std::string::npos;
  EXPECT_TRUE(SawDiv);
  EXPECT_TRUE(L.Warnings.empty()) << L.Warnings.front();
}

TEST(Analyse, LoopStructure) {
  Report R;
  // Vector body and remainder of one source loop (same function and line).
  R.Loops.push_back(makeLoop("v:L0", {100, -1, -1, -1, -1, -1}, 700));
  R.Loops.push_back(makeLoop("v:L1", {100, -1, -1, -1, -1, -1}, 300));
  R.Loops.push_back(makeLoop("w:L0", {100, -1, -1, -1, -1, -1}, 1000));
  R.Loops[2].Line = 9;
  analyse(R);
  ASSERT_EQ(R.Loops[0].Diagnosis.size(), 1u);
  EXPECT_NE(R.Loops[0].Diagnosis[0].find("loop structure: v:L1"),
            std::string::npos);
  EXPECT_NE(R.Loops[0].Diagnosis[0].find("30%"), std::string::npos);
  EXPECT_TRUE(R.Loops[1].Diagnosis.empty());
  EXPECT_TRUE(R.Loops[2].Diagnosis.empty());
  R.Loops[1].TimeCycles = 50; // remainder 5% of the time: fine
  analyse(R);
  EXPECT_TRUE(R.Loops[0].Diagnosis.empty());
}

TEST(Analyse, CtrlOverheadHigh) {
  Report R;
  R.Loops.push_back(makeLoop("c:L0", {100, -1, -1, -1, -1, 60}));
  analyse(R);
  ASSERT_EQ(R.Loops[0].Diagnosis.size(), 1u);
  EXPECT_NE(R.Loops[0].Diagnosis[0].find("unroll"), std::string::npos);
}

TEST(Analyse, MissingVariantsGiveNoClass) {
  Report R;
  R.Loops.push_back(makeLoop("x:L0", {100, 50, -1, -1, -1, -1}));
  analyse(R);
  EXPECT_EQ(nameOf(R.Loops[0].Streams), "");
  EXPECT_FALSE(R.Loops[0].DL1Gain);
  EXPECT_FALSE(R.Loops[0].Saturation[Variant::FP]);
}

TEST(Coherence, SlowerThanRefBeyondNoise) {
  Thresholds T;
  LoopReport L = makeLoop("s:L0", {100, 104, 130, -1, -1, -1});
  checkCoherence(L, 0, T);
  EXPECT_TRUE(hasWarning(L, "FP is slower than REF"));
  EXPECT_FALSE(hasWarning(L, "LS is slower")); // 4% is within noise
  // Unstable REF widens the noise band: 30% is no longer beyond it.
  LoopReport U = makeLoop("s:L0", {100, 104, 130, -1, -1, -1});
  U.Variants[Variant::REF]->Cycles.Min = 75;
  U.Variants[Variant::REF]->Stability =
      stability(U.Variants[Variant::REF]->Cycles);
  checkCoherence(U, 0, T);
  EXPECT_FALSE(hasWarning(U, "FP is slower than REF"));
  EXPECT_TRUE(hasWarning(U, "REF: unstable samples"));
}

TEST(Coherence, RankImbalance) {
  LoopReport L = makeLoop("i:L0", {100, 50, -1, -1, -1, -1});
  for (int R = 0; R < 4; ++R) {
    ThreadRow Row;
    Row.Rank = R;
    Row.Calls = 31;
    Row.Cycles = {90, R == 3 ? 200.0 : 100.0, 210};
    L.Variants[Variant::REF]->Rows.push_back(Row);
  }
  checkCoherence(L, 0, Thresholds());
  EXPECT_TRUE(hasWarning(L, "REF: imbalance between ranks/threads: median "
                            "cycles per call range from 100 to 200 over 4"));
  L.Warnings.clear();
  L.Variants[Variant::REF]->Rows[3].Cycles.Median = 110;
  checkCoherence(L, 0, Thresholds());
  EXPECT_FALSE(hasWarning(L, "imbalance"));
}

TEST(Coherence, TripCountsDifferOnTheSameInputAreExcludedAndSaid) {
  LoopReport L = makeLoop("t:L0", {100, 50, 50, -1, -1, -1});
  L.Variants[Variant::LS]
      ->PairKinds[static_cast<unsigned>(PairKind::TripsDiffer)] = 4;
  checkCoherence(L, 0, Thresholds());
  EXPECT_TRUE(hasWarning(L, "LS: 4 sample(s) excluded: the variant's trip "
                            "count differs from the original run"));
  EXPECT_FALSE(hasWarning(L, "FP: 4"));
}

TEST(Coherence, TooFewCallsAndPrecision) {
  LoopReport L = makeLoop("p:L0", {100, 50, -1, -1, -1, -1});
  L.Variants[Variant::LS]->Calls = 3;
  L.Variants[Variant::REF]->Calls = 20;
  checkCoherence(L, /*ProbeCycles=*/20, Thresholds());
  EXPECT_TRUE(hasWarning(L, "LS: only 3 measured calls"));
  EXPECT_TRUE(hasWarning(L, "too short for the precision"));
  LoopReport Long = makeLoop("p:L0", {10000, 5000, -1, -1, -1, -1});
  checkCoherence(Long, 20, Thresholds());
  EXPECT_TRUE(Long.Warnings.empty());
}

TEST(Analyse, ShortCallsGiveAnApproximateProgramShare) {
  // Calls of 150 cycles with 30-cycle probes: below the precision floor,
  // so the share measured from timing them alone is said to be approximate.
  Report R;
  R.ProbeCycles = R.ProbeCallCycles = 30;
  R.Loops.push_back(makeLoop("s:L0", {150, 100, 100, -1, -1, -1}));
  R.Loops[0].RunCalls = 1000;
  R.Loops[0].RunCycles = 150000;
  R.Loops[0].ProgramShare = 0.4;
  // Calls of 3000 cycles: above it, the share stands as measured.
  R.Loops.push_back(makeLoop("l:L0", {3000, 2000, 2000, -1, -1, -1}));
  R.Loops[1].RunCalls = 1000;
  R.Loops[1].RunCycles = 3000000;
  R.Loops[1].ProgramShare = 0.5;
  analyse(R);
  const LoopReport &Short = R.Loops[0].Id == "s:L0" ? R.Loops[0] : R.Loops[1];
  const LoopReport &Long = R.Loops[0].Id == "s:L0" ? R.Loops[1] : R.Loops[0];
  EXPECT_TRUE(Short.ProgramShareApproximate);
  EXPECT_TRUE(hasWarning(Short, "is approximate: calls of 150 cycles"));
  EXPECT_FALSE(Long.ProgramShareApproximate);
  EXPECT_FALSE(hasWarning(Long, "is approximate"));
}

TEST(Analyse, ChasedLoadsAreLatencyBound) {
  // One call of 1000 iterations at 400 cycles each; FP and LS empty
  // because every load feeds an address or the exit test.
  Report R;
  R.ProbeCycles = R.ProbeCallCycles = 30;
  LoopReport L = makeLoop("walk:L0", {400000, -1, -1, -1, -1, -1}, 400000);
  L.RunCalls = 1;
  L.RunMeanTrips = 1000;
  L.ChasedLoads = 1;
  L.Unavailable = {{"LS", "empty"}, {"FP", "empty"}, {"DL1", "empty"}};
  L.UnavailableWhy = {
      {"FP", "every memory access feeds the exit test or an address"}};
  R.Loops.push_back(L);
  // The same shape without a chain: a search.
  LoopReport S = L;
  S.Id = "find:L0";
  S.ChasedLoads = 0;
  S.TimeCycles = 2000;
  R.Loops.push_back(S);
  analyse(R);
  const LoopReport &Walk = R.Loops[0].Id == "walk:L0" ? R.Loops[0] : R.Loops[1];
  const LoopReport &Find = R.Loops[0].Id == "walk:L0" ? R.Loops[1] : R.Loops[0];
  EXPECT_EQ(nameOf(Walk.Verdict), "latency-bound");
  auto Has = [](const LoopReport &X, const char *Part) {
    return llvm::any_of(X.Diagnosis, [&](const std::string &D) {
      return D.find(Part) != std::string::npos;
    });
  };
  EXPECT_TRUE(Has(Walk, "about 400 per chased load: the latency of memory"));
  EXPECT_TRUE(Has(Walk, "FP not built: every memory access feeds the exit"));
  EXPECT_NE(nameOf(Find.Verdict), "latency-bound");
  EXPECT_TRUE(Has(Find, "the loop's work is its exit test"));
}

TEST(Coherence, ExcludedCallsAreFlagged) {
  LoopReport L = makeLoop("e:L0", {100, 50, -1, -1, -1, -1});
  L.Variants[Variant::LS]->Excluded = 10;
  checkCoherence(L, 0, Thresholds());
  EXPECT_TRUE(hasWarning(L, "LS: 10 of 41 calls excluded"));
  EXPECT_TRUE(hasWarning(L, "the machine is busy"));
}

TEST(Coherence, CrashIsFlagged) {
  Report R;
  R.Loops.push_back(makeLoop("k:L0", {100, 50, -1, -1, -1, -1}));
  ProcessInfo P;
  P.Pid = 42;
  P.Rank = 2;
  P.CrashSignal = "SIGSEGV";
  P.CrashLoop = "k:L0";
  P.CrashVariant = "LS";
  R.Processes.push_back(P);
  analyse(R);
  EXPECT_TRUE(hasWarning(R.Loops[0], "variant LS crashed (SIGSEGV) in rank 2"));
}

TEST(Compare, PredictedGainShowsUp) {
  Report A, B;
  A.Loops.push_back(makeLoop("m:L0", {1000, 950, 300, -1, 400, 10}));
  A.Loops.push_back(makeLoop("n:L0", {1000, 950, 300, -1, 400, 10}));
  A.Loops.push_back(makeLoop("o:L0", {1000, 950, 300, -1, 900, 10}));
  B.Loops.push_back(makeLoop("m:L0", {500, -1, -1, -1, -1, -1}));
  B.Loops.push_back(makeLoop("n:L0", {1010, -1, -1, -1, -1, -1}));
  B.Loops.push_back(makeLoop("p:L0", {10, -1, -1, -1, -1, -1}));
  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  ASSERT_EQ(C.size(), 4u); // p:L0 is in B only
  const LoopComparison *M = nullptr, *N = nullptr, *O = nullptr, *P = nullptr;
  for (const LoopComparison &X : C)
    (X.Id == "m:L0" ? M : X.Id == "n:L0" ? N : X.Id == "o:L0" ? O : P) = &X;
  ASSERT_TRUE(M && N && O && P);
  EXPECT_EQ(nameOf(M->MatchedBy), "id"); // no source identity on either side
  EXPECT_EQ(nameOf(P->Verdict), "only in B");
  EXPECT_DOUBLE_EQ(*M->Speedup, 2.0);
  EXPECT_DOUBLE_EQ(*M->Predicted, 2.5); // 1 / Sat(DL1) = 1 / 0.4
  EXPECT_EQ(M->PredictedBy, "DL1");
  EXPECT_NEAR(*M->Realized, 1.0 / 1.5, 1e-12);
  EXPECT_EQ(nameOf(M->Verdict), "gain showed up");
  EXPECT_EQ(nameOf(N->Verdict), "no gain");
  EXPECT_EQ(nameOf(O->Verdict), "only in A");
}

TEST(Compare, MatchesBySourceIdentityNotId) {
  // B gained a loop in front of k's loop: ids shifted (k:L0 -> k:L1). The
  // source identity pairs the loops; the new loop is "only in B".
  Report A, B;
  A.Loops.push_back(makeLoop("k:L0", {1000, -1, -1, -1, -1, -1}));
  A.Loops[0].Source = "k|k.c:5:3||";
  B.Loops.push_back(makeLoop("k:L0", {30000, -1, -1, -1, -1, -1}));
  B.Loops[0].Source = "k|k.c:2:3||";
  B.Loops.push_back(makeLoop("k:L1", {1000, -1, -1, -1, -1, -1}));
  B.Loops[1].Source = "k|k.c:5:3||";
  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  ASSERT_EQ(C.size(), 2u);
  EXPECT_EQ(C[0].Id, "k:L0");
  EXPECT_EQ(C[0].IdB, "k:L1");
  EXPECT_EQ(nameOf(C[0].MatchedBy), "source");
  EXPECT_EQ(C[0].Where, "k.c:5:3 in k");
  EXPECT_NEAR(*C[0].Speedup, 1.0, 1e-12);
  EXPECT_EQ(nameOf(C[0].Verdict), "no gain");
  EXPECT_EQ(C[1].Id, "k:L0");
  EXPECT_EQ(nameOf(C[1].Verdict), "only in B");
}

TEST(Compare, PerSourceIterationAcrossVectorFactors) {
  // A: scalar, 100 iterations of 10 cycles per call. B: vectorised by 8
  // (step 8), 12 iterations of 40 cycles plus a remainder loop of the
  // same source line: the vector body is compared per source iteration
  // (10 vs 5 cycles), the remainder is a second copy of the same loop.
  Report A, B;
  A.Loops.push_back(makeLoop("v:L0", {1000, -1, -1, -1, -1, -1}));
  A.Loops[0].Source = "v|v.c:9:5||";
  A.Loops[0].IterationStep = 1;
  B.Loops.push_back(makeLoop("v:L0", {480, -1, -1, -1, -1, -1}, 900));
  B.Loops[0].Variants[Variant::REF]->TripsMedian = 12;
  B.Loops[0].Variants[Variant::REF]->CyclesPerIter = {40, 40, 40};
  B.Loops[0].Source = "v|v.c:9:5||";
  B.Loops[0].IterationStep = 8;
  B.Loops.push_back(makeLoop("v:L1", {40, -1, -1, -1, -1, -1}, 100));
  B.Loops[1].Source = "v|v.c:9:5||";
  B.Loops[1].IterationStep = 1;
  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  ASSERT_EQ(C.size(), 2u);
  EXPECT_EQ(C[0].IdB, "v:L0");
  EXPECT_EQ(nameOf(C[0].SpeedupBasis), "per source iteration");
  EXPECT_NEAR(*C[0].PerSourceIterB, 5.0, 1e-12);
  EXPECT_NEAR(*C[0].Speedup, 2.0, 1e-12);
  EXPECT_EQ(nameOf(C[1].Verdict), "only in B");
  ASSERT_FALSE(C[1].Notes.empty());
  EXPECT_NE(C[1].Notes[0].find("from this source line"), std::string::npos);
}

TEST(Compare, InlinedElsewhereMatchesByLocation) {
  Report A, B;
  A.Loops.push_back(makeLoop("f:L0", {1000, -1, -1, -1, -1, -1}));
  A.Loops[0].Source = "f|f.c:3:5||";
  B.Loops.push_back(makeLoop("main:L0", {500, -1, -1, -1, -1, -1}));
  B.Loops[0].Source = "f|f.c:3:5||main@f.c:20:3";
  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(nameOf(C[0].MatchedBy), "source location");
  EXPECT_NEAR(*C[0].Speedup, 2.0, 1e-12);
  ASSERT_FALSE(C[0].Notes.empty());
  EXPECT_NE(C[0].Notes.back().find("inlined through main@f.c:20:3"),
            std::string::npos);
}

TEST(Compare, NoRealizedShareOfAPredictionWithinNoise) {
  // A predicts 1.01x (Sat(DL1) = 0.99): B's 1.5x is a gain none predicted,
  // not "realized 5000%" (nor -37173% for a slowdown).
  Report A, B;
  A.Loops.push_back(makeLoop("q:L0", {1000, 995, 300, -1, 990, 10}));
  B.Loops.push_back(makeLoop("q:L0", {666.67, -1, -1, -1, -1, -1}));
  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  ASSERT_EQ(C.size(), 1u);
  EXPECT_FALSE(C[0].Realized.has_value());
  EXPECT_EQ(nameOf(C[0].Verdict), "gain, none predicted");
}

} // namespace

TEST(Analyse, CallsAgainstNoCall) {
  // REF 100 cycles with its calls, 60 without (NO_CALL); LS and CTRL
  // deleted the calls, FP kept them (a libm call is arithmetic).
  Report R;
  R.Loops.push_back(makeLoop("c:L0", {100, 30, 90, -1, -1, -1, 60}));
  R.Loops[0].CallsDeleted = {"LS", "NO_CALL"};
  analyse(R);
  const LoopReport &L = R.Loops[0];
  // The raw saturations stay as measured (the table shows them).
  EXPECT_DOUBLE_EQ(*L.Saturation[Variant::LS], 0.3);
  EXPECT_DOUBLE_EQ(*L.Saturation[Variant::NO_CALL], 0.6);
  auto Has = [&](const std::string &S) {
    return std::any_of(
        L.Diagnosis.begin(), L.Diagnosis.end(),
        [&](const std::string &D) { return D.find(S) != std::string::npos; });
  };
  EXPECT_TRUE(Has("calls cost 40% of this loop (Sat(NO_CALL)=0.60)"));
  // LS against NO_CALL: 30 / 60 = 0.5, not 0.3.
  EXPECT_TRUE(Has("calls deleted in LS: Sat=0.50 against NO_CALL"));
  // So the streams analysis compares 0.50 with FP's 0.90: fp-bound.
  EXPECT_EQ(nameOf(L.Streams), "fp-bound");
  EXPECT_TRUE(Has("Sat(LS)=0.50, Sat(FP)=0.90"));

  // Without a NO_CALL measurement, LS has no stream analysis.
  Report R2;
  R2.Loops.push_back(makeLoop("c:L0", {100, 30, 90, -1, -1, -1, -1}));
  R2.Loops[0].CallsDeleted = {"LS"};
  analyse(R2);
  EXPECT_EQ(nameOf(R2.Loops[0].Streams), "");
}

namespace {
bool hasDiagnosis(const LoopReport &L, const std::string &Part) {
  return std::any_of(
      L.Diagnosis.begin(), L.Diagnosis.end(),
      [&](const std::string &D) { return D.find(Part) != std::string::npos; });
}
std::array<double, NumVariants>
meds(std::initializer_list<std::pair<Variant, double>> L) {
  std::array<double, NumVariants> M{};
  for (auto [V, C] : L)
    M[static_cast<unsigned>(V)] = C;
  return M;
}
} // namespace

TEST(Analyse, StoresCostAndCoherence) {
  Report R;
  R.Loops.push_back(makeLoop("s:L0", meds({{Variant::REF, 100},
                                           {Variant::S2L, 70},
                                           {Variant::NO_STORE, 60}})));
  R.Loops.push_back(makeLoop("t:L0", meds({{Variant::REF, 100},
                                           {Variant::S2L, 99},
                                           {Variant::NO_STORE, 85}})));
  analyse(R);
  EXPECT_TRUE(hasDiagnosis(R.Loops[0],
                           "stores cost 40% of this loop (Sat(NO_STORE)=0.60"));
  EXPECT_TRUE(hasDiagnosis(R.Loops[0], "store writes cost 30% of this loop"));
  EXPECT_TRUE(hasDiagnosis(R.Loops[1],
                           "stores cost 15% of this loop (Sat(NO_STORE)=0.85"));
  EXPECT_TRUE(hasDiagnosis(R.Loops[1], "coherence none (Sat(S2L)=0.99"));
}

TEST(Analyse, ReductionAgainstS2LWhenTheLoopStores) {
  // NO_RED turned the stores into loads too: 40 / 80 against S2L.
  Report R;
  R.Loops.push_back(makeLoop(
      "r:L0",
      meds({{Variant::REF, 100}, {Variant::S2L, 80}, {Variant::NO_RED, 40}})));
  // No store: S2L is empty, REF is the reference.
  R.Loops.push_back(
      makeLoop("d:L0", meds({{Variant::REF, 100}, {Variant::NO_RED, 60}})));
  R.Loops[1].Unavailable["S2L"] = "empty";
  // A reduction that costs nothing.
  R.Loops.push_back(
      makeLoop("e:L0", meds({{Variant::REF, 100}, {Variant::NO_RED, 98}})));
  R.Loops[2].Unavailable["S2L"] = "empty";
  analyse(R);
  EXPECT_TRUE(hasDiagnosis(
      R.Loops[0],
      "the reduction chain costs 50% of this loop (Sat(NO_RED)=0.50 "
      "against S2L"));
  EXPECT_TRUE(hasDiagnosis(R.Loops[1],
                           "the reduction chain costs 40% of this loop "
                           "(Sat(NO_RED)=0.60)"));
  EXPECT_TRUE(hasDiagnosis(R.Loops[2], "the reduction chain costs little"));
  EXPECT_FALSE(hasDiagnosis(R.Loops[2], "S2L was not measured"));
}

TEST(Analyse, PrefetchProbesLoadPorts) {
  Report R;
  R.Loops.push_back(
      makeLoop("p:L0", meds({{Variant::REF, 100}, {Variant::PREFETCH, 130}})));
  R.Loops.push_back(
      makeLoop("q:L0", meds({{Variant::REF, 100}, {Variant::PREFETCH, 102}})));
  for (LoopReport &L : R.Loops)
    L.Unavailable["S2L"] = "empty";
  analyse(R);
  EXPECT_TRUE(hasDiagnosis(R.Loops[0], "load ports near saturation: one more "
                                       "L1 access per memory access slows "
                                       "the loop by 30%"));
  EXPECT_TRUE(hasDiagnosis(R.Loops[1], "load ports have headroom"));
  // Slower than REF is PREFETCH's result, not a measurement problem.
  EXPECT_FALSE(hasWarning(R.Loops[0], "slower than REF"));
}

TEST(Analyse, ThreadSpreadAndS2LPerThread) {
  Report R;
  R.Loops.push_back(
      makeLoop("o:L0", meds({{Variant::REF, 100}, {Variant::S2L, 60}})));
  LoopReport &L = R.Loops[0];
  for (unsigned T = 0; T < 4; ++T) {
    ThreadTotal TT;
    TT.Pid = 7;
    TT.Tid = 100 + T;
    TT.Calls = 10;
    TT.Cycles = T == 3 ? 2000 : 1000; // one thread does twice the work
    L.ThreadTotals.push_back(TT);
    ThreadRow Ref, S;
    Ref.Pid = S.Pid = 7;
    Ref.Tid = S.Tid = 100 + T;
    Ref.Calls = S.Calls = 5;
    Ref.Cycles = {100, 100, 100};
    S.Cycles = {50.0 + 10 * T, 50.0 + 10 * T, 50.0 + 10 * T};
    L.Variants[Variant::REF]->Rows.push_back(Ref);
    L.Variants[Variant::S2L]->Rows.push_back(S);
  }
  analyse(R);
  ASSERT_TRUE(L.ThreadSpread);
  // Mean 1250, std sqrt((3 * 250^2 + 750^2) / 4) = 433: 35%.
  EXPECT_NEAR(*L.ThreadSpread, 0.3464, 1e-3);
  EXPECT_NEAR(*L.ThreadMaxOverMean, 1.6, 1e-9);
  EXPECT_TRUE(hasDiagnosis(L, "4 threads ran this loop"));
  EXPECT_TRUE(hasDiagnosis(L, ": imbalanced"));
  EXPECT_TRUE(hasDiagnosis(L, "S2L per thread: Sat(S2L) from 0.50 to 0.80 "
                              "over 4 threads: every thread pays"));
  ASSERT_TRUE(L.ThreadTotals[1].SatS2L);
  EXPECT_DOUBLE_EQ(*L.ThreadTotals[1].SatS2L, 0.6);
  // The per-thread totals survive the analysed JSON (decan report re-reads
  // it and analyses again).
  auto Back = reportFromJSON(toJSON(R));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  ASSERT_EQ(Back->Loops[0].ThreadTotals.size(), 4u);
  EXPECT_EQ(Back->Loops[0].ThreadTotals[3].Cycles, 2000);
  EXPECT_EQ(Back->Loops[0].ThreadTotals[3].Tid, 103u);
}

TEST(Analyse, ThreadAdviceNamesWhatTheProgramUses) {
  // One thread of four does twice the work: the advice is OpenMP's only
  // where the run loaded an OpenMP runtime or the loop is an outlined
  // region; a pthread program gets it in its own terms.
  auto Advice = [](std::vector<std::string> Objects, std::string Fn) {
    Report R;
    R.Loops.push_back(makeLoop(Fn + ":L0", {100, -1, -1, -1, -1, -1}));
    for (unsigned T = 0; T < 4; ++T) {
      ThreadTotal TT;
      TT.Pid = 7;
      TT.Tid = 100 + T;
      TT.Calls = 10;
      TT.Cycles = T == 3 ? 2000 : 1000;
      R.Loops[0].ThreadTotals.push_back(TT);
      ThreadRow Ref; // REF ran in this process
      Ref.Pid = 7;
      Ref.Tid = 100 + T;
      Ref.Calls = 5;
      Ref.Cycles = {100, 100, 100};
      R.Loops[0].Variants[Variant::REF]->Rows.push_back(Ref);
    }
    R.Objects = Objects;
    R.ParallelRuntime = parallelRuntimeOf(Objects);
    analyse(R);
    for (const std::string &D : R.Loops[0].Diagnosis)
      if (D.find("threads ran this loop") != std::string::npos)
        return D;
    return std::string();
  };
  std::string Pthreads = Advice({"/lib/libc.so.6", "/lib/libstdc++.so.6"}, "w");
  EXPECT_EQ(Pthreads.find("OpenMP"), std::string::npos) << Pthreads;
  EXPECT_EQ(Pthreads.find("schedule(dynamic)"), std::string::npos);
  EXPECT_NE(Pthreads.find("shared queue"), std::string::npos) << Pthreads;
  std::string Omp = Advice({"/lib/libc.so.6", "/usr/lib/libgomp.so.1"}, "w");
  EXPECT_NE(Omp.find("threads (OpenMP, thesis 5.9)"), std::string::npos);
  EXPECT_NE(Omp.find("schedule(dynamic)"), std::string::npos) << Omp;
  std::string Outlined = Advice({}, "main.omp_outlined");
  EXPECT_NE(Outlined.find("schedule(dynamic)"), std::string::npos);
  // An older report (no objects): no runtime named.
  std::string Unknown = Advice({}, "w");
  EXPECT_EQ(Unknown.find("OpenMP"), std::string::npos) << Unknown;
  EXPECT_EQ(Unknown.find("schedule(dynamic)"), std::string::npos);
  EXPECT_NE(Unknown.find(": imbalanced"), std::string::npos);
}

TEST(Analyse, GroupsRankedByCost) {
  // Group 0 streams (removing it or serving it from L1 saves 60%), group 1
  // is L1-resident (nothing to gain).
  Report R;
  R.Loops.push_back(makeLoop("g:L0", meds({{Variant::REF, 100},
                                           {Variant::LS, 90},
                                           {Variant::DL1_G0, 42},
                                           {Variant::DL1_G1, 99},
                                           {Variant::NO_G0, 40},
                                           {Variant::NO_G1, 98}})));
  LoopReport &L = R.Loops[0];
  L.Groups = {{"(%rdi,%rax,8)", 2, {}, {}, {}},
              {"(%rsi,%rax,8)", 2, {}, {}, {}}};
  L.NumGroups = 2;
  analyse(R);
  ASSERT_TRUE(L.Groups[0].SatRemoved && L.Groups[1].SatRemoved);
  EXPECT_DOUBLE_EQ(*L.Groups[0].SatRemoved, 0.4);
  EXPECT_DOUBLE_EQ(*L.Groups[0].SatDL1, 0.42);
  EXPECT_NEAR(*L.Groups[0].SatRemovedVsLS, 0.4 / 0.9, 1e-12);
  EXPECT_TRUE(hasDiagnosis(
      L, "memory groups (thesis 4.4.3.3), costliest first: array "
         "`(%rdi,%rax,8)` (2 accesses) costs 60% of this loop (removed: "
         "Sat(NO_G0)=0.40; in L1: Sat(DL1_G0)=0.42); array `(%rsi,%rax,8)` "
         "(2 accesses) costs 2% of this loop"));
  // The analysed JSON carries loops[].groups[] with both saturations.
  auto Back = reportFromJSON(toJSON(R));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  analyse(*Back);
  ASSERT_EQ(Back->Loops[0].Groups.size(), 2u);
  EXPECT_EQ(Back->Loops[0].Groups[1].Name, "(%rsi,%rax,8)");
  EXPECT_DOUBLE_EQ(*Back->Loops[0].Groups[1].SatRemoved, 0.98);
  llvm::json::Value J = toJSON(R);
  const llvm::json::Object *G0 = J.getAsObject()
                                     ->getArray("loops")
                                     ->front()
                                     .getAsObject()
                                     ->getArray("groups")
                                     ->front()
                                     .getAsObject();
  EXPECT_EQ(G0->getString("name"), "(%rdi,%rax,8)");
  EXPECT_EQ(G0->getInteger("accesses"), 2);
  EXPECT_EQ(G0->getObject("saturation")->getNumber("removed"), 0.4);
  EXPECT_EQ(G0->getObject("saturation")->getNumber("dl1"), 0.42);
}
