//===- SharesTest.cpp - Shares of CPU time, blocked loops -----------------===//
//
// Part of decan. A thread pool's loops around pthread_cond_wait: their
// blocked time is not CPU time, the shares add up to at most 1, and a loop
// that mostly waits says "blocked" with no bound verdict (issue 26).
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"
#include "decan/Tool/Render.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace decan::tool;

namespace {

/// A loop of \p Time wall cycles, REF/LS/FP/DL1 measured (memory-bound,
/// data in L2), whose probed calls ran \p OffCpu of their time off the
/// CPU, \p Blocked of it after voluntary context switches.
LoopReport makeLoop(std::string Id, double Time, double OffCpu,
                    double Blocked) {
  LoopReport L;
  L.Id = Id;
  L.Function = Id.substr(0, Id.find(':'));
  L.File = "pool.c";
  L.Line = 3;
  L.TimeCycles = Time;
  L.RunCalls = 100;
  for (auto [V, Med] : {std::pair{Variant::REF, 100.0},
                        {Variant::LS, 95.0},
                        {Variant::FP, 30.0},
                        {Variant::DL1, 60.0}}) {
    VariantStats S;
    S.Calls = 31;
    S.Cycles = {Med, Med, Med};
    S.MeanCycles = Med;
    S.TripsKnown = 31;
    S.TripsMedian = S.TripsMin = S.TripsMax = 100;
    S.CyclesPerIter = {Med / 100, Med / 100, Med / 100};
    L.Variants[V] = S;
  }
  L.ProbedCalls = 20;
  L.ProbedCycles = 20 * 1e6;
  L.ProbedCpuCycles = L.ProbedCycles * (1 - OffCpu);
  if (Blocked > 0) {
    L.BlockedCalls = 20;
    L.ProbedVoluntary = 40;
    L.BlockedCycles = L.ProbedCycles;
    L.BlockedCpuCycles = L.ProbedCycles * (1 - Blocked);
  }
  return L;
}

double sumOfProgramShares(const Report &R) {
  double Sum = 0;
  for (const LoopReport &L : R.Loops)
    Sum += L.ProgramShare.value_or(0);
  return Sum;
}

bool hasDiagnosis(const LoopReport &L, const std::string &Part) {
  return std::any_of(
      L.Diagnosis.begin(), L.Diagnosis.end(),
      [&](const std::string &D) { return D.find(Part) != std::string::npos; });
}

TEST(Shares, AThreadPoolsWaitingLoopsAreBlockedNotCpuTime) {
  // Two waiting loops of 1000 wall cycles each, blocked 98% of it, and the
  // work loop: 400 cycles of CPU time. The program's CPU time (all
  // threads) is 450: by wall time the shares added up to 2.4/0.45 = 533%.
  Report R;
  R.Loops.push_back(makeLoop("take:L0", 1000, 0.98, 0.98));
  R.Loops.push_back(makeLoop("wait_done:L0", 1000, 0.98, 0.98));
  R.Loops.push_back(makeLoop("scale:L0", 400, 0, 0));
  R.ProcessCycles = 450;
  analyse(R);
  const LoopReport &Take = R.Loops[0], &Scale = R.Loops[2];
  EXPECT_NEAR(Take.cpuTimeCycles(), 20, 1e-6);
  EXPECT_NEAR(*Take.ProgramShare, 20.0 / 450, 1e-9);
  EXPECT_NEAR(*Scale.ProgramShare, 400.0 / 450, 1e-9);
  EXPECT_LE(sumOfProgramShares(R), 1.0);
  EXPECT_TRUE(R.Warnings.empty()) << R.Warnings.front();
  EXPECT_NEAR(Scale.Share, 400.0 / 440, 1e-9);
  // The waiting loop: blocked, no bound verdict, no gain, no advice.
  EXPECT_EQ(Take.Verdict, VerdictClass::Blocked);
  EXPECT_EQ(nameOf(Take.Verdict), "blocked");
  EXPECT_EQ(Take.Streams, StreamsClass::None);
  EXPECT_FALSE(Take.DL1Gain);
  EXPECT_FALSE(Take.PredictedGain);
  EXPECT_TRUE(hasDiagnosis(Take, "blocked: its threads were off the CPU 98%"));
  EXPECT_TRUE(hasDiagnosis(Take, "2.0 voluntary context switches per call"));
  EXPECT_FALSE(hasDiagnosis(Take, "memory-bound"));
  // The work loop keeps its verdict and ranks first.
  EXPECT_EQ(Scale.Verdict, VerdictClass::MemoryBound);
  EXPECT_EQ(Scale.Rank, 1u);
  // All of it survives the analysed JSON (decan report analyses again).
  auto Back = reportFromJSON(toJSON(R));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Loops[0].ProbedCalls, 20u);
  EXPECT_EQ(Back->Loops[0].ProbedVoluntary, 40u);
  EXPECT_NEAR(*Back->Loops[0].blockedShare(), 0.98, 1e-9);
  EXPECT_EQ(Back->Loops[0].Verdict, VerdictClass::Blocked);
  analyse(*Back);
  EXPECT_EQ(Back->Loops[0].Verdict, VerdictClass::Blocked);
  EXPECT_NEAR(*Back->Loops[2].ProgramShare, 400.0 / 450, 1e-9);
}

