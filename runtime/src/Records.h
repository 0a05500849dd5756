//===- Records.h - Per-thread record buffers, online statistics -*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One RecordBuffer per (loop, variant, thread). Only its owning thread
/// appends, so the hot path takes no lock; the report writer (any thread, or
/// a signal handler) reads records below the published count. Memory comes
/// in chunks of kChunkRecords records, allocated outside any timed region
/// (at most once per kChunkRecords calls); chunks are never freed or moved,
/// so a reader racing with the writer never sees freed memory.
///
/// Past `MaxRecords` raw records, calls go to a Welford accumulator instead
/// (bounded size whatever the program's call count).
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_RECORDS_H
#define DECAN_RUNTIME_RECORDS_H

#include "decan/abi.h"
#include "decan/abi_names.h"

#include <atomic>
#include <stdint.h>

namespace decan::rt {

/// Fixed record fields; counter deltas follow at kFieldEvents + i. The
/// pair fields hold the REF calls just before and after the sample on the
/// same thread (Schedule.h, slots), and the trip count of the original loop
/// run after a variant on the same input (0 when unknown).
enum RecordField : unsigned {
  kFieldCycles = 0,
  kFieldTrips = 1,
  kFieldFlags = 2,
  kFieldCall = 3, ///< 1-based call index of the loop on its thread
  kFieldPreCycles = 4,
  kFieldPreTrips = 5,
  kFieldPostCycles = 6,
  kFieldPostTrips = 7,
  kFieldRerunTrips = 8,
  kFieldEvents = 9
};

static_assert(kFieldEvents == DECAN_RECORD_FIXED_FIELDS,
              "RecordField follows decan_record_field_names (abi_names.h)");

/// How a timed call's time counts for the calls it stands for (its weight,
/// at an accounting stride; docs/runtime.md).
enum class Standing : uint8_t {
  Clean,    ///< its time is theirs, and the neighbour of the calls after it
  Once,     ///< disturbed (a switch, a spike): its own time counts once, the
            ///< others as the last clean call; it is no neighbour
  Neighbour ///< switched out inside it: its time holds a wait; it counts as
            ///< the last clean call, as the others do
};

/// Whole-run totals of one loop on one thread: every call while the loop is
/// active, whatever it ran. Bucket I holds calls [I*Width+1, (I+1)*Width];
/// when calls outgrow the buckets, neighbours merge and Width doubles, so
/// the run's course is kept at a fixed resolution (phases).
struct LoopTotals {
  static constexpr unsigned kBuckets = 16;
  // Weighted: a timed call at accounting stride k stands for itself and the
  // k-1 calls before it that ran inline, untimed (abi.h, countdown).
  uint64_t Calls = 0;       ///< calls of the program's loop (weighted)
  uint64_t Iterations = 0;  ///< sum of their known trip counts (weighted)
  uint64_t TripsKnown = 0;  ///< of those calls, how many had a trip count
  uint64_t Cycles = 0;      ///< sum of their TSC cycles (probes included)
  uint64_t TimedCalls = 0;  ///< calls actually timed (unweighted)
  uint64_t TimedCycles = 0; ///< their cycles (unweighted)
  uint64_t MaxStride = 1;   ///< the largest weight used
  /// Weighted calls disturbed (Standing): the calls they stood for were
  /// counted at the last clean call's cycles instead of theirs.
  uint64_t Disturbed = 0;
  /// The last clean timed call: what the calls after it count as until the
  /// next one (the report's tail).
  uint64_t LastCycles = 0, LastTrips = 0;
  /// Cycles of the calls that stood for themselves alone (weight 1), as
  /// timed: the only ones whose wall time may hold a wait for a CPU (the
  /// tool takes the run's wait out of these only).
  uint64_t SingleCycles = 0;
  uint64_t Untimed = 0;       ///< calls that ran the original untimed (nested)
  uint64_t VariantCalls = 0;  ///< sampled calls of variants other than REF
  uint64_t VariantCycles = 0; ///< their cycles: decan's own cost
  /// TSC from begin_call's entry to the last end_call's return, summed over
  /// the calls: the loop runs and what the runtime added around them.
  uint64_t InsideCycles = 0;
  /// Calls that entered a rewritten dispatcher (its first, quick call of
  /// begin_call), and of those, the ones it answered there (a thread's
  /// stride counting down): the dispatcher's own cost, outside
  /// InsideCycles, is per entry (the tool charges it, docs/tool.md).
  uint64_t DispatchCalls = 0, QuickCalls = 0;
  /// Timed REF calls outside the accounting (a slot's REF calls) with the
  /// thread's CPU time read around them: their cycles, CPU time and
  /// voluntary context switches; the same for those of them that blocked
  /// (a voluntary context switch: a futex, I/O). The gap between the two
  /// times is time off the CPU: blocked in those, else preempted.
  uint64_t ProbedCalls = 0, ProbedCycles = 0, ProbedCpuNs = 0,
           ProbedVoluntary = 0;
  uint64_t BlockedCalls = 0, BlockedCycles = 0, BlockedCpuNs = 0;
  uint64_t Width = 1;
  unsigned WidthLog2 = 0; ///< Width is a power of two: no division per call
  struct Bucket {
    uint64_t Calls = 0, Iterations = 0, Cycles = 0;
  } B[kBuckets];

