//===- analyses/Shares.cpp - Shares of the loops' and the program's time --===//
//
// Part of decan. Each loop's share of the measured loops' time and of the
// program's own time (the processes' time less what decan added), the
// loops' coverage of the program; and, after the claims, how far a
// loop's program share can be trusted.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace decan::tool {

double programCycles(const Report &R) {
  // CPU time: a wait for a CPU that other processes held is no part of
  // the program's time (an older runtime gave only the wall time).
  double Sum = 0;
  for (const ProcessInfo &P : R.Processes)
    Sum += P.CpuCycles > 0 ? P.CpuCycles : P.WallCycles;
  return Sum;
}

double cpuWaitShare(const Report &R) {
  double Wait = 0, Wall = 0;
  for (const ProcessInfo &P : R.Processes)
    if (P.CpuCycles > 0 && P.WallCycles > 0) {
      Wait += P.WaitCycles;
      Wall += P.WallCycles;
    }
  return Wall > 0 ? std::clamp(Wait / Wall, 0.0, 1.0) : 0;
}

double decanCostCycles(const Report &R) {
  bool OnCpu =
      !R.Processes.empty() &&
      all_of(R.Processes, [](const ProcessInfo &P) { return P.CostOnCpu; });
  return R.OverheadCycles * (OnCpu ? 1 : 1 - cpuWaitShare(R));
}

std::optional<double> decanAddedShare(const Report &R) {
  double Program = R.ProcessCycles - decanCostCycles(R);
  if (R.ProcessCycles <= 0 || Program <= 0)
    return std::nullopt;
  return decanCostCycles(R) / Program;
}

std::string wallCpuText(const Report &R) {
  std::optional<double> Hz = R.Machine.getNumber("tsc_hz");
  double Wall = 0, Cpu = 0, Wait = 0;
  unsigned Threads = 0;
  for (const ProcessInfo &P : R.Processes) {
    Wall += P.WallCycles;
    Cpu += P.CpuCycles;
    Wait += P.WaitCycles;
    Threads = std::max(Threads, P.Threads);
  }
  if (!Hz || *Hz <= 0 || Wall <= 0 || Cpu <= 0)
    return "";
  // Seconds, or milliseconds for a short run.
  bool Ms = Wall / *Hz < 1;
  auto Time = [&](double Cycles) {
    return Ms ? formatv("{0:F1} ms", Cycles / *Hz * 1e3).str()
              : formatv("{0:F2} s", Cycles / *Hz).str();
  };
  std::string S = "time: wall " + Time(Wall) + ", CPU " + Time(Cpu);
  bool CpuShares = std::fabs(R.ProcessCycles - programCycles(R)) <= 0.01 * Cpu;
  if (Threads > 1)
    return S +
           formatv(" ({0} threads: CPU time adds theirs up)", Threads).str() +
           (CpuShares ? "; shares are of the CPU time, a loop's time off "
                        "the CPU (blocked, preempted) left out"
                      : "");
  if (Wall > Cpu)
    S += ": " + Time(Wall - Cpu) + " waiting/preempted";
  if (Wait > 0)
    S += " (" + Time(Wait) +
         " of it ready to run while other processes held the CPUs)";
  // (A report of an older decan formed its shares of the wall time.)
  if (CpuShares)
    S += "; shares are of the CPU time";
  return S;
}