TEST(Shares, DecansWallClockCostPastTheCpuTimeStaysIn) {
  // Four threads taking turns on two cores: decan's own work, timed on the
  // wall clock, came to more than the processes' CPU time. It cannot be
  // taken out: the shares are of all the CPU time, lower bounds, said once.
  Report R;
  R.Loops.push_back(makeLoop("work:L0", 400, 0, 0));
  R.ProcessCycles = 1000;
  R.OverheadCycles = 1200;
  analyse(R);
  const LoopReport &L = R.Loops[0];
  ASSERT_TRUE(L.ProgramShare);
  EXPECT_NEAR(*L.ProgramShare, 0.4, 1e-9);
  EXPECT_TRUE(L.ProgramShareLowerBound);
  EXPECT_NEAR(R.Coverage.value_or(0), 0.4, 1e-9);
  ASSERT_EQ(R.Warnings.size(), 1u);
  EXPECT_NE(R.Warnings[0].find("came to the program's CPU time"),
            std::string::npos)
      << R.Warnings[0];
  EXPECT_FALSE(std::any_of(
      L.Warnings.begin(), L.Warnings.end(), [](const std::string &W) {
        return W.find("decan's accounting costs") != std::string::npos;
      }));
}

TEST(Shares, TheRunLineAgreesWithTheLowerBound) {
  // The same run: the run line must not say decan added 0% while the
  // warning says its cost stayed in.
  Report R;
  R.Loops.push_back(makeLoop("work:L0", 400, 0, 0));
  R.ProcessCycles = 1000;
  R.OverheadCycles = 1200;
  analyse(R);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printReportTable(OS, R);
  EXPECT_NE(Text.find("decan's own work (variant calls, probes, sampling) is "
                      "left in it (lower bounds)"),
            std::string::npos)
      << Text;
  EXPECT_EQ(Text.find("added 0.0%"), std::string::npos) << Text;
}

