//===- Sampling.h - The budget, stride and record of timed calls -*- C++
//-*-===//
//
// Part of decan. Free of LLVM; no exceptions. Internal to the runtime: what
// the entry points of loops (Runtime.cpp) and regions (Regions.cpp) share on
// their hot path -- the sampling budget, outliers, the accounting stride,
// the record of one sample, decan's own clock. Header-only with internal
// linkage, so that each of the two files inlines them as one file did.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_SAMPLING_H
#define DECAN_RUNTIME_SAMPLING_H

#include "Records.h"
#include "Schedule.h"
#include "State.h"

#include <stdint.h>

namespace decan::rt {

/// Sampling budget: slots may cost at most 1/kSlotBudgetInverse of a loop's
/// time once the run is past its first K*N slots (Schedule.h).
constexpr uint64_t kSlotBudgetInverse = 50;
/// The largest accounting stride (abi.h, countdown; Config::AccountBudget).
constexpr uint64_t kMaxStride = 1u << 16;
/// Timed calls before a stride is first considered, and between updates.
constexpr uint64_t kStrideMinCalls = 16, kStrideUpdateMask = 63;

/// The mean gap between slots that keeps their cost within the budget: a
/// slot adds one variant call (about a mean call) and its fixed cost.
static inline uint64_t slotGapCap(const ThreadLoop *TL) {
  uint64_t Mean = TL->Tot.Calls ? TL->Tot.Cycles / TL->Tot.Calls : 0;
  if (Mean == 0)
    Mean = 1;
  return (Mean + Facts.SlotFixedCycles) * kSlotBudgetInverse / Mean;
}

/// A call more than 4x slower than the loop's mean so far (per iteration
/// when trip counts are known): its time would be multiplied by its weight.
static inline bool isOutlier(const LoopTotals &Tot, uint64_t Cycles,
                             uint64_t Trips) {
  if (Tot.TimedCalls < kStrideMinCalls)
    return false;
  using Wide = unsigned __int128;
  if (Trips && Tot.Iterations)
    return (Wide)Cycles * Tot.Iterations > (Wide)4 * Tot.Cycles * Trips;
  return (Wide)Cycles * Tot.Calls > (Wide)4 * Tot.Cycles;
}

/// The largest accounting stride worth its cost (Schedule.h): the runtime's
/// measured cost per timed call, plus the stub's two probes around it.
static inline uint64_t strideCap(const ThreadLoop *TL) {
  const LoopTotals &Tot = TL->Tot;
  uint64_t Own = Tot.TimedCycles + Tot.VariantCycles;
  uint64_t Inside = Tot.InsideCycles > Own ? Tot.InsideCycles - Own : 0;
  return accountingStride(Inside / Tot.TimedCalls + 2 * Facts.ProbeMedian,
                          Tot.Cycles / Tot.Calls, Cfg.AccountBudget,
                          kMaxStride);
}

/// How the program's loop's timed call counts (Standing). A weighted call
/// switched out (\p Switched: since the last timed call; a slot's, inside
/// it) and 4x the loop's mean was preempted inside it: it counts as its
/// neighbour. A switch or an isolated spike (an interrupt, caches a switch
/// left cold) counts once, the calls it stands for as the neighbour; two
/// undisturbed spikes in a row are a new phase. A call standing for itself
/// counts as timed (the tool takes the run's wait out of those), and is a
/// neighbour only when undisturbed (\p Disturbed: switched out, faulted).
static inline Standing standing(ThreadLoop *TL, uint64_t Cycles, uint64_t Trips,
                                bool Switched, bool Disturbed) {
  bool Outlier = isOutlier(TL->Tot, Cycles, Trips);
  if (TL->Weight == 1)
    return Disturbed || Outlier ? Standing::Once : Standing::Clean;
  bool Spike = Outlier && !TL->PrevOutlier;
  TL->PrevOutlier = Outlier && !Switched;
  if (Switched && Outlier)
    return Standing::Neighbour;
  return Switched || Spike ? Standing::Once : Standing::Clean;
}

/// Records one sample; returns its raw record (null when it went to the
/// online statistics), whose pair fields the calls after it complete.
static inline uint64_t *record(ThreadLoop *TL, int V, uint64_t Cycles,
                               uint64_t Trips, uint64_t Call, uint64_t Flags,
                               bool EvFail, const uint64_t *EvStart,
                               const uint64_t *EvEnd) {
  VariantData &VD = TL->V[V];
  bool Switched = Flags & DECAN_SAMPLE_SWITCHED;
  Flags |= EvFail ? DECAN_SAMPLE_COUNTER_FAILED : 0;
  uint64_t *R = VD.Raw.next();
  if (R) {
    R[kFieldCycles] = Cycles;
    R[kFieldTrips] = Trips;
    R[kFieldCall] = Call;
    bool HasPre = TL->PreCall && TL->PreCall + 1 == Call;
    R[kFieldPreCycles] = HasPre ? TL->PreCycles : 0;
    R[kFieldPreTrips] = HasPre ? TL->PreTrips : 0;
    R[kFieldPostCycles] = 0;
    R[kFieldPostTrips] = 0;
    R[kFieldRerunTrips] = 0;
    Flags |= (HasPre ? (TL->PreSwitched ? DECAN_SAMPLE_PRE_SWITCHED : 0)
                     : DECAN_SAMPLE_NO_PRE) |
             DECAN_SAMPLE_NO_POST |
             (V != DECAN_REF ? DECAN_SAMPLE_NO_RERUN : 0);
    R[kFieldFlags] = Flags;
    for (unsigned E = 0; E < Ctr.NumEvents; ++E)
      R[kFieldEvents + E] = EvEnd[E] - EvStart[E];
    VD.Raw.publish();
  } else if (!Switched) {
    VD.Online.add(Cycles, Trips);
  }
  if (Switched)
    VD.Excluded.store(VD.Excluded.load(std::memory_order_relaxed) + 1,
                      std::memory_order_relaxed);
  VD.Calls.store(VD.Calls.load(std::memory_order_relaxed) + 1,
                 std::memory_order_release);
  return R;
}

/// Unserialized TSC read: cheap, for decan's own cost, not for loops.
static inline uint64_t rawTsc() {
  uint32_t Lo, Hi;
  __asm__ __volatile__("rdtsc" : "=a"(Lo), "=d"(Hi));
  return ((uint64_t)Hi << 32) | Lo;
}

} // namespace decan::rt

#endif // DECAN_RUNTIME_SAMPLING_H
