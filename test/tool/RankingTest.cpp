//===- RankingTest.cpp - Loops ranked by what a fix would save ------------===//
//
// Part of decan. The one order the table, the HTML page and the remarks
// print loops in (rankedLoops): share x the best settled gain, the share
// breaking ties, the share alone where no gain is settled.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"
#include "decan/Tool/Render.h"

#include "gtest/gtest.h"

using namespace decan::tool;

namespace {

/// A loop of \p Time cycles whose variants have the median cycles per call
/// of \p Med (REF first; 0: not measured), 31 stable calls each.
LoopReport loop(std::string Id, double Time,
                std::initializer_list<std::pair<Variant, double>> Med) {
  LoopReport L;
  L.Id = Id;
  L.Function = Id.substr(0, Id.find(':'));
  L.File = "k.c";
  L.Line = 7;
  L.TimeCycles = Time;
  for (auto [V, M] : Med) {
    VariantStats S;
    S.Calls = 31;
    S.Cycles = {M, M, M};
    S.MeanCycles = M;
    L.Variants[V] = S;
  }
  return L;
}

std::vector<std::string> order(const Report &R) {
  std::vector<std::string> Ids;
  for (const LoopReport *L : rankedLoops(R))
    Ids.push_back(L->Id);
  return Ids;
}

TEST(Ranking, TheHotKernelAboveTheInitLoopWhateverTheirDL1Gains) {
  // The run: an init loop of 0.8% that DL1 would make 10x faster,
  // and a 69% kernel whose data are in L1 but whose divisions cost 40%.
  Report R;
  R.Loops.push_back(
      loop("init:L0", 8, {{Variant::REF, 1000}, {Variant::DL1, 100}}));
  R.Loops.push_back(loop(
      "kernel:L0", 690,
      {{Variant::REF, 1000}, {Variant::DL1, 990}, {Variant::NO_DIV, 600}}));
  R.Loops.push_back(loop("other:L0", 302, {{Variant::REF, 1000}}));
  analyse(R);
  const LoopReport *Init = R.findLoop("init:L0"),
                   *Kernel = R.findLoop("kernel:L0");
  // The DL1 order still puts the init loop first...
  EXPECT_GT(*Init->DL1Gain, *Kernel->DL1Gain);
  EXPECT_EQ(Init->RankByGain, 1u);
  // ...what a fix saves does not.
  ASSERT_TRUE(Kernel->PredictedGain);
  EXPECT_NEAR(*Kernel->PredictedGain, 0.4, 1e-12);
  EXPECT_EQ(Kernel->PredictedGainBy, "NO_DIV");
  EXPECT_NEAR(*Init->PredictedGain, 0.9, 1e-12);
  EXPECT_EQ(order(R),
            (std::vector<std::string>{"other:L0", "kernel:L0", "init:L0"}));
  EXPECT_EQ(Kernel->Rank, 2u);
  EXPECT_EQ(Init->Rank, 3u);
}

TEST(Ranking, ALoopWithoutASettledGainRanksByItsShare) {
  // "other" has no fix variant: all of its 30% may be at stake, more than
  // the kernel's 69% x 40%.
  Report R;
  R.Loops.push_back(
      loop("kernel:L0", 690, {{Variant::REF, 1000}, {Variant::NO_DIV, 600}}));
  R.Loops.push_back(loop("other:L0", 310, {{Variant::REF, 1000}}));
  analyse(R);
  EXPECT_FALSE(R.findLoop("other:L0")->PredictedGain);
  EXPECT_NEAR(rankingKey(*R.findLoop("other:L0")), 0.31, 1e-12);
  EXPECT_NEAR(rankingKey(*R.findLoop("kernel:L0")), 0.276, 1e-12);
  EXPECT_EQ(order(R), (std::vector<std::string>{"other:L0", "kernel:L0"}));
}

TEST(Ranking, ALoopKnownToGainNothingRanksLast) {
  // Data in L1 (Sat(DL1) = 1) is a settled "cheap" claim: gain 0.
  Report R;
  R.Loops.push_back(
      loop("hot:L0", 900, {{Variant::REF, 1000}, {Variant::DL1, 1000}}));
  R.Loops.push_back(
      loop("cold:L0", 100, {{Variant::REF, 1000}, {Variant::DL1, 500}}));
  analyse(R);
  ASSERT_TRUE(R.findLoop("hot:L0")->PredictedGain);
  EXPECT_EQ(*R.findLoop("hot:L0")->PredictedGain, 0);
  EXPECT_EQ(order(R), (std::vector<std::string>{"cold:L0", "hot:L0"}));
}

TEST(Ranking, EqualSavingsGoToTheHotterLoop) {
  LoopReport A, B, C;
  A.Id = "a:L0";
  A.Share = 0.2;
  A.PredictedGain = 0.5; // saves 0.1
  B.Id = "b:L0";
  B.Share = 0.4;
  B.PredictedGain = 0.25; // saves 0.1 too
  C.Id = "c:L0";
  C.Share = 0.1; // no settled gain: 0.1 at stake
  Report R;
  R.Loops = {A, C, B};
  EXPECT_EQ(order(R), (std::vector<std::string>{"b:L0", "a:L0", "c:L0"}));
  EXPECT_TRUE(ranksBefore(B, A));
  EXPECT_FALSE(ranksBefore(A, B));
}

TEST(Ranking, RegionsComeAfterTheLoops) {
  LoopReport L, Reg;
  L.Id = "f:L0";
  L.Share = 0.01;
  Reg.Id = "region:f:R0";
  Reg.Share = 0.9;
  Reg.ProgramShare = 0.9;
  Report R;
  R.Loops = {Reg, L};
  ASSERT_TRUE(R.Loops[0].isRegion());
  EXPECT_EQ(order(R), (std::vector<std::string>{"f:L0", "region:f:R0"}));
}

TEST(Ranking, WarningsFoldIntoOneLinePerLoop) {
  std::string Line =
      foldedWarnings({"LS: unstable samples, (median-min)/min = 30%",
                      "FP: unstable samples, (median-min)/min = 25%",
                      "NO_DIV: only 3 measured calls, too few for a median",
                      "calls too short for the precision: see the diagnosis"});
  EXPECT_EQ(Line, "4 warnings: unstable samples (LS, FP); only 3 measured "
                  "calls (NO_DIV); calls too short for the precision "
                  "(--verbose prints them)");
}

} // namespace
