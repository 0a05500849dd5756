//===- BenchRuntime.cpp - Cost of decan's probes and sampling decision ----===//
//
// Part of decan. Prints, from one run on this machine:
//  * the reading of an empty timed region (decan/tsc.h start then stop, the
//    sequence the plugin emits) - the floor every measurement carries;
//  * the cost of the sampling decision (Schedule.h's decide(), what
//    __decan_begin_call runs per call);
//  * the whole begin_call/end_call pair as a stub calls it: an accounting
//    call (what nearly every call of a long run pays) and slot calls.
// Goals (issue 5): empty region median < 60 cycles, decision < 20 cycles.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Schedule.h"
#include "decan/abi.h"
#include "decan/tsc.h"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

using namespace decan::rt;

namespace {

uint64_t median(std::vector<uint64_t> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

/// Median over `Batches` of the per-iteration cycles of `Fn` run `Iters`
/// times inside one timed region (the probe cost is spread over Iters).
template <typename F>
double perIteration(unsigned Batches, unsigned Iters, F Fn) {
  std::vector<uint64_t> B;
  for (unsigned K = 0; K < Batches; ++K) {
    uint64_t T0 = decan_tsc_start();
    for (unsigned I = 0; I < Iters; ++I)
      Fn(I);
    uint64_t T1 = decan_tsc_stop();
    B.push_back(T1 - T0);
  }
  return (double)median(B) / Iters;
}

const char *kEnv[][2] = {{"DECAN_LOOPS", "all"},
                         {"DECAN_OUTPUT", "/tmp"},
                         {"DECAN_REPS", "0"},
                         {"DECAN_WARMUP", "0"},
                         {"DECAN_MAX_RECORDS", "0"}};
const char *benchEnv(const char *N) {
  for (auto &E : kEnv)
    if (!strcmp(E[0], N))
      return E[1];
  return nullptr;
}
const char *inertEnv(const char *) { return nullptr; }

} // namespace

int main() {
  // 1. Empty timed region.
  std::vector<uint64_t> Empty;
  for (int I = 0; I < 100001; ++I) {
    uint64_t A = decan_tsc_start();
    uint64_t B = decan_tsc_stop();
    Empty.push_back(B - A);
  }
  uint64_t EmptyMin = *std::min_element(Empty.begin(), Empty.end());
  uint64_t EmptyMed = median(Empty);

  // 2. Sampling decision over six variants: every call in a slot (K = 0),
  // and deep in a run (sparse slots, the pseudo-random gap drawn per slot).
  LoopPlan P;
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    P.Order[P.N++] = (uint8_t)V;
  ScheduleParams SP{Mode::Rotate, 1, 0, 1};
  SamplerState S;
  volatile int Sink = 0;
  auto Decide = [&](unsigned) {
    Decision D = decide(P, S, SP, 1, [] { return ~0ull; });
    Sink = D.Variant;
  };
  // The same loop without the decision: what the harness itself costs.
  auto Nothing = [&](unsigned I) { Sink = (int)I; };
  double DecideC = perIteration(101, 10000, Decide);
  double LoopC = perIteration(101, 10000, Nothing);
  ScheduleParams SPR{Mode::Rotate, 1, 31, 1};
  SamplerState SR;
  SR.Calls = 1000000000;
  SR.Slots = 1000000;
  double DecideRepsC = perIteration(101, 10000, [&](unsigned) {
    Decision D = decide(P, SR, SPR, 1, [] { return 1000ull; });
    Sink = D.Variant;
  });

  // 3. The ABI pair as a stub runs it: every call a slot call (pre, sample
  // and post calls read the context-switch count: two getrusage syscalls),
  // then accounting calls only (what almost every call of a long run costs).
  reinitializeForTesting(benchEnv);
  static decan_loop_desc D{};
  D.abi_version = DECAN_ABI_VERSION;
  D.variant_mask = 63;
  D.id = "bench:L0";
  D.function = "bench";
  D.file = "";
  __decan_register_loops(&D, 1);
  auto StubCall = [](decan_loop_desc &Desc, unsigned I) {
    int V = __decan_begin_call(&Desc);
    if (V >= 0 && __decan_end_call(&Desc, V, I, 1))
      __decan_end_call(&Desc, V | DECAN_RERUN, I, 1);
  };
  double PairC = perIteration(21, 1000, [&](unsigned I) { StubCall(D, I); });
  // Warmup covers every call: accounting calls only.
  static const char *const kWarm[][2] = {{"DECAN_LOOPS", "all"},
                                         {"DECAN_OUTPUT", "/tmp"},
                                         {"DECAN_WARMUP", "4000000000"}};
  reinitializeForTesting([](const char *N) -> const char * {
    for (auto &E : kWarm)
      if (!strcmp(E[0], N))
        return E[1];
    return nullptr;
  });
  static decan_loop_desc D2 = D;
  D2.runtime_state = nullptr;
  D2.id = "bench:L1";
  __decan_register_loops(&D2, 1);
  double SkipC = perIteration(101, 10000, [&](unsigned I) { StubCall(D2, I); });
  reinitializeForTesting(inertEnv); // no report from the benchmark

  printf("decan runtime benchmark (TSC cycles, one run)\n");
  printf("%-46s %10s %8s %s\n", "measure", "cycles", "goal", "");
  printf("%-46s %10llu %8s %s\n", "empty timed region, median",
         (unsigned long long)EmptyMed, "< 60", EmptyMed < 60 ? "ok" : "MISSED");
  printf("%-46s %10llu %8s\n", "empty timed region, min",
         (unsigned long long)EmptyMin, "");
  printf("%-46s %10.1f %8s %s\n", "sampling decision (decide, 6 variants)",
         DecideC, "< 20", DecideC < 20 ? "ok" : "MISSED");
  printf("%-46s %10.1f %8s\n", "  harness loop alone (included above)", LoopC,
         "");
  printf("%-46s %10.1f %8s %s\n", "sampling decision, sparse slots",
         DecideRepsC, "< 20", DecideRepsC < 20 ? "ok" : "MISSED");
  printf("%-46s %10.1f %8s\n", "begin_call+end_call, accounting call", SkipC,
         "");
  printf("%-46s %10.1f %8s\n", "begin_call+end_call, slot calls (getrusage)",
         PairC, "");
  printf("ratios: empty region / 60 = %.2f, decision / 20 = %.2f\n",
         EmptyMed / 60.0, DecideC / 20.0);
  return 0;
}
