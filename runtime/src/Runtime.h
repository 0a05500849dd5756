//===- Runtime.h - Internal interface of the decan runtime -----*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the unit tests and the benchmark reach beyond the C ABI. Programs
/// use only decan/abi.h (instrumented code) and decan/runtime.h (people).
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_RUNTIME_H
#define DECAN_RUNTIME_RUNTIME_H

#include "Config.h"
#include "decan/abi.h"

#include <link.h>
#include <stdint.h>

/// The linkage of the runtime's C entry points (abi.h, runtime.h), the only
/// symbols it exports.
#define DECAN_API extern "C" __attribute__((visibility("default")))

namespace decan::rt {

/// Drops every loop, thread record and setting and starts again from
/// `GetEnv` (tests only: no other thread may be inside the runtime).
/// Signal handlers and the exit hook are installed once, on the first
/// active initialization.
void reinitializeForTesting(GetEnvFn GetEnv);

/// Writes the report now with `Status` ("complete", "flushed", ...).
bool writeReportNow(const char *Status);
/// Path of the report this process writes (valid once initialized).
const char *reportPath();

/// Capacity of the loop table (loops and regions together); loops
/// registered past it stay inactive.
unsigned maxLoops();

/// Startup facts.
double tscHz();
uint64_t probeMinCycles();
uint64_t probeMedianCycles();
bool countersAvailable();
const char *countersMessage();
unsigned numWorkingEvents();

/// One raw record as the report would show it (tests).
using RecordVisitor = void (*)(void *Ctx, uint32_t Thread, int32_t Tid,
                               int Variant, const uint64_t *Record,
                               unsigned Stride);
/// Calls `Fn` for every raw record of loop `Id`; returns false when the loop
/// is not registered.
bool visitRecords(const char *Id, RecordVisitor Fn, void *Ctx);

/// Fixes up and registers one rewritten binary's header; false when it is
/// not a valid, unrelocated DECANRW1 header.
bool relocateRewritten(decan_rewritten_header *H, const char *Path = nullptr);
/// Looks for DECANRW1 headers at the start of the writable PT_LOAD segments
/// of one loaded object; returns how many were relocated.
unsigned scanSegments(uintptr_t Base, const ElfW(Phdr) * Phdrs, unsigned N,
                      const char *Path = nullptr);

/// Drops, untimed, this thread's measured call in flight when its
/// begin_call ran at or below stack address \p Frame: code running at
/// \p Frame is outside it (an exception or a longjmp left it).
void dropCallLeftBelow(uintptr_t Frame);

} // namespace decan::rt

#endif // DECAN_RUNTIME_RUNTIME_H