TEST(Shares, DecansCpuCostIsTakenOutWhole) {
  // Two threads taking turns on a busy machine: the main thread waited
  // half the run for a CPU. A current runtime counted decan's cost on the
  // threads' CPU (its waits left out): it comes out of the CPU time whole,
  // not less the wait share as an older runtime's wall-clock cost does.
  for (bool OnCpu : {true, false}) {
    Report R;
    R.Loops.push_back(makeLoop("work:L0", 400, 0, 0));
    ProcessInfo P;
    P.WallCycles = 2000;
    P.CpuCycles = 1000;
    P.WaitCycles = 1000;
    P.Threads = 2;
    P.CostOnCpu = OnCpu;
    R.Processes.push_back(P);
    R.ProcessCycles = 1000;
    R.OverheadCycles = 200;
    analyse(R);
    EXPECT_NEAR(decanCostCycles(R), OnCpu ? 200 : 100, 1e-9);
    ASSERT_TRUE(decanAddedShare(R));
    EXPECT_NEAR(*decanAddedShare(R), OnCpu ? 200.0 / 800 : 100.0 / 900, 1e-9);
    EXPECT_TRUE(R.Warnings.empty() ||
                R.Warnings[0].find("came to the program's CPU time") ==
                    std::string::npos);
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    printReportTable(OS, R);
    EXPECT_NE(Text.find(OnCpu ? "added 25.0%" : "added 11.1%"),
              std::string::npos)
        << Text;
  }
}

TEST(Shares, PreemptedTimeIsNotCpuTimeButNotBlocked) {
  // Off the CPU 40% of its time with no voluntary switch: preempted (a busy
  // machine), so its CPU time is 60% of its wall time, and it still gets
  // its verdict.
  Report R;
  R.Loops.push_back(makeLoop("busy:L0", 1000, 0.4, 0));
  R.ProcessCycles = 1000;
  analyse(R);
  const LoopReport &L = R.Loops[0];
  EXPECT_FALSE(L.blockedShare().value_or(1) > 0);
  EXPECT_NEAR(*L.ProgramShare, 0.6, 1e-9);
  EXPECT_EQ(L.Verdict, VerdictClass::MemoryBound);
}

TEST(Shares, BlockedBelowTheThresholdKeepsTheVerdict) {
  Report R;
  R.Loops.push_back(makeLoop("io:L0", 1000, 0.3, 0.3));
  R.ProcessCycles = 1000;
  analyse(R);
  EXPECT_NEAR(*R.Loops[0].blockedShare(), 0.3, 1e-9);
  EXPECT_NE(R.Loops[0].Verdict, VerdictClass::Blocked);
  EXPECT_NEAR(*R.Loops[0].ProgramShare, 0.7, 1e-9);
}

TEST(Shares, UnprobedLoopsTakeTheRunsWaitOut) {
  // No CPU time read around its calls (an older runtime), or calls too
  // short for the probes' CPU time to say anything: the main thread's
  // run-queue wait (a quarter of the run) comes out of its wall time.
  for (uint64_t Probed : {0, 20}) {
    Report R;
    R.Loops.push_back(makeLoop("old:L0", 800, 0, 0));
    R.Loops[0].ProbedCalls = Probed;
    R.Loops[0].ProbedCycles = Probed * 1000.0;
    ProcessInfo P;
    P.WallCycles = 1000;
    P.CpuCycles = 750;
    P.WaitCycles = 250;
    R.Processes.push_back(P);
    R.ProcessCycles = 750;
    analyse(R);
    EXPECT_FALSE(R.Loops[0].offCpuShare());
    EXPECT_NEAR(*R.Loops[0].ProgramShare, 800 * 0.75 / 750, 1e-9);
  }
}

TEST(Shares, AStridedLoopsTimeHoldsNoWaitToTakeOut) {
  // Short calls timed 1 in 1000: a preempted timed call stands for its
  // untimed neighbours at their undisturbed time, so the loop's time is
  // (almost all) CPU time however long the run waited for a CPU (xz under
  // a burner: 86% of the run waiting gave its loops a seventh of their
  // share). Timed one by one, the wait is in its time and comes out.
  for (bool Strided : {true, false}) {
    Report R;
    R.Loops.push_back(makeLoop("short:L0", 800, 0, 0));
    R.Loops[0].RunCalls = 1000000;
    R.Loops[0].TimedCalls = Strided ? 1000 : 1000000;
    R.Loops[0].ProbedCalls = 0; // too short to probe its CPU time
    ProcessInfo P;
    P.WallCycles = 7000;
    P.CpuCycles = 1000;
    P.WaitCycles = 6000;
    R.Processes.push_back(P);
    R.ProcessCycles = 1000;
    analyse(R);
    double Running = 1000.0 / 7000;
    double Expected = Strided
                          ? 800 * Running / (Running + 0.001 * (1 - Running))
                          : 800 * Running;
    EXPECT_NEAR(*R.Loops[0].ProgramShare, Expected / 1000, 1e-9);
    if (Strided)
      EXPECT_GT(*R.Loops[0].ProgramShare, 0.79);
  }
}