std::optional<double> computeShares(Report &R, bool *OverheadKept) {
  // CPU time: a loop's time off the CPU (blocked on a futex or I/O, or
  // preempted) is no part of it, so the shares of a program whose threads
  // wait add up as its CPU time does. Where a loop's CPU time was not
  // probed, the part the main thread waited for a CPU (the run's share,
  // spread over the run) is taken out of its wall time (for the shares of
  // the loops' time, that wait is in every unprobed loop alike).
  double Running = 1 - cpuWaitShare(R);
  double Total = 0;
  for (const LoopReport &L : R.Loops)
    if (!L.isRegion()) // regions enclose loops: not loop time
      Total += L.cpuTimeCycles();
  for (LoopReport &L : R.Loops)
    L.Share = Total > 0 && !L.isRegion() ? L.cpuTimeCycles() / Total : 0;
  // The program's own time: the processes' CPU time less what decan
  // added (on the threads' CPU: decanCostCycles).
  double Program = R.ProcessCycles - decanCostCycles(R);
  if (R.ProcessCycles <= 0)
    return std::nullopt;
  // An older runtime timed decan's work on the wall clock: threads that
  // wait or take turns on the cores stretch it past the CPU time it is
  // part of. It cannot be taken out then, so the shares are of all the
  // CPU time (lower bounds), and say so.
  bool KeepOverhead = !decanAddedShare(R);
  if (OverheadKept)
    *OverheadKept = KeepOverhead;
  if (KeepOverhead)
    Program = R.ProcessCycles;
  double Cov = 0;
  for (LoopReport &L : R.Loops) {
    if (!L.RunCalls)
      continue;
    L.ProgramShare = L.cpuTimeCycles(Running) / Program;
    L.ProgramShareLowerBound =
        KeepOverhead || (L.InsideCycles > 0 && R.overheadOf(L) > L.TimeCycles);
    // Regions enclose loops: their time is not added twice.
    if (!L.isRegion())
      Cov += *L.ProgramShare;
  }
  // Parts of one CPU time add up to at most all of it: past that, the
  // loops' times and the processes' disagree (time off the CPU that was
  // not probed); the shares are scaled to the whole.
  std::optional<double> Scaled;
  if (Cov > 1)
    Scaled = Cov;
  for (LoopReport &L : R.Loops)
    if (L.ProgramShare)
      L.ProgramShare =
          std::min(1.0, Scaled && !L.isRegion() ? *L.ProgramShare / Cov
                                                : *L.ProgramShare);
  R.Coverage = std::min(1.0, Cov);
  return Scaled;
}

namespace analyses {

void shares(AnalysisContext &C) {
  bool OverheadKept = false;
  std::optional<double> Scaled = computeShares(C.R, &OverheadKept);
  if (OverheadKept) {
    std::string W =
        formatv("decan's own work ({0:F0} cycles) came to the program's "
                "CPU time ({1:F0}) or more (timed on the wall clock by an "
                "older runtime): it is left in, and the program shares are "
                "lower bounds",
                decanCostCycles(C.R), C.R.ProcessCycles)
            .str();
    if (!llvm::is_contained(C.R.Warnings, W))
      C.R.Warnings.push_back(W);
  }
  if (!Scaled)
    return;
  std::string W =
      formatv("the loops' CPU times add up to {0} of the program's: their "
              "program shares are scaled to add up to 100% (time off the CPU "
              "that was not probed, or decan's own cost, is in them)",
              pct(*Scaled))
          .str();
  if (!llvm::is_contained(C.R.Warnings, W))
    C.R.Warnings.push_back(W);
}

void shareCaveats(AnalysisContext &C) {
  const Report &R = C.R;
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    // (A lower bound for the whole run is said once: shares().)
    if (L.ProgramShareLowerBound && L.RunCalls && L.InsideCycles > 0 &&
        R.overheadOf(L) > L.TimeCycles)
      L.Warnings.push_back(
          formatv("decan's accounting costs {0:F0} cycles per call, more "
                  "than the loop's own {1:F0}: the part it cannot time "
                  "weighs on the program's time, and the program share ({2}) "
                  "is a lower bound",
                  R.overheadOf(L) / (double)L.RunCalls,
                  L.TimeCycles / (double)L.RunCalls,
                  L.ProgramShare ? pct(*L.ProgramShare) : "-")
              .str());
    bool Short = R.ProbeCycles > 0 && S.MeanCall > 0 &&
                 S.MeanCall < C.T.PrecisionFactor * R.ProbeCycles;
    if (Short && L.ProgramShare && !L.ProgramShareLowerBound) {
      L.ProgramShareApproximate = true;
      L.Warnings.push_back(
          formatv("the program share ({0}) is approximate: calls of {1:F0} "
                  "cycles are timed alone between the probes, without the "
                  "overlap with the code around them that they have in the "
                  "program (their cost there may be lower or higher)",
                  pct(*L.ProgramShare), S.MeanCall)
              .str());
    }
  });
}

} // namespace analyses
} // namespace decan::tool
