//===- FeedbackTest.cpp - What a report feeds into the next build ---------===//

#include "decan/Tool/Feedback.h"
#include "decan/Tool/TuneKinds.h"

#include "gtest/gtest.h"

using namespace decan::tool;

namespace {

LoopReport loop(std::string Id, std::string Source, double Share,
                uint64_t Calls = 100) {
  LoopReport L;
  L.Id = Id;
  L.Source = Source;
  L.Share = Share;
  L.TimeCycles = Share * 1000;
  L.RunCalls = Calls;
  return L;
}

TEST(Feedback, HotSpec) {
  auto S = parseHotSpec("r.json:75");
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(S->Report, "r.json");
  EXPECT_EQ(S->Percent, 75);
  S = parseHotSpec("r.json");
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(S->Percent, 90);
  EXPECT_FALSE(bool(parseHotSpec("r.json:0")));
  EXPECT_FALSE(bool(parseHotSpec("r.json:x")));
  // PERCENT reads as decan run --hot reads it: "75" or "75%".
  S = parseHotSpec("r.json:75%");
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(S->Report, "r.json");
  EXPECT_EQ(S->Percent, 75);
  EXPECT_EQ(readHotPercent("75%"), 75.0);
  EXPECT_EQ(readHotPercent("75"), 75.0);
  EXPECT_EQ(readHotPercent("%"), std::nullopt);
}

TEST(Feedback, HotLoopsBySourcePosition) {
  Report R;
  R.Loops.push_back(loop("f:L0", "f|a.c:3:5||", 0.10));
  R.Loops.push_back(loop("g:L1", "g|b.c:9:3||main@b.c:20:1", 0.70));
  R.Loops.push_back(loop("h:L0", "", 0.15));
  R.Loops.back().File = "c.c";
  R.Loops.back().Line = 4;
  R.Loops.push_back(loop("k:L0", "", 0.05));
  HotSelection S = selectHotLoops(R, 80);
  ASSERT_EQ(S.Entries.size(), 2u);
  EXPECT_EQ(S.Entries[0], "b.c:9:3"); // hottest first, position as written
  EXPECT_EQ(S.Entries[1], "c.c:4");   // no source identity: file:line
  EXPECT_NEAR(S.Covered, 0.85, 1e-12);
  // By instance (--hot): the function's loop, checked against its position.
  ASSERT_EQ(S.Instances.size(), 2u);
  EXPECT_EQ(S.Instances[0], "g:L1@b.c:9:3");
  EXPECT_EQ(S.Instances[1], "h:L0@c.c:4");
  EXPECT_EQ(S.ByIdOnly, 0u);
  // Tuning leaves rarely called loops out.
  R.Loops[1].RunCalls = 3;
  S = selectHotLoops(R, 80, 64);
  EXPECT_EQ(S.Entries.front(), "c.c:4");
}

TEST(Feedback, HotInstancesOfOneSourceLoop) {
  // One source loop inlined into three functions; two instances held the
  // time. By position all three would be instrumented; by instance two.
  Report R;
  R.Loops.push_back(loop("f:L2", "add|a.c:7:3||f@a.c:12:27", 0.60));
  R.Loops.push_back(loop("g:L0", "add|a.c:7:3||g@a.c:13:27", 0.38));
  R.Loops.push_back(loop("k:L1", "add|a.c:7:3||k@a.c:14:27", 0.01));
  R.Loops.push_back(loop("m:L0", "", 0.01)); // no position: by id only
  HotSelection S = selectHotLoops(R, 95);
  EXPECT_EQ(S.Entries, std::vector<std::string>{"a.c:7:3"});
  EXPECT_EQ(S.Instances,
            (std::vector<std::string>{"f:L2@a.c:7:3", "g:L0@a.c:7:3"}));
  S = selectHotLoops(R, 100);
  EXPECT_EQ(S.Instances.back(), "m:L0");
  EXPECT_EQ(S.ByIdOnly, 1u);
}

TEST(Feedback, TripCountsPerSourceLoop) {
  Report R;
  // A vector body (step 8, 12 iterations a call) and its remainder (step 1,
  // 3 iterations a call): 99 source iterations per call.
  R.Loops.push_back(loop("v:L0", "v|v.c:9:5||", 0.9));
  R.Loops.back().IterationStep = 8;
  R.Loops.back().RunMeanTrips = 12;
  R.Loops.push_back(loop("v:L1", "v|v.c:9:5||", 0.1));
  R.Loops.back().IterationStep = 1;
  R.Loops.back().RunMeanTrips = 3;
  // Without a source identity: no entry.
  R.Loops.push_back(loop("w:L0", "", 0.1));
  R.Loops.back().RunMeanTrips = 7;
  std::vector<TripCount> T = measuredTripCounts(R);
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Position, "v.c:9:5");
  EXPECT_EQ(T[0].Trips, 99u);
}

// decan flags --tune: the candidate kinds follow decan's diagnosis; the
// vector body and remainder of one source loop ask together.
TEST(Feedback, TuneKindsFromDiagnosis) {
  Report R;
  LoopReport Mem = loop("f:L0", "f|a.c:3:5|", 0.5);
  Mem.Verdict = VerdictClass::MemoryBound;
  LoopReport MemRest = loop("f:L1", "f|a.c:3:5|", 0.1);
  MemRest.DivGain = 0.3;
  LoopReport Fp = loop("g:L0", "g|a.c:9:5|", 0.2);
  Fp.Verdict = VerdictClass::FPBound;
  LoopReport Ctrl = loop("h:L0", "h|a.c:12:5|", 0.1);
  Ctrl.CtrlShare = 0.7;
  Ctrl.Saturation[Variant::DL1] = 0.4;
  LoopReport None = loop("k:L0", "k|a.c:20:5|", 0.1);
  None.CtrlShare = 0.2;
  None.Saturation[Variant::DL1] = 0.95;
  R.Loops = {Mem, MemRest, Fp, Ctrl, None};
  std::vector<TuneKinds> Ks =
      tuneKinds(R, {"a.c:3:5", "a.c:9:5", "a.c:12:5", "a.c:20:5"});
  ASSERT_EQ(Ks.size(), 4u);
  EXPECT_EQ(Ks[0].Kinds, (std::vector<std::string>{"nest", "vector"}));
  EXPECT_EQ(Ks[0].Why, "memory-bound, division-bound (Sat(NO_DIV) saves 30%)");
  EXPECT_EQ(Ks[1].Kinds, (std::vector<std::string>{"vector"}));
  // Every diagnosed loop gets the vector kind, whatever its diagnosis.
  EXPECT_EQ(Ks[2].Kinds,
            (std::vector<std::string>{"nest", "unroll", "vector"}));
  EXPECT_EQ(Ks[2].Why, "data not in L1 (Sat(DL1)=0.40), control-bound "
                       "(Sat(CTRL)=0.70)");
  EXPECT_EQ(Ks[3].Kinds,
            (std::vector<std::string>{"vector", "unroll", "nest"}));
  EXPECT_EQ(Ks[3].Why, "no diagnosis");
  EXPECT_EQ(tuneKindsFlag({Ks[0], Ks[1]}),
            " -mllvm -decan-tune-kinds=a.c:3:5=nest+vector,a.c:9:5=vector");
}

} // namespace
