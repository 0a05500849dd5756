//===- BenchRuntime.cpp - Cost of decan's probes and rotation decision ----===//
//
// Part of decan. Prints, from one run on this machine:
//  * the reading of an empty timed region (decan/tsc.h start then stop, the
//    sequence the plugin emits) - the floor every measurement carries;
//  * the cost of the rotation decision (Schedule.h's decide(), what
//    __decan_begin_call runs per call);
//  * for information, the whole begin_call/end_call pair as a stub calls it.
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

  // 2. Rotation decision over six variants, no repetition limit.
  LoopPlan P;
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    P.Order[P.N++] = (uint8_t)V;
  ScheduleParams SP{Mode::Rotate, 1, 0, 1};
  RotationState S;
  volatile int Sink = 0;
  auto Decide = [&](unsigned) {
    Decision D = decide(P, S, SP, [](int) { return (uint64_t)0; });
    Sink = D.Variant;
  };
  // The same loop without the decision: what the harness itself costs.
  auto Nothing = [&](unsigned I) { Sink = (int)I; };
  double DecideC = perIteration(101, 10000, Decide);
  double LoopC = perIteration(101, 10000, Nothing);
  // With the limit check active (R rounds done, counts consulted per round).
  ScheduleParams SPR{Mode::Rotate, 1, 1000000000, 1};
  RotationState SR;
  SR.Rounds = 1000000000;
  double DecideRepsC = perIteration(101, 10000, [&](unsigned) {
    Decision D = decide(P, SR, SPR, [](int) { return (uint64_t)0; });
    Sink = D.Variant;
  });

  // 3. The ABI pair as a stub runs it (measured calls: two getrusage
  // syscalls) and begin_call when the loop is done measuring.
  reinitializeForTesting(benchEnv);
  static decan_loop_desc D{};
  D.abi_version = DECAN_ABI_VERSION;
  D.variant_mask = 63;
  D.id = "bench:L0";
  D.function = "bench";
  D.file = "";
  __decan_register_loops(&D, 1);
  double PairC = perIteration(21, 1000, [&](unsigned I) {
    int V = __decan_begin_call(&D);
    if (V >= 0)
      __decan_end_call(&D, V, I, 1);
  });
  // Warmup covers every call: begin_call decides "not measured" and returns.
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
  double SkipC = perIteration(
      101, 10000, [&](unsigned) { Sink = __decan_begin_call(&D2); });
  reinitializeForTesting(inertEnv); // no report from the benchmark

  printf("decan runtime benchmark (TSC cycles, one run)\n");
  printf("%-46s %10s %8s %s\n", "measure", "cycles", "goal", "");
  printf("%-46s %10llu %8s %s\n", "empty timed region, median",
         (unsigned long long)EmptyMed, "< 60", EmptyMed < 60 ? "ok" : "MISSED");
  printf("%-46s %10llu %8s\n", "empty timed region, min",
         (unsigned long long)EmptyMin, "");
  printf("%-46s %10.1f %8s %s\n", "rotation decision (decide, 6 variants)",
         DecideC, "< 20", DecideC < 20 ? "ok" : "MISSED");
  printf("%-46s %10.1f %8s\n", "  harness loop alone (included above)", LoopC,
         "");
  printf("%-46s %10.1f %8s %s\n", "rotation decision with DECAN_REPS check",
         DecideRepsC, "< 20", DecideRepsC < 20 ? "ok" : "MISSED");
  printf("%-46s %10.1f %8s\n", "__decan_begin_call, call not measured", SkipC,
         "");
  printf("%-46s %10.1f %8s\n", "begin_call+end_call, measured (2 getrusage)",
         PairC, "");
  printf("ratios: empty region / 60 = %.2f, decision / 20 = %.2f\n",
         EmptyMed / 60.0, DecideC / 20.0);
  return 0;
}
