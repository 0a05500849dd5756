//===- analyses/ControlBound.cpp - Loops whose work is their control ------===//
//
// Part of decan. Loops whose FP (and LS) are empty: everything is in the
// exit test's or the addresses' slice, so no variant separates memory from
// arithmetic. What REF alone says: a chain of chased loads is
// latency-bound (a verdict), and its cost per iteration places the loads;
// a search is its exit test.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

static StringRef latencyLevel(double Cycles) {
  return Cycles <= 8     ? "L1"
         : Cycles <= 30  ? "L2"
         : Cycles <= 100 ? "L3"
                         : "memory (DRAM)";
}

static void diagnoseControlBound(LoopReport &L, bool TooShort) {
  auto Empty = [&](const char *V) {
    auto It = L.Unavailable.find(V);
    return It != L.Unavailable.end() && It->second == "empty";
  };
  // FP empty: every memory access feeds the exit test or an address. LS
  // may still remove a counter the exit does not need (a front end that
  // cannot see the counter is live after the loop keeps it out of CTRL).
  if (!Empty("FP") || !L.RunCalls || L.TimeCycles <= 0 ||
      (!L.ChasedLoads && !Empty("LS")))
    return;
  double PerCall = L.TimeCycles / (double)L.RunCalls;
  std::optional<double> PerIter;
  if (L.RunMeanTrips && *L.RunMeanTrips > 0)
    PerIter = PerCall / *L.RunMeanTrips;
  std::string Cost =
      PerIter ? formatv("{0:F1} cycles per iteration", *PerIter).str()
              : formatv("{0:F0} cycles per call (trip count unknown)", PerCall)
                    .str();
  if (!L.ChasedLoads) {
    L.Diagnosis.push_back(
        "the loop's work is its exit test: every load feeds it or an address "
        "(a search), so no variant separates memory from arithmetic; REF: " +
        Cost +
        "; to see what bounds it, measure the code around it as a region "
        "(plugin builds: `decan flags --regions`, `decan run --regions`)");
    return;
  }
  std::string S = formatv("latency-bound (pointer chasing): each iteration's "
                          "address comes from a load of the previous one ({0} "
                          "chased load{1}); REF: {2}",
                          L.ChasedLoads, L.ChasedLoads == 1 ? "" : "s", Cost)
                      .str();
  if (PerIter) {
    double PerLoad = *PerIter / L.ChasedLoads;
    S += formatv(", about {0:F0} per chased load: the latency of {1}", PerLoad,
                 latencyLevel(PerLoad))
             .str();
    if (PerLoad > 30)
      S += "; prefetching cannot run ahead of such a chain: fewer levels of "
           "indirection, or nodes laid out in traversal order, shorten it";
  }
  L.Diagnosis.push_back(S);
  // The class needs no variant: it is the loop's structure, and REF's
  // whole-run time is exact. Too-short calls still decide nothing.
  if (!TooShort && L.Verdict == VerdictClass::None) {
    L.Verdict = VerdictClass::LatencyBound;
    L.VerdictConfidence = 1;
  }
}

void controlBound(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    diagnoseControlBound(L, S.TooShort);
  });
}

} // namespace decan::tool::analyses
