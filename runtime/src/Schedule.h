//===- Schedule.h - Which variant a call of a loop runs --------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions; integer arithmetic only (the
// program's FP flags must not see the runtime). Header-only: it is the hot
// path of __decan_begin_call.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The decision per call of a loop on one thread (calls numbered from 1).
/// While a loop is active every call is timed: a call that is not a sample
/// runs the REF copy and only counts towards the whole-run totals.
///
/// * rotate: calls 1..W (W = DECAN_WARMUP) are accounting calls. Samples
///   come in *slots* of three consecutive calls: a REF call (the "pre"
///   pair), the sampled variant, a REF call (the "post" pair), so every
///   variant sample has REF neighbours on the same thread, close in time,
///   for an equal-work comparison. Slot k samples Order[k mod N] (N
///   eligible variants, REF included: REF-in-the-middle slots measure the
///   noise of the pairing itself). The first K*N slots (K = DECAN_REPS)
///   follow each other back to back, each slot's post call being the next
///   one's pre call (so every other call is a sample); after that, at call n
///   the next slot starts after a gap drawn uniformly from [0, 2g], g =
///   min(n/(K*N), G): a slot density of about K*N/n (about K*N*(1 +
///   ln(C/(3*K*N))) slots in C calls), until that would fall below the density
///   whose cost is the sampling budget (G: the caller's cap, from the loop's
///   mean call and the slot's fixed cost), from where on slots are spread
///   evenly to the end of the run (a gap of 0 overlaps the slots as above). So
///   samples come from the whole run, the overhead stays bounded, and each
///   sample stands for about 2 + g calls of the run (its weight). K = 0: every
///   other call is a sample. The pseudo-random gaps are
///   seeded by the loop's index: identical runs sample identical calls.
/// * replace: every call runs Order[0]; calls 1..W are not recorded.
/// * instance: call K+j (K = DECAN_INSTANCE) runs Order[j], j < N; every
///   other call is an accounting call.
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
struct SamplerState {
  uint64_t Calls = 0;    ///< calls seen so far (the current one included)
  uint64_t Slots = 0;    ///< slots started
  uint64_t NextSlot = 0; ///< call number that starts the next slot; 0: unset
  uint64_t Rng = 0;      ///< xorshift64 state; 0: unseeded
  uint32_t Pos = 0;      ///< next position in Order
};

struct ScheduleParams {
  Mode RunMode = Mode::Rotate;
  uint64_t Warmup = 1;
  uint64_t Reps = 31;
  uint64_t Instance = 1;
};

/// The part a call plays.
enum class Role : uint8_t {
  Account, ///< REF, timed for the whole-run totals only
  Pre,     ///< REF before a sample: totals, and the sample's "pre" pair
  Sample,  ///< the sampled variant (REF too in REF slots)
  Post     ///< REF after a sample: totals, and the sample's "post" pair
};

/// What begin_call does with this call.
struct Decision {
  int Variant; ///< variant to run, -1: the original loop only (not timed)
  Role What;
};

/// The mean gap after call \p N: N/(K*N) until it reaches \p Cap.
static inline uint64_t meanGap(const ScheduleParams &SP, unsigned NumVariants,
                               uint64_t N, uint64_t Cap) {
  uint64_t G = N / (SP.Reps * NumVariants);
  return G < Cap ? G : Cap;
}

/// The number of calls the slot after call \p N waits for (rotate mode).
template <typename CapFn>
static inline uint64_t slotGap(SamplerState &S, const ScheduleParams &SP,
                               unsigned NumVariants, uint64_t N, CapFn Cap) {
  if (SP.Reps == 0 || S.Slots < SP.Reps * NumVariants)
    return 0;
  uint64_t X = S.Rng;
  X ^= X << 13;
  X ^= X >> 7;
  X ^= X << 17;
  S.Rng = X;
  return X % (2 * meanGap(SP, NumVariants, N, Cap()) + 1);
}

/// Decides call number S.Calls+Skipped+1 of a loop whose plan is \p P,
/// \p Skipped calls after the last one decided (they ran inline at an
/// accounting stride, abi.h); \p Seed (nonzero) seeds the gaps on first use;
/// \p Cap() bounds the mean gap (asked once per slot).
template <typename CapFn>
static inline __attribute__((always_inline)) Decision
decide(const LoopPlan &P, SamplerState &S, const ScheduleParams &SP,
       uint64_t Seed, CapFn Cap, uint64_t Skipped = 0) {
  uint64_t N = S.Calls += Skipped + 1;
  if (__builtin_expect(P.N == 0, 0))
    return {-1, Role::Account};
  switch (SP.RunMode) {
  case Mode::Rotate: {
    if (N <= SP.Warmup)
      return {DECAN_REF, Role::Account};
    if (S.NextSlot == 0) {
      S.NextSlot = N;
      S.Rng = Seed * 0x9E3779B97F4A7C15ull | 1;
    }
    if (N < S.NextSlot)
      return {DECAN_REF, Role::Account};
    switch (N - S.NextSlot) {
    case 0:
      return {DECAN_REF, Role::Pre};
    case 1: {
      int V = P.Order[S.Pos];
      if (++S.Pos == P.N)
        S.Pos = 0;
      return {V, Role::Sample};
    }
    default: {
      ++S.Slots;
      // No gap: this post call is also the next slot's pre call.
      uint64_t Gap = slotGap(S, SP, P.N, N, Cap);
      S.NextSlot = Gap ? N + 1 + Gap : N;
      return {DECAN_REF, Role::Post};
    }
    }
  }
  case Mode::Replace:
    return {P.Order[0], N > SP.Warmup ? Role::Sample : Role::Account};
  case Mode::Instance:
    if (N >= SP.Instance && N - SP.Instance < P.N)
      return {P.Order[N - SP.Instance], Role::Sample};
    return {DECAN_REF, Role::Account};
  }
  return {-1, Role::Account};
}

/// The accounting stride after call \p N (rotate mode): how many calls the
/// next decided call stands for. Calls of a slot, and the call that starts
/// the next one, are never skipped; in between, up to \p Max calls.
static inline uint64_t strideAfter(const SamplerState &S, Role What, uint64_t N,
                                   uint64_t Max) {
  if (What == Role::Pre || What == Role::Sample || S.NextSlot <= N)
    return 1;
  uint64_t ToSlot = S.NextSlot - N;
  return ToSlot < Max ? ToSlot : Max;
}

/// The stride whose untimed calls pay for the timed one: a timed call costs
/// \p Overhead cycles beyond the loop's own \p MeanCall, and the
/// accounting may cost \p BudgetPercent % of the loop's time (0: no
/// stride, every call timed).
static inline uint64_t accountingStride(uint64_t Overhead, uint64_t MeanCall,
                                        uint64_t BudgetPercent, uint64_t Cap) {
  if (BudgetPercent == 0)
    return 1;
  if (MeanCall == 0)
    MeanCall = 1;
  uint64_t K = 1 + Overhead * 100 / (BudgetPercent * MeanCall);
  return K < Cap ? K : Cap;
}

} // namespace decan::rt

#endif // DECAN_RUNTIME_SCHEDULE_H
