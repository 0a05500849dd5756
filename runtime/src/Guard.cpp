//===- Guard.cpp - A fault inside a variant copy, recovered ---------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "Guard.h"
#include "Signals.h"
#include "State.h"

#include <stdio.h>
#include <string.h>
#include <ucontext.h>

using namespace decan::rt;

extern "C" {
/// This thread's guarded call (initial-exec: the assembly below reaches it
/// through %fs, signal handlers read it without a lock or a call).
__attribute__((tls_model(
    "initial-exec"))) constinit thread_local GuardRecord __decan_guard = {};
}

static_assert(
    offsetof(GuardRecord, Armed) == 0 && offsetof(GuardRecord, Rsp) == 8 &&
        offsetof(GuardRecord, Rip) == 16 && offsetof(GuardRecord, Rbx) == 24 &&
        offsetof(GuardRecord, Rbp) == 32 && offsetof(GuardRecord, R12) == 40 &&
        offsetof(GuardRecord, R15) == 64 && offsetof(GuardRecord, Copy) == 72,
    "the offsets __decan_guard_enter writes");

// int __decan_guard_enter(void *copy) (abi.h): a setjmp into this thread's
// record, armed; 0 now, 1 when a fault in the copy resumes here.
__asm__(".text\n"
        ".globl __decan_guard_enter\n"
        ".type __decan_guard_enter,@function\n"
        ".p2align 4\n"
        "__decan_guard_enter:\n"
        ".cfi_startproc\n"
        "  movq __decan_guard@GOTTPOFF(%rip), %rax\n"
        "  movq (%rsp), %rdx\n"
        "  movq %rdx, %fs:16(%rax)\n"
        "  leaq 8(%rsp), %rdx\n"
        "  movq %rdx, %fs:8(%rax)\n"
        "  movq %rbx, %fs:24(%rax)\n"
        "  movq %rbp, %fs:32(%rax)\n"
        "  movq %r12, %fs:40(%rax)\n"
        "  movq %r13, %fs:48(%rax)\n"
        "  movq %r14, %fs:56(%rax)\n"
        "  movq %r15, %fs:64(%rax)\n"
        "  movq %rdi, %fs:72(%rax)\n"
        "  movq $1, %fs:0(%rax)\n"
        "  xorl %eax, %eax\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size __decan_guard_enter, .-__decan_guard_enter\n");

#define DECAN_GUARD_STR2(X) #X
#define DECAN_GUARD_STR(X) DECAN_GUARD_STR2(X)
// int decan_rewritten_begin_call(desc) (abi.h, decan_rewritten_header):
// begin_call for a rewritten dispatcher, which passes its frame (where its
// copies run) in r12 and its fault entry in rsi; with DECAN_QUICK_CALL in
// rdx, the quick answer that leaves the extended state alone
// (Rewritten.cpp). A variant other than REF arms the guard with both
// (Armed 2: the entry reloads every register from the frame).
// (clang-format would break the instruction lines at the macro.)
// clang-format off
__asm__(".text\n"
        ".globl decan_rewritten_begin_call\n"
        ".hidden decan_rewritten_begin_call\n"
        ".type decan_rewritten_begin_call,@function\n"
        ".p2align 4\n"
        "decan_rewritten_begin_call:\n"
        ".cfi_startproc\n"
        "  cmpq $" DECAN_GUARD_STR(DECAN_QUICK_CALL) ", %rdx\n"
        "  je decan_rewritten_quick_call\n"
        "  pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  call __decan_begin_call@PLT\n"
        "  popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  testl %eax, %eax\n"
        "  jle 1f\n"
        "  movq __decan_guard@GOTTPOFF(%rip), %rcx\n"
        "  movq %r12, %fs:8(%rcx)\n"
        "  movq %rsi, %fs:16(%rcx)\n"
        "  movq $0, %fs:72(%rcx)\n"
        "  movq $2, %fs:0(%rcx)\n"
        "1:\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size decan_rewritten_begin_call, .-decan_rewritten_begin_call\n");
// clang-format on
static_assert(DECAN_REF == 0, "the variants above 0 are armed");

/// The x87 tag word of an FXSAVE image (every register empty: 0) and the
/// top-of-stack field of its status word; EFLAGS' direction flag.
constexpr uint16_t kX87Top = 0x3800;
constexpr uint64_t kDirectionFlag = 0x400;

