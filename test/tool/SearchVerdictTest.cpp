//===- SearchVerdictTest.cpp - Verdicts for loops whose LS is REF ---------===//
//
// Part of decan. Issue 27: a search (every arithmetic instruction feeds the
// exit test or an address) has no LS variant, since LS would be REF itself;
// Sat(LS) is then exactly 1, and FP and DL1, where they are built, still
// give Algorithm 2's verdict and the memory/CPU class.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"

#include "gtest/gtest.h"

using namespace decan::tool;

namespace {

/// REF, FP and DL1 with medians \p Ref, \p FP, \p DL1 over 31 calls of 100
/// trips; LS with the status \p LSStatus (empty: it would be REF).
LoopReport searchLoop(double Ref, double FP, double DL1,
                      std::string LSStatus = "empty") {
  LoopReport L;
  L.Id = "find:L0";
  L.Function = "find";
  L.TimeCycles = 100000;
  for (auto [V, Med] :
       {std::pair{Variant::REF, Ref}, {Variant::FP, FP}, {Variant::DL1, DL1}}) {
    VariantStats S;
    S.Calls = 31;
    S.Cycles = {Med, Med, Med};
    S.MeanCycles = Med;
    S.TripsKnown = 31;
    S.TripsMedian = 100;
    S.TripsMin = S.TripsMax = 100;
    S.CyclesPerIter = {Med / 100, Med / 100, Med / 100};
    L.Variants[V] = S;
  }
  L.Unavailable = {{"LS", LSStatus}, {"CTRL", "empty"}};
  L.UnavailableWhy = {
      {"LS", "all arithmetic feeds the exit test or an address"},
      {"CTRL", "every instruction feeds the exit test"}};
  return L;
}

bool says(const LoopReport &L, const std::string &Part) {
  for (const std::string &D : L.Diagnosis)
    if (D.find(Part) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST(SearchVerdict, LSIsREFSoFPGivesTheClass) {
  // FP (the search without its loads) takes 30% of REF: memory-bound.
  Report R;
  R.Loops.push_back(searchLoop(1000, 300, 950));
  analyse(R);
  const LoopReport &L = R.Loops[0];
  EXPECT_EQ(nameOf(L.Verdict), "memory-bound");
  EXPECT_TRUE(says(L, "Sat(LS) is 1: LS would be REF itself")) << L.Id;
  // DL1 as slow as REF: the CPU side alone takes the time, against LS=1
  // (both saturate): balanced.
  EXPECT_EQ(nameOf(L.MemoryCpu), "balanced");
}

TEST(SearchVerdict, LSIsREFAndDL1SaysMemoryBounds) {
  Report R;
  R.Loops.push_back(searchLoop(1000, 300, 300));
  analyse(R);
  EXPECT_EQ(nameOf(R.Loops[0].MemoryCpu), "memory-bound");
}

TEST(SearchVerdict, AnLSNotMeasuredIsNotREF) {
  // LS built but not measured (another status than empty): no class.
  Report R;
  R.Loops.push_back(searchLoop(1000, 300, 950, "not-emitted"));
  analyse(R);
  EXPECT_NE(nameOf(R.Loops[0].Verdict), "memory-bound");
  EXPECT_EQ(nameOf(R.Loops[0].Streams), "");
}