TEST(Shares, OnlyTheCallsTimedAloneHoldTheRunsWait) {
  // The runtime says which part of the loop's time its calls timed alone
  // (weight 1: a slot's calls, the first ones) took: 400 of 1000 timed
  // cycles. Only that part holds the run's wait (six sevenths of it); the
  // stride's calls count at undisturbed neighbours' time.
  Report R;
  R.Loops.push_back(makeLoop("short:L0", 800, 0, 0));
  R.Loops[0].RunCalls = 1000000;
  R.Loops[0].TimedCalls = 1000;
  R.Loops[0].RunCycles = 1000;
  R.Loops[0].SingleCycles = 400;
  R.Loops[0].ProbedCalls = 0;
  ProcessInfo P;
  P.WallCycles = 7000;
  P.CpuCycles = 1000;
  P.WaitCycles = 6000;
  R.Processes.push_back(P);
  R.ProcessCycles = 1000;
  analyse(R);
  double Waiting = 6000.0 / 7000;
  EXPECT_NEAR(*R.Loops[0].ProgramShare, 800 * (1 - 0.4 * Waiting) / 1000, 1e-9);
}

TEST(Shares, ARegionsShareIsOfCpuTimeAsALoops) {
  // A region (an outer loop or a function, timed REF only) counts its time
  // as a loop does: the part timed alone (400 of 1000: the rest stood for a
  // stride at undisturbed neighbours' time) holds the run's wait, which is
  // taken out; its time is no loop time in the coverage.
  Report R;
  R.Loops.push_back(makeLoop("region:walk", 800, 0, 0));
  R.Loops.push_back(makeLoop("walk:L0", 300, 0, 0));
  for (LoopReport &L : R.Loops) {
    L.ProbedCalls = 0;
    L.RunCycles = 1000;
    L.SingleCycles = L.isRegion() ? 400 : 1000;
  }
  ProcessInfo P;
  P.WallCycles = 2000;
  P.CpuCycles = 1000;
  P.WaitCycles = 1000;
  R.Processes.push_back(P);
  R.ProcessCycles = 1000;
  analyse(R);
  double Waiting = 0.5;
  EXPECT_NEAR(*R.Loops[0].ProgramShare, 800 * (1 - 0.4 * Waiting) / 1000, 1e-9);
  EXPECT_NEAR(*R.Loops[1].ProgramShare, 300 * (1 - Waiting) / 1000, 1e-9);
  ASSERT_TRUE(R.Coverage);
  EXPECT_NEAR(*R.Coverage, 300 * (1 - Waiting) / 1000, 1e-9)
      << "a region encloses loops: its time is not added to theirs";
}

TEST(Shares, SharesPastTheWholeAreScaledAndSaid) {
  // Two CPU-bound loops whose times add up to 150% of the program's: the
  // shares are scaled to add up to 100%, and a warning says so.
  Report R;
  R.Loops.push_back(makeLoop("a:L0", 900, 0, 0));
  R.Loops.push_back(makeLoop("b:L0", 600, 0, 0));
  R.ProcessCycles = 1000;
  analyse(R);
  EXPECT_NEAR(sumOfProgramShares(R), 1.0, 1e-9);
  EXPECT_NEAR(*R.Loops[0].ProgramShare, 0.6, 1e-9);
  EXPECT_TRUE(std::any_of(
      R.Warnings.begin(), R.Warnings.end(), [](const std::string &W) {
        return W.find("add up to 150%") != std::string::npos;
      }));
}

} // namespace