bool decan::rt::recoverFault(int Sig, const siginfo_t *Info, void *Context) {
  GuardRecord &G = __decan_guard;
  // Only a fault of this thread's own instructions (the kernel's codes are
  // positive; kill/raise/sigqueue send 0 or less), while a copy runs.
  if (!G.Armed || !Info || Info->si_code <= 0 || !Context ||
      (Sig != SIGSEGV && Sig != SIGBUS && Sig != SIGFPE))
    return false;
  ThreadState *T = TlsThread;
  auto *UC = static_cast<ucontext_t *>(Context);
  greg_t *R = UC->uc_mcontext.gregs;
  // The call in flight is a variant (not the original after one), and the
  // fault is at or below the guard's frame: inside the copy (a rewritten
  // copy runs at its frame) or what it calls.
  if (!T || T->Gen != Reg.Generation || T->InFlightLoop < 0 ||
      T->InFlightVariant == DECAN_REF || T->InFlightRerunOf >= 0 ||
      (uint64_t)R[REG_RSP] > G.Rsp)
    return false;
  bool Rewritten = G.Armed == 2;
  G.Armed = 0;
  G.FaultSig = Sig;
  G.FaultPc = (uint64_t)R[REG_RIP];
  G.FaultAddr = (uint64_t)(uintptr_t)Info->si_addr;
  R[REG_RSP] = (greg_t)G.Rsp;
  R[REG_RIP] = (greg_t)G.Rip;
  R[REG_EFL] = (greg_t)((uint64_t)R[REG_EFL] & ~kDirectionFlag);
  if (Rewritten)
    return true; // its fault entry reloads the rest from its frame
  R[REG_RBX] = (greg_t)G.Rbx;
  R[REG_RBP] = (greg_t)G.Rbp;
  R[REG_R12] = (greg_t)G.R12;
  R[REG_R13] = (greg_t)G.R13;
  R[REG_R14] = (greg_t)G.R14;
  R[REG_R15] = (greg_t)G.R15;
  R[REG_RAX] = 1;
  // A call returns with the x87 stack empty and DF clear (the SysV ABI);
  // the copy may have left neither so.
  if (UC->uc_mcontext.fpregs) {
    UC->uc_mcontext.fpregs->ftw = 0;
    UC->uc_mcontext.fpregs->swd &= (uint16_t)~kX87Top;
  }
  return true;
}

GuardFault decan::rt::takeFault() {
  GuardRecord &G = __decan_guard;
  G.Armed = 0;
  GuardFault F{G.FaultSig, G.FaultPc, G.FaultAddr, G.Copy};
  G.FaultSig = 0;
  return F;
}

void decan::rt::disarmGuard() {
  __decan_guard.Armed = 0;
  __decan_guard.FaultSig = 0;
}

/// Code this far past a copy's entry is taken for the copy's own (a
/// copy is one loop and its exits: a few KiB at most).
constexpr uint64_t kCopySpan = 1 << 16;

void decan::rt::describeFault(const GuardFault &F, char *Buf, size_t Size) {
  const char *Sig = signalName(F.Sig);
  if (F.Copy && F.Pc >= F.Copy && F.Pc - F.Copy < kCopySpan)
    snprintf(Buf, Size, "%s at +0x%llx", Sig,
             (unsigned long long)(F.Pc - F.Copy));
  else if (!F.Copy) // a rewritten copy: where it is not known here
    snprintf(Buf, Size, "%s at 0x%llx", Sig, (unsigned long long)F.Pc);
  else
    snprintf(Buf, Size, "%s in a call it makes", Sig);
  if (F.Sig != SIGFPE) {
    size_t N = strnlen(Buf, Size);
    snprintf(Buf + N, Size - N, " (address 0x%llx)",
             (unsigned long long)F.Addr);
  }
}

bool decan::rt::noteFault(LoopState &L, int V, const GuardFault &F) {
  uint32_t Bit = 1u << V;
  if (L.FaultClaimed.fetch_or(Bit, std::memory_order_relaxed) & Bit)
    return false;
  describeFault(F, L.FaultText[V], sizeof(L.FaultText[V]));
  L.FaultedMask.fetch_or(Bit, std::memory_order_release);
  L.DisabledMask.fetch_or(Bit, std::memory_order_relaxed);
  return true;
}
