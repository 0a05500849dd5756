//===- Late.h - Late variants: requests and late packs ----------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A base copy for late variants (docs/rewriter.md, "Late variants") has
/// no measured copy of any loop: its loops' calls are counted (the stub's
/// countdown sends every kLateStride-th to the runtime), and from the
/// runtime's slow path, at most every few milliseconds, the runtime
///   * writes DECAN_LATE_DIR/<copy's file name>.request.K, the ids of the
///     loops that ran without copies and no earlier request named (round
///     K: after DECAN_LATE_AFTER_MS of program time, then at doubling
///     intervals), and with DECAN_LATE_WAIT_MS waits up to that long for
///     its answer: `<copy>.pack.K`, or `<copy>.nopack.K` (none);
///   * installs DECAN_LATE_DIR/<copy's file name>.pack.K once it exists
///     (decan run writes it under a temporary name and renames it; K = 0:
///     the cached pack, there at start-up): maps it at its place in the
///     copy's late range, registers its unwind rules, points each loop's
///     descriptor at its record, machine info and scratch area, and
///     registers the loop again with its copies (a new LoopState; the old
///     one, if it ran before, is superseded);
///   * at exit writes `<copy>.ran.PID`, the loops still without copies.
/// Under `decan run --lib auto` (DECAN_LATE_DLOPEN=1) the same directory
/// carries a dlopen's request for a copy of a library that has none (a
/// Python extension module, a plugin): `dlopen.PID.K.request` names the
/// library (its real path, or the name given to dlopen), and decan run
/// answers `dlopen.PID.K.copy` (the path of the copy to open instead: a
/// full copy, or a base copy whose loops get late packs as above) or
/// `dlopen.PID.K.nocopy`.
/// A loop gets its state at its first call, not at registration.
/// No signal and no thread in the program: a pack arrives at the next
/// counted call of any waiting loop.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_LATE_H
#define DECAN_RUNTIME_LATE_H

#include "State.h"
#include "decan/abi.h"

#include <stddef.h>
#include <stdint.h>

namespace decan::rt {

/// Calls of a waiting loop per runtime entry (its stub counts down).
constexpr int32_t kLateStride = 256;

/// A rewritten module with a late range registered its descriptors;
/// \p Path names its file ("" or null: the executable).
void noteLateModule(decan_rewritten_header *H, decan_loop_desc *Descs,
                    const char *Path);

/// Installs the packs that are there already (decan run's cache), so
/// their loops are measured from their first call: after a module's
/// descriptors are registered.
void installLatePacks();

/// True when \p D is a base copy's loop without copies.
inline bool isLateBaseLoop(const decan_loop_desc *D) {
  return D->variant_mask == 0 && D->late_record != 0 &&
         !(D->flags & DECAN_DESC_REGION);
}

/// A selected base-copy loop without copies gets its state at its first
/// call (registration leaves it without: most never run); null for any
/// other descriptor without state, or when the loop table is full.
LoopState *waitingLoopState(decan_loop_desc *D);

/// begin_call of a waiting loop: counts the call, may write the request or
/// install a pack that arrived. Always -1 (the original loop runs).
int lateWaitingCall(LoopState *L, decan_loop_desc *D, uint64_t Tsc);

/// TSC cycles the program waited for packs (DECAN_LATE_WAIT_MS): not the
/// program's time. And the TSC when it first waited (0: never).
uint64_t lateWaitCycles();
uint64_t lateWaitBeganTsc();
/// The same waits on CLOCK_MONOTONIC (ns), and the main thread's runqueue
/// wait (us) during them.
uint64_t lateWaitNs();
uint64_t lateWaitRunqueueUs();

/// The file a dlopen of \p File opens (DECAN_LATE_DLOPEN): asks decan run
/// for a copy and waits for the answer (DECAN_LATE_WAIT_MS, 2 minutes when
/// 0; the wait is not the program's time); the copy's path in \p Buf, or
/// \p File itself when there is none. The caller checked that \p File is
/// not loaded yet.
const char *lateLibraryCopy(const char *File, char *Buf, size_t Cap);

/// At exit: writes the request of a copy whose run ended before it was
/// due (decan run builds its pack for the next run).
void requestLatePacksAtExit();

} // namespace decan::rt

#endif // DECAN_RUNTIME_LATE_H
