//===- Counters.h - perf_event counters named through libpfm4 --*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Event names (perf's "cycles", "L1-dcache-load-misses", "task-clock", or
/// any libpfm4 name such as "perf::PERF_COUNT_HW_CPU_CYCLES") are encoded
/// with pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT) and opened with
/// perf_event_open for the calling thread, user space only. A PerfCounter
/// owns its fd and mmap page (move-only, like llvm-exegesis's PerfEvent);
/// read() uses rdpmc when the page says user-space reads are allowed and the
/// event is on a hardware counter, read(2) otherwise.
///
/// Machines without a PMU (KVM guests such as ours) refuse hardware events
/// with ENOENT; the caller reports that and carries on with rdtsc alone.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_COUNTERS_H
#define DECAN_RUNTIME_COUNTERS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

namespace decan::rt {

/// Encodes `Name` into `Attr` (user-space counting). On failure writes a one-
/// line reason naming the event into `Err` and returns false.
bool encodeEvent(const char *Name, perf_event_attr &Attr, char *Err,
                 size_t ErrCap);

class PerfCounter {
public:
  PerfCounter() = default;
  PerfCounter(const PerfCounter &) = delete;
  PerfCounter &operator=(const PerfCounter &) = delete;
  PerfCounter(PerfCounter &&O) noexcept {
    *this = static_cast<PerfCounter &&>(O);
  }
  PerfCounter &operator=(PerfCounter &&O) noexcept;
  ~PerfCounter() { close(); }

  /// Opens `Attr` for the calling thread on any CPU. On failure returns
  /// false and writes "perf_event_open(<Name>): <strerror>" into `Err`.
  bool open(const perf_event_attr &Attr, const char *Name, char *Err,
            size_t ErrCap);
  void close();
  bool valid() const { return Fd >= 0; }
  /// Current count; false when the read failed.
  bool read(uint64_t &Value) const;
  /// True when reads go through rdpmc (hardware counter, user access).
  bool usesRdpmc() const;

private:
  int Fd = -1;
  void *Page = nullptr;
};

/// Encodes and opens `Name` once on the calling thread to learn whether it
/// works here. Returns false with the reason in `Err`.
bool probeEvent(const char *Name, perf_event_attr &Attr, char *Err,
                size_t ErrCap);

} // namespace decan::rt

#endif // DECAN_RUNTIME_COUNTERS_H
