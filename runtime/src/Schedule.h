//===- Schedule.h - Which variant a call of a loop runs --------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions. Header-only: it is the hot
// path of __decan_begin_call.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rotation decision, per loop and thread (calls are numbered from 1):
///
/// * rotate: calls 1..W (W = DECAN_WARMUP) run unmeasured; then call W+1+j
///   runs Order[j mod N] (round robin over the eligible requested variants,
///   REF included, in DECAN_VARIANTS order). At the start of a round, once R
///   = DECAN_REPS rounds are done and every variant has R calls free of
///   context switches (or 4R+4 rounds passed), the thread stops measuring
///   the loop. R = 0: never stops.
/// * replace: every call runs Order[0]; calls 1..W are not recorded.
/// * instance: call K+j (K = DECAN_INSTANCE) runs Order[j], j < N; every
///   other call is unmeasured. With one variant requested, exactly call K is
///   measured.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_SCHEDULE_H
#define DECAN_RUNTIME_SCHEDULE_H

#include "Config.h"

#include <stdint.h>

namespace decan::rt {

/// Per loop, fixed at registration: the eligible variants in order.
struct LoopPlan {
  uint8_t Order[DECAN_NUM_VARIANTS] = {};
  uint8_t N = 0;
};

/// Per loop and thread.
struct RotationState {
  uint64_t Calls = 0;  ///< calls seen so far (the current one included)
  uint64_t Rounds = 0; ///< completed round-robin rounds
  uint32_t Pos = 0;
  bool Done = false;
};

struct ScheduleParams {
  Mode RunMode = Mode::Rotate;
  uint64_t Warmup = 1;
  uint64_t Reps = 31;
  uint64_t Instance = 1;
};

/// What begin_call does with this call.
struct Decision {
  int Variant;   ///< variant to run, -1: original loop only
  bool Measured; ///< record it at end_call
};

/// Decides call number S.Calls+1. `Valid(v)` returns the count of calls of
/// variant v free of context switches on this thread (only asked once per
/// round, after R rounds).
template <typename ValidFn>
static inline __attribute__((always_inline)) Decision
decide(const LoopPlan &P, RotationState &S, const ScheduleParams &SP,
       ValidFn Valid) {
  uint64_t N = ++S.Calls;
  if (__builtin_expect(P.N == 0, 0))
    return {-1, false};
  switch (SP.RunMode) {
  case Mode::Rotate: {
    if (N <= SP.Warmup || S.Done)
      return {-1, false};
    if (SP.Reps && S.Pos == 0 && S.Rounds >= SP.Reps) {
      bool Enough = true;
      for (unsigned I = 0; I < P.N; ++I)
        Enough &= Valid(P.Order[I]) >= SP.Reps;
      if (Enough || S.Rounds >= 4 * SP.Reps + 4) {
        S.Done = true;
        return {-1, false};
      }
    }
    int V = P.Order[S.Pos];
    if (++S.Pos == P.N) {
      S.Pos = 0;
      ++S.Rounds;
    }
    return {V, true};
  }
  case Mode::Replace:
    return {P.Order[0], N > SP.Warmup};
  case Mode::Instance:
    if (N >= SP.Instance && N - SP.Instance < P.N)
      return {P.Order[N - SP.Instance], true};
    return {-1, false};
  }
  return {-1, false};
}

} // namespace decan::rt

#endif // DECAN_RUNTIME_SCHEDULE_H