  /// Adds a probed REF call: \p Cyc cycles, \p CpuNs of the thread's CPU
  /// time, \p Voluntary voluntary context switches.
  void addProbed(uint64_t Cyc, uint64_t CpuNs, uint64_t Voluntary) {
    ++ProbedCalls;
    ProbedCycles += Cyc;
    ProbedCpuNs += CpuNs;
    ProbedVoluntary += Voluntary;
    if (Voluntary) {
      ++BlockedCalls;
      BlockedCycles += Cyc;
      BlockedCpuNs += CpuNs;
    }
  }

  /// Adds one timed call of the loop (its REF run), call number \p Call,
  /// standing for \p Weight calls (itself and the untimed ones before it),
  /// counted as \p How says.
  void add(uint64_t Call, uint64_t Cyc, uint64_t Trips, uint64_t Weight = 1,
           Standing How = Standing::Clean) {
    ++TimedCalls;
    TimedCycles += Cyc;
    if (Weight > MaxStride)
      MaxStride = Weight;
    if (How != Standing::Clean && Calls) {
      // The others count as the last clean timed call, their nearest
      // neighbour (a mean would carry earlier spikes).
      uint64_t Near = LastCycles ? LastCycles : Cycles / Calls;
      if (Weight > 1)
        ++this->Disturbed;
      Cyc = How == Standing::Neighbour ? Weight * Near
                                       : Cyc + (Weight - 1) * Near;
    } else {
      LastCycles = Cyc;
      LastTrips = Trips;
      Cyc *= Weight;
    }
    if (Weight == 1 && How != Standing::Neighbour)
      SingleCycles += Cyc;
    Trips *= Weight;
    Calls += Weight;
    Cycles += Cyc;
    Iterations += Trips;
    TripsKnown += Trips != 0 ? Weight : 0;
    uint64_t I = (Call ? Call - 1 : 0) >> WidthLog2;
    while (I >= kBuckets) {
      for (unsigned K = 0; K < kBuckets / 2; ++K) {
        B[K].Calls = B[2 * K].Calls + B[2 * K + 1].Calls;
        B[K].Iterations = B[2 * K].Iterations + B[2 * K + 1].Iterations;
        B[K].Cycles = B[2 * K].Cycles + B[2 * K + 1].Cycles;
      }
      for (unsigned K = kBuckets / 2; K < kBuckets; ++K)
        B[K] = Bucket();
      Width *= 2;
      ++WidthLog2;
      I = (Call - 1) >> WidthLog2;
    }
    B[I].Calls += Weight;
    B[I].Iterations += Trips;
    B[I].Cycles += Cyc;
  }
};

/// Count, min, max and sums of the calls past the raw records. Integer
/// arithmetic only: the runtime must not raise FP flags in the program.
struct OnlineStats {
  uint64_t Count = 0;
  uint64_t Min = 0, Max = 0, Sum = 0;
  uint64_t TripsSum = 0;

  void add(uint64_t X, uint64_t Trips) {
    ++Count;
    if (Count == 1 || X < Min)
      Min = X;
    if (Count == 1 || X > Max)
      Max = X;
    Sum += X;
    TripsSum += Trips;
  }
};

class RecordBuffer {
public:
  static constexpr uint64_t kChunkRecords = 1024;

  /// `Stride` uint64 fields per record, at most `MaxRecords` records.
  /// Returns false when the chunk table cannot be allocated.
  bool init(unsigned Stride, uint64_t MaxRecords);

  /// Slot for the next record, or null when full (MaxRecords reached) or
  /// out of memory. The record becomes visible to readers at publish().
  uint64_t *next();
  void publish() {
    Count.store(Written + 1, std::memory_order_release);
    ++Written;
  }

  uint64_t size() const { return Count.load(std::memory_order_acquire); }
  const uint64_t *at(uint64_t I) const {
    return Chunks[I / kChunkRecords] + (I % kChunkRecords) * Stride;
  }
  unsigned stride() const { return Stride; }
  uint64_t capacity() const { return Max; }

private:
  uint64_t **Chunks = nullptr;
  uint64_t NumChunkSlots = 0;
  uint64_t Max = 0;
  uint64_t Written = 0;
  std::atomic<uint64_t> Count{0};
  unsigned Stride = 0;
};

/// What one thread measured for one variant of one loop.
struct VariantData {
  RecordBuffer Raw;
  /// Measured calls (recorded or online), excluded ones included.
  std::atomic<uint64_t> Calls{0};
  /// Calls flagged with a context switch.
  std::atomic<uint64_t> Excluded{0};
  /// Calls past MaxRecords that were not excluded.
  OnlineStats Online;
  uint64_t valid() const {
    return Calls.load(std::memory_order_relaxed) -
           Excluded.load(std::memory_order_relaxed);
  }
};

} // namespace decan::rt

#endif // DECAN_RUNTIME_RECORDS_H
