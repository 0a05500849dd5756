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

#include <atomic>
#include <stdint.h>

namespace decan::rt {

/// Fixed record fields; counter deltas follow at kFieldEvents + i.
enum RecordField : unsigned {
  kFieldCycles = 0,
  kFieldTrips = 1,
  kFieldFlags = 2,
  kFieldCall = 3, ///< 1-based call index of the loop on its thread
  kFieldEvents = 4
};

/// Bits of kFieldFlags.
enum RecordFlags : uint64_t {
  kFlagContextSwitch = 1, ///< excluded from statistics
  kFlagCounterFailed = 2
};

/// Welford's online mean/variance, plus min, max and the trip-count sum.
struct OnlineStats {
  uint64_t Count = 0;
  double Min = 0, Max = 0, Mean = 0, M2 = 0;
  uint64_t TripsSum = 0;

  void add(double X, uint64_t Trips) {
    ++Count;
    if (Count == 1 || X < Min)
      Min = X;
    if (Count == 1 || X > Max)
      Max = X;
    double D = X - Mean;
    Mean += D / (double)Count;
    M2 += D * (X - Mean);
    TripsSum += Trips;
  }
  /// Sample variance (n-1); 0 below two samples.
  double variance() const { return Count > 1 ? M2 / (double)(Count - 1) : 0; }
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
