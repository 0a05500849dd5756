//===- TuneTest.cpp - decan tune's choice from candidate timings ----------===//

#include "decan/Tool/Tune.h"
#include "decan/Tool/TuneInputs.h"

#include "gtest/gtest.h"

using namespace decan::tool;
using llvm::raw_string_ostream;

namespace {

/// A candidate's loop: \p PerIter cycles per machine iteration in each
/// quarter, \p Step source iterations per iteration, 100 calls of 64.
LoopReport candidateLoop(const std::string &Cand, std::array<double, 4> PerIter,
                         unsigned Step) {
  LoopReport L;
  L.Function = "f.decan.tune." + Cand;
  L.Id = L.Function + ":L0";
  L.Source = "f|f.c:3:5||";
  L.IterationStep = Step;
  L.RunCalls = 100;
  L.RunMeanTrips = 64.0 / Step;
  L.TimeCycles = 0;
  for (int Q = 0; Q < 4; ++Q) {
    RunPart P;
    P.Calls = 25;
    P.Iterations = 25 * 64.0 / Step;
    P.Cycles = P.Iterations * PerIter[Q];
    L.TimeCycles += P.Cycles;
    L.Parts.push_back(P);
  }
  return L;
}

TEST(Tune, ChoosesACandidateFasterInEveryQuarter) {
  Report R;
  R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  // vf4: 4 source iterations per iteration at 4 cycles: 1 per source
  // iteration, 2x in every quarter.
  R.Loops.push_back(candidateLoop("vf4", {4, 4, 4.4, 4}, 4));
  // scalar: one disturbed quarter (2.5 > 1.5 x 1.5), left out.
  R.Loops.push_back(candidateLoop("scalar", {1.5, 1.5, 2.5, 1.5}, 1));
  auto T = tuneResults(R);
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Position, "f.c:3:5");
  EXPECT_EQ(T[0].Function, "f");
  EXPECT_EQ(T[0].Choice, "vf4");
  EXPECT_NEAR(T[0].Predicted, 2.0, 1e-9);
  EXPECT_NEAR(T[0].PredictedLo, 2 / 1.1, 1e-9);
  EXPECT_NEAR(T[0].PredictedHi, 2.0, 1e-9);
  ASSERT_EQ(T[0].Candidates.size(), 3u);
  EXPECT_EQ(T[0].Candidates.front().Name, "vf4");
  for (const TuneCandidate &C : T[0].Candidates)
    if (C.Name == "scalar")
      EXPECT_EQ(C.Quarters.size(), 3u);
}

TEST(Tune, KeepsTheDefaultWhenNoCandidateWinsEveryQuarter) {
  Report R;
  R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  // Slower than the default in one quarter (not disturbed: within 1.5x of
  // its best quarter).
  R.Loops.push_back(candidateLoop("scalar", {1.5, 1.5, 2.2, 1.5}, 1));
  auto T = tuneResults(R);
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Choice, "default");
  EXPECT_NE(T[0].Why.find("not by more than 2% in every undisturbed quarter"),
            std::string::npos);
  // JSON round trip of the choice.
  EXPECT_EQ(*tuneJSON(T).getAsObject()->getString("format"), "decan-tune-1");
}

TEST(Tune, TheDefaultsTwinWidensThePredictionAndIsNeverChosen) {
  Report R;
  R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  // The same code at another address runs 5% faster in one quarter: code
  // layout alone moves this loop by 5%.
  R.Loops.push_back(candidateLoop("default-twin", {2, 2 / 1.05, 2, 2}, 1));
  R.Loops.push_back(candidateLoop("vf4", {4, 4, 4, 4}, 4)); // 2x
  auto T = tuneResults(R);
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Choice, "vf4");
  EXPECT_NEAR(T[0].LayoutSpread, 0.05, 1e-9);
  EXPECT_NEAR(T[0].PredictedLo, 2 * 0.95, 1e-9);
  EXPECT_NEAR(T[0].PredictedHi, 2 * 1.05, 1e-9);

  // A twin faster than every real candidate is still not a choice, and a
  // gain inside the layout spread keeps the default.
  Report S;
  S.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  S.Loops.push_back(candidateLoop("default-twin", {1.8, 1.8, 1.8, 1.8}, 1));
  S.Loops.push_back(candidateLoop("scalar", {1.9, 1.9, 1.9, 1.9}, 1));
  auto U = tuneResults(S);
  ASSERT_EQ(U.size(), 1u);
  EXPECT_EQ(U[0].Choice, "default");
  EXPECT_NE(U[0].Why.find("once code layout is allowed for"), std::string::npos)
      << U[0].Why;
}

