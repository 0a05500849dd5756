//===- decan/tsc.h - Serialized time-stamp counter reads -------*- C -*-===//
//
// Part of decan. Header-only, C and C++, free of LLVM.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one definition of decan's timed region. The compiler plugin emits the
/// same two instruction sequences around every outlined variant; the runtime
/// uses these functions for hand-placed regions and to measure the cost of an
/// empty region at startup. Modelled on google/benchmark's src/cycleclock.h,
/// but serialized on purpose:
///
/// \code
///   start:  lfence ; rdtsc            ; earlier instructions finished first
///   stop:   rdtscp ; lfence           ; body finished before the read, and
///                                     ; later instructions wait for it
/// \endcode
///
/// Caveats (why the numbers mean what they mean):
/// * rdtsc alone is not serializing: without the lfence before it, the read
///   may execute before the preceding loads retire. On AMD, lfence is
///   dispatch-serializing only when the OS sets DE_CFG[1] (Linux does since
///   the Spectre mitigations), so the sequence is the same on Intel and AMD.
/// * rdtscp waits for earlier instructions but not for later ones; the
///   lfence after it keeps the code that follows out of the region.
/// * The TSC ticks at a constant reference rate (constant_tsc/nonstop_tsc),
///   NOT at the core clock: under turbo or power saving, TSC cycles and core
///   cycles differ. Reports therefore record the TSC frequency, and core
///   cycles come only from a hardware counter when a PMU exists.
/// * An empty region (start immediately followed by stop) does not read 0:
///   it reads the cost of the two serialized reads (about 40-60 TSC cycles on
///   current x86-64). That floor is measured at startup and reported; it is
///   never subtracted from measurements.
/// * Under virtualization rdtsc may trap or be offset per vCPU; the TSC is
///   comparable across cores only with a synchronized invariant TSC.
//===----------------------------------------------------------------------===//

#ifndef DECAN_TSC_H
#define DECAN_TSC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Start of a timed region: waits for earlier instructions, then reads TSC.
static inline __attribute__((always_inline)) uint64_t decan_tsc_start(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return ((uint64_t)hi << 32) | lo;
}

/// End of a timed region: reads TSC once the body has finished, then keeps
/// later instructions from starting before the read.
static inline __attribute__((always_inline)) uint64_t decan_tsc_stop(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("rdtscp\n\tlfence"
                       : "=a"(lo), "=d"(hi)::"rcx", "memory");
  return ((uint64_t)hi << 32) | lo;
}

#ifdef __cplusplus
}
#endif

#endif // DECAN_TSC_H
