//===- Guard.h - A fault inside a variant copy, recovered -------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Variant copies never write program memory, but what they read can go
/// past what REF reads (a capped copy whose exit reads what REF's stores
/// would have written runs on until its cap) and what they divide by can
/// be a value REF never divides by. Such a fault is decan's, not the
/// program's: the call is abandoned and the program goes on as if the copy
/// had returned.
///
/// The plugin's measured call (`decan.measure_call`, one per module) calls
/// `__decan_guard_enter(copy)`
/// (abi.h), a setjmp of its own, right before it calls a copy other than
/// REF: it keeps the caller's callee-saved registers, stack pointer and
/// return address in this thread's GuardRecord and returns 0. A SIGSEGV,
/// SIGBUS or SIGFPE the kernel raises in that thread while the record is
/// armed and the thread's call in flight is that variant (recoverFault,
/// from the runtime's handler) rewrites the signal's context so that the
/// handler's return resumes there with 1, the x87 stack empty and the
/// direction flag clear; sigreturn restores the signal mask. The measure
/// function then calls end_call as after the copy: end_call sees the fault
/// (takeFault), drops the call and the variant (noteFault), restores the FP
/// environment and errno, and returns nonzero, so REF runs on the same
/// input and the program's results are its own.
///
/// A rewritten dispatcher calls begin_call (decan_rewritten_begin_call
/// here) with its frame in r12 and its fault entry in rsi; a variant
/// other than REF arms the record with them, and a fault resumes the
/// dispatcher at that entry with the stack at its frame: the call ends as
/// a capped one (end_call as above; the dispatcher reruns REF from the
/// entry state it saved).
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_GUARD_H
#define DECAN_RUNTIME_GUARD_H

#include "decan/abi.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

namespace decan::rt {

struct LoopState;

/// The rewritten dispatchers' begin_call (Guard.cpp; abi.h,
/// decan_rewritten_header): arms the guard with the dispatcher's frame and
/// fault entry when it returns a variant other than REF.
extern "C" int decan_rewritten_begin_call(decan_loop_desc *Desc);
/// Its quick answer (DECAN_QUICK_CALL, Rewritten.cpp): -1 for a call that
/// only counts a thread's stride down, else 1. General registers only: the
/// dispatcher has not saved the extended state yet.
extern "C"
    __attribute__((visibility("hidden"), target("general-regs-only"))) int
    decan_rewritten_quick_call(decan_loop_desc *Desc);

/// One thread's guarded call. The first fields are written by the
/// assembly of `__decan_guard_enter` (Guard.cpp) at fixed offsets.
struct GuardRecord {
  /// A copy runs under the guard: 1 from __decan_guard_enter (the
  /// registers below resume the measured call), 2 from a rewritten
  /// dispatcher (Rsp is its frame, Rip its fault entry, which reloads the
  /// rest from the frame).
  uint64_t Armed;
  uint64_t Rsp; ///< the caller's stack pointer after the return
  uint64_t Rip; ///< the return address
  uint64_t Rbx, Rbp, R12, R13, R14, R15;
  uint64_t Copy; ///< the copy's entry (for the fault's offset)
  /// Set by the handler: the signal, where it hit, the address it named
  /// (si_addr); cleared by end_call (takeFault).
  int32_t FaultSig;
  uint64_t FaultPc, FaultAddr;
};

/// One fault as end_call hands it on.
struct GuardFault {
  int Sig;
  uint64_t Pc, Addr, Copy;
};

/// Whether \p Sig, raised by the kernel in this thread with context
/// \p Context, hit a guarded copy; if so the context now resumes at its
/// guard with the call marked faulted. Async-signal-safe.
bool recoverFault(int Sig, const siginfo_t *Info, void *Context);

/// Disarms this thread's guard; returns the fault of the call that just
/// ended, if it had one (Sig 0: none), and forgets it.
GuardFault takeFault();

/// Disarms this thread's guard (its call was left or dropped).
void disarmGuard();

/// "SIGSEGV at +0x2a (address 0x7f..)" in \p Buf (\p Size bytes): the
/// offset from the copy's entry, or "in a call it makes" when the fault hit
/// code outside the copy; the absolute address for a rewritten copy (no
/// entry known).
void describeFault(const GuardFault &F, char *Buf, size_t Size);

/// Takes variant \p V of \p L out of the rotation for fault \p F: its
/// words kept for the report (the first fault only); true for the call
/// that dropped it (that one says so in a warning).
bool noteFault(LoopState &L, int V, const GuardFault &F);

} // namespace decan::rt

#endif // DECAN_RUNTIME_GUARD_H