/// \p L's sampled REF calls: \p PerQuarter in each quarter at \p PerIter
/// cycles per machine iteration (each pair a sample and its REF neighbour),
/// and one call \p Spike times slower in quarter \p SpikeAt.
void addSamples(LoopReport &L, std::array<double, 4> PerIter,
                unsigned PerQuarter, int SpikeAt = -1, double Spike = 1) {
  VariantStats S;
  double Trips = 64.0 / L.IterationStep;
  for (int Q = 0; Q < 4; ++Q)
    for (unsigned I = 0; I < PerQuarter; ++I) {
      Pair P;
      P.Var = P.Ref = PerIter[Q] * Trips;
      if (Q == SpikeAt && I == 0)
        P.Var *= Spike;
      P.Work = Trips;
      P.RunPos = (Q + (I + 0.5) / PerQuarter) / 4;
      S.Pairs.push_back(P);
    }
  L.Variants[Variant::REF] = S;
}

// A disturbed call (an interrupt, another process) weighs on its quarter's
// sum: the twin then strays 20% and keeps a real 1.25x gain from being
// chosen. Where the quarter holds enough sampled calls, its cost comes from
// them, the disturbed one left out.
TEST(Tune, AQuartersCostComesFromItsUndisturbedSampledCalls) {
  auto Build = [](bool Sampled) {
    Report R;
    R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
    // The twin's second quarter summed a disturbed call: 25% slower.
    R.Loops.push_back(candidateLoop("default-twin", {2, 2.5, 2, 2}, 1));
    R.Loops.push_back(candidateLoop("vf4", {6.4, 6.4, 6.4, 6.4}, 4));
    if (Sampled) {
      addSamples(R.Loops[0], {2, 2, 2, 2}, 12);
      addSamples(R.Loops[1], {2, 2, 2, 2}, 12, /*SpikeAt=*/1, /*Spike=*/40);
      addSamples(R.Loops[2], {6.4, 6.4, 6.4, 6.4}, 12);
    }
    return tuneResults(R);
  };
  auto Sums = Build(false);
  ASSERT_EQ(Sums.size(), 1u);
  EXPECT_EQ(Sums[0].Choice, "default");
  EXPECT_NEAR(Sums[0].LayoutSpread, 0.2, 1e-9);
  auto Samples = Build(true);
  ASSERT_EQ(Samples.size(), 1u);
  EXPECT_NEAR(Samples[0].LayoutSpread, 0, 1e-9);
  EXPECT_EQ(Samples[0].Choice, "vf4");
  EXPECT_NEAR(Samples[0].Predicted, 1.25, 1e-9);
  EXPECT_NEAR(Samples[0].PredictedLo, 1.25, 1e-9);

  // A candidate without enough samples in a quarter: that quarter is
  // costed from the sums for every candidate, not samples against sums
  // (vf4's sums, like the default's, hold what its samples leave out: the
  // first touch's page faults).
  Report M;
  M.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  M.Loops.push_back(candidateLoop("vf4", {8, 8, 8, 8}, 4));
  addSamples(M.Loops[1], {6.4, 6.4, 6.4, 6.4}, 12);
  auto Mixed = tuneResults(M);
  ASSERT_EQ(Mixed.size(), 1u);
  EXPECT_EQ(Mixed[0].Choice, "default");
  for (const TuneCandidate &C : Mixed[0].Candidates)
    EXPECT_NEAR(C.Speedup, 1, 1e-9) << C.Name;

  // Too few samples in a quarter (fewer than 8): its sums are used.
  Report R;
  R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  R.Loops.push_back(candidateLoop("default-twin", {2, 2.5, 2, 2}, 1));
  addSamples(R.Loops[1], {2, 2, 2, 2}, 3);
  auto Few = tuneResults(R);
  ASSERT_EQ(Few.size(), 1u);
  EXPECT_NEAR(Few[0].LayoutSpread, 0.2, 1e-9);
}

