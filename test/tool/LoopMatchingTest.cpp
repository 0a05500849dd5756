//===- LoopMatchingTest.cpp - Loops of two reports paired -----------------===//
//
// Part of decan. matchLoops (LoopMatching.h) on loops an edit moved: fuzzy
// pairs for moved loops, no swaps within a function, removed loops unpaired;
// and `decan compare` through it (Compare.h).
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LoopMatching.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/Compare.h"
#include "decan/Tool/Tune.h"

#include "gtest/gtest.h"

using namespace decan;
using namespace decan::tool;

namespace {

/// A measured loop at \p Source accessing \p Arrays: REF \p Cycles per call
/// of 1000 iterations (31 calls), and NO_DIV at \p NoDiv where it has a
/// division (<= 0: none).
LoopReport loopAt(std::string Id, std::string Source,
                  std::vector<std::string> Arrays, double Cycles,
                  double NoDiv = -1) {
  LoopReport L;
  L.Id = Id;
  L.Function = Id.substr(0, Id.find(':'));
  L.Source = Source;
  L.IterationStep = 1;
  L.TimeCycles = Cycles * 31;
  for (const std::string &A : Arrays)
    L.Groups.push_back({A, 1});
  auto Stats = [](double C) {
    VariantStats S;
    S.Calls = 31;
    S.Cycles = {C, C, C};
    S.MeanCycles = C;
    S.TripsKnown = 31;
    S.TripsMedian = S.TripsMin = S.TripsMax = 1000;
    S.CyclesPerIter = {C / 1000, C / 1000, C / 1000};
    return S;
  };
  L.Variants[Variant::REF] = Stats(Cycles);
  if (NoDiv > 0)
    L.Variants[Variant::NO_DIV] = Stats(NoDiv);
  return L;
}

std::vector<const LoopReport *> pointers(const Report &R) {
  std::vector<const LoopReport *> Out;
  for (const LoopReport &L : R.Loops)
    Out.push_back(&L);
  return Out;
}

const LoopMatch *pairOf(const std::vector<LoopMatch> &Ms, llvm::StringRef IdA) {
  for (const LoopMatch &M : Ms)
    if (M.A->Id == IdA)
      return &M;
  return nullptr;
}

TEST(LoopMatching, MovedLoopWithoutItsDivisionIsItsOldSelf) {
  // The reciprocal hoisted above the loop: two lines more, no division.
  Report A, B;
  A.Loops.push_back(
      loopAt("k:L0", "k|k.c:16:3||", {"A", "B", "C"}, 4000, 2000));
  B.Loops.push_back(loopAt("k:L0", "k|k.c:18:3||", {"A", "B", "C"}, 2100));
  auto Ms = matchLoops(pointers(A), pointers(B));
  ASSERT_EQ(Ms.size(), 1u);
  EXPECT_EQ(nameOf(Ms[0].By), "fuzzy");
  EXPECT_GE(Ms[0].Score, kFuzzyMatchThreshold);
  EXPECT_NE(Ms[0].Why.find("function, nest position"), std::string::npos)
      << Ms[0].Why;
  EXPECT_NE(Ms[0].Why.find("line 16 -> 18"), std::string::npos) << Ms[0].Why;

  // compare: matched, said fuzzy, and the NO_DIV prediction realized.
  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(nameOf(C[0].MatchedBy), "fuzzy");
  EXPECT_NE(C[0].MatchedHow.find("line 16 -> 18"), std::string::npos);
  EXPECT_EQ(C[0].PredictedBy, "NO_DIV");
  ASSERT_TRUE(C[0].Realized.has_value());
  EXPECT_NEAR(*C[0].Realized, (4000 / 2100.0 - 1) / (2.0 - 1), 1e-9);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printComparison(OS, C);
  EXPECT_NE(Text.find("A k:L0 -> B k:L0 (fuzzy, matched by function"),
            std::string::npos)
      << Text;
}

TEST(LoopMatching, TwoLoopsOfOneFunctionAreNotSwapped) {
  // Both loops of f moved down by 2 lines; the second is hotter (it would
  // pair first by share).
  Report A, B;
  A.Loops.push_back(loopAt("f:L0", "f|f.c:10:3||", {"x", "y"}, 1000));
  A.Loops.push_back(loopAt("f:L1", "f|f.c:20:3||", {"u", "v"}, 9000));
  B.Loops.push_back(loopAt("f:L0", "f|f.c:12:3||", {"x", "y"}, 1000));
  B.Loops.push_back(loopAt("f:L1", "f|f.c:22:3||", {"u", "v"}, 9000));
  auto Ms = matchLoops(pointers(A), pointers(B));
  ASSERT_EQ(Ms.size(), 2u);
  const LoopMatch *First = pairOf(Ms, "f:L0"), *Second = pairOf(Ms, "f:L1");
  ASSERT_TRUE(First && Second);
  EXPECT_EQ(First->B->Source, "f|f.c:12:3||");
  EXPECT_EQ(Second->B->Source, "f|f.c:22:3||");

  // The same with the accesses alike: nest position and line keep them.
  for (LoopReport &L : B.Loops)
    L.Groups = A.Loops[0].Groups;
  for (LoopReport &L : A.Loops)
    L.Groups = B.Loops[0].Groups;
  Ms = matchLoops(pointers(A), pointers(B));
  ASSERT_EQ(Ms.size(), 2u);
  EXPECT_EQ(pairOf(Ms, "f:L0")->B->Source, "f|f.c:12:3||");
  EXPECT_EQ(pairOf(Ms, "f:L1")->B->Source, "f|f.c:22:3||");
}

TEST(LoopMatching, RemovedLoopStaysOnlyInA) {
  // B deleted f's first loop (lines 10-12): the second moved up to 17.
  Report A, B;
  A.Loops.push_back(loopAt("f:L0", "f|f.c:10:3||", {"x"}, 1000));
  A.Loops.push_back(loopAt("f:L1", "f|f.c:20:3||", {"u", "v"}, 3000));
  B.Loops.push_back(loopAt("f:L0", "f|f.c:17:3||", {"u", "v"}, 3000));
  auto Ms = matchLoops(pointers(A), pointers(B));
  ASSERT_EQ(Ms.size(), 1u);
  EXPECT_EQ(Ms[0].A->Id, "f:L1");
  EXPECT_NE(Ms[0].Why.find("line 20 -> 17"), std::string::npos);
  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  ASSERT_EQ(C.size(), 2u);
  for (const LoopComparison &X : C)
    if (X.Id == "f:L0")
      EXPECT_EQ(nameOf(X.Verdict), "only in A");
}

TEST(LoopMatching, OtherFunctionsAndFarLoopsStayApart) {
  Report A, B;
  A.Loops.push_back(loopAt("f:L0", "f|f.c:10:3||", {"x"}, 1000));
  B.Loops.push_back(loopAt("g:L0", "g|f.c:12:3||", {"x"}, 1000));
  EXPECT_TRUE(matchLoops(pointers(A), pointers(B)).empty());
  // A threshold no pair reaches keeps every moved loop apart.
  B.Loops[0] = loopAt("f:L0", "f|f.c:12:3||", {"x"}, 1000);
  EXPECT_EQ(matchLoops(pointers(A), pointers(B)).size(), 1u);
  EXPECT_TRUE(matchLoops(pointers(A), pointers(B), 1.01).empty());
}

TEST(LoopMatching, BodyMeetsBodyAndTunePredictsOnce) {
  // A: vector body (step 4) and remainder; B (tuned): the same pair, its
  // remainder hotter than its body. Body pairs with body, remainder with
  // remainder, and the tune's prediction lands on the body's row only.
  Report A, B;
  A.Loops.push_back(loopAt("v:L0", "v|v.c:9:5||", {"a"}, 4000));
  A.Loops[0].IterationStep = 4;
  A.Loops.push_back(loopAt("v:L1", "v|v.c:9:5||", {"a"}, 30));
  B.Loops.push_back(loopAt("v:L0", "v|v.c:9:5||", {"a"}, 100));
  B.Loops[0].IterationStep = 8;
  B.Loops[0].TimeCycles = 10;
  B.Loops.push_back(loopAt("v:L1", "v|v.c:9:5||", {"a"}, 3000));
  auto Ms = matchLoops(pointers(A), pointers(B));
  ASSERT_EQ(Ms.size(), 2u);
  EXPECT_EQ(pairOf(Ms, "v:L0")->B->Id, "v:L0");
  EXPECT_EQ(pairOf(Ms, "v:L1")->B->Id, "v:L1");

  analyse(A);
  analyse(B);
  auto C = compareReports(A, B);
  TunedLoop T;
  T.Position = "v.c:9:5";
  T.Choice = "vectorize.width=8";
  T.Predicted = 1.5;
  T.PredictedLo = 1.4;
  T.PredictedHi = 1.6;
  applyTunePredictions(C, {T}, A);
  unsigned Carried = 0;
  for (const LoopComparison &X : C)
    if (X.PredictedBy == "tune vectorize.width=8") {
      ++Carried;
      EXPECT_EQ(X.Id, "v:L0");
    }
  EXPECT_EQ(Carried, 1u);
}

} // namespace