TEST(Tune, ASecondLoopsCopiesAndAVectorBodysRemainderCount) {
  // F's second tuned loop: its copies are F.decan.tune.<candidate>.1.
  Report R;
  R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  for (const char *Cand : {"default.1", "vf4.1"}) {
    LoopReport L = candidateLoop(Cand, {2, 2, 2, 2}, 1);
    L.Source = "f|f.c:9:5||";
    R.Loops.push_back(L);
  }
  // The vector body and its remainder: one source loop, summed.
  LoopReport Rem = candidateLoop("vf4.1", {2, 2, 2, 2}, 1);
  Rem.Source = "f|f.c:9:5||";
  Rem.Id = "f.decan.tune.vf4.1:L1";
  R.Loops.push_back(Rem);
  auto T = tuneResults(R);
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[1].Position, "f.c:9:5");
  EXPECT_EQ(T[1].Function, "f");
  ASSERT_EQ(T[1].Candidates.size(), 2u);
  for (const TuneCandidate &C : T[1].Candidates)
    EXPECT_TRUE(C.Name == "default" || C.Name == "vf4") << C.Name;
  EXPECT_TRUE(hasTuneCandidates(R));
}

TEST(Tune, SaysWhetherTheBuildHadCandidates) {
  std::string Without, With;
  {
    raw_string_ostream OS(Without);
    printTune(OS, {}, /*Built=*/false);
  }
  {
    raw_string_ostream OS(With);
    printTune(OS, {}, /*Built=*/true);
  }
  EXPECT_NE(Without.find("build with $(decan flags --tune"), std::string::npos);
  EXPECT_EQ(With.find("build with"), std::string::npos) << With;
  EXPECT_NE(With.find("none of their loops ran"), std::string::npos);
  Report Plain;
  LoopReport L;
  L.Function = "f";
  Plain.Loops.push_back(L);
  EXPECT_FALSE(hasTuneCandidates(Plain));
}

// The program's prediction: the tuned loop at the default's speed and at
// the choice's, in the program's own time (from the largest share).
TEST(Tune, PredictsTheProgram) {
  Report R;
  R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2}, 1));
  R.Loops.push_back(candidateLoop("vf4", {4, 4, 4.4, 4}, 4));
  // default: 6400 source iterations at 2 cycles (12800); vf4: 6400 at 1
  // (1.1 in one quarter: 6560). The program's own time, from default's
  // share: 20000.
  R.Loops[0].ProgramShare = R.Loops[0].TimeCycles / 20000;
  auto T = tuneResults(R);
  ProgramPrediction P = predictProgram(R, T);
  ASSERT_TRUE(P.Known);
  // All 12800 source iterations at the default's 2 cycles: 20000 - (12800 +
  // 6560) + 25600 = 26240; vf4 (2x) saves 12800 of it; at its slowest
  // quarter (2/1.1x), 25600 - 14080.
  EXPECT_NEAR(P.TunedShare, 25600 / 26240.0, 1e-9);
  EXPECT_NEAR(P.Speedup, 26240 / 13440.0, 1e-9);
  EXPECT_NEAR(P.Lo, 26240 / 14720.0, 1e-9);
  EXPECT_NEAR(P.Hi, P.Speedup, 1e-9);
  // Without a share, no prediction.
  R.Loops[0].ProgramShare.reset();
  EXPECT_FALSE(predictProgram(R, T).Known);
}

// A loop kept at the default still varies between identical runs: the
// program's interval holds what its twin strayed (or its own quarters'
// spread, the larger), not [1, 1].
TEST(Tune, AKeptDefaultWidensTheProgramsIntervalByItsRunToRunSpread) {
  Report R;
  R.Loops.push_back(candidateLoop("default", {2, 2, 2, 2.1}, 1));
  R.Loops.push_back(candidateLoop("default-twin", {2, 2 / 1.08, 2, 2.1}, 1));
  // scalar: 1.01x, inside the twin's 8%: the default is kept.
  R.Loops.push_back(candidateLoop("scalar", {1.98, 1.98, 1.98, 2.08}, 1));
  // The tuned loop is half the program (default and twin at the default's
  // speed: the scalar copy's time counts at the default's).
  R.Loops[0].ProgramShare = 0.25;
  auto T = tuneResults(R);
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Choice, "default");
  const TuneCandidate *Def = nullptr;
  for (const TuneCandidate &C : T[0].Candidates)
    if (C.Name == "default")
      Def = &C;
  ASSERT_TRUE(Def);
  EXPECT_NEAR(runToRunSpread(T[0], *Def), 0.08, 1e-9);
  ProgramPrediction P = predictProgram(R, T);
  ASSERT_TRUE(P.Known);
  EXPECT_NEAR(P.Speedup, 1, 1e-9);
  EXPECT_LT(P.Lo, 0.97);
  EXPECT_GT(P.Hi, 1.03);
  // The default's quarters alone (a twin that never strayed): their spread.
  TunedLoop Alone = T[0];
  Alone.LayoutSpread = 0;
  EXPECT_NEAR(runToRunSpread(Alone, *Def), 2.1 / 2 - 1, 1e-9);
}

// Several training inputs: per loop the candidate best in the worst case;
// a note only where the inputs' own choices differ.
TEST(Tune, ChoosesAcrossInputs) {
  auto Loop = [](std::string Pos, std::string Choice,
                 std::vector<std::pair<std::string, double>> Speedups) {
    TunedLoop T;
    T.Position = Pos;
    T.Function = "f";
    T.Choice = Choice;
    for (auto &[Name, S] : Speedups) {
      TuneCandidate C;
      C.Name = Name;
      C.Calls = 10;
      C.Speedup = S;
      C.SpeedupLo = S - 0.05;
      C.SpeedupHi = S + 0.05;
      T.Candidates.push_back(C);
    }
    return T;
  };
  std::vector<TuneInput> In = {
      {"small.json",
       {Loop("a.c:3:5", "vf8", {{"default", 1}, {"vf8", 1.3}, {"vf4", 1.2}}),
        Loop("a.c:9:5", "vf4", {{"default", 1}, {"vf4", 1.5}})}},
      {"large.json",
       {Loop("a.c:3:5", "default",
             {{"default", 1}, {"vf8", 0.9}, {"vf4", 1.1}}),
        Loop("a.c:9:5", "vf4", {{"default", 1}, {"vf4", 1.4}})}}};
  std::vector<std::string> Notes;
  std::vector<TunedLoop> T = chooseAcrossInputs(In, Notes);
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[0].Choice, "vf4");
  EXPECT_NEAR(T[0].Predicted, 1.1, 1e-9);
  EXPECT_NEAR(T[0].PredictedLo, 1.05, 1e-9);
  EXPECT_NEAR(T[0].PredictedHi, 1.25, 1e-9);
  EXPECT_EQ(T[1].Choice, "vf4");
  ASSERT_EQ(Notes.size(), 1u);
  EXPECT_EQ(Notes[0], "a.c:3:5: the choice depends on the input (small.json "
                      "vf8, large.json default); kept vf4 (at worst 1.10x)");
  // No candidate beats the default on every input: the default.
  In[1].second[0] =
      Loop("a.c:3:5", "default", {{"default", 1}, {"vf8", 0.9}, {"vf4", 0.95}});
  Notes.clear();
  EXPECT_EQ(chooseAcrossInputs(In, Notes)[0].Choice, "default");
}

} // namespace
