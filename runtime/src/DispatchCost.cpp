//===- DispatchCost.cpp - A rewritten dispatcher's cost, at start-up ------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A rewritten binary's dispatcher (docs/rewriter.md) saves the program's
/// state, asks the runtime, and restores it, around every call that reaches
/// the runtime; the runtime times only what lies between its begin_call and
/// its end_call. What lies outside is measured here once, on a replica of
/// the dispatcher's instructions (the same flag, register and extended
/// state saves, calls and restores), so that the tool can count it as
/// decan's (docs/tool.md): a full entry (a timed call: the state saved
/// before begin_call and restored after end_call) and a quick one (a call
/// the runtime answers without the extended state: a thread's stride
/// counting down).
//===----------------------------------------------------------------------===//

#include "MachineFacts.h"
#include "State.h"

#include "decan/tsc.h"

#include <algorithm>

// void decan_dispatch_replica(void *frame, long n, int full): n passes of
// the dispatcher's entry and exit around two calls (full) or the quick
// call alone, with the frame layout of mc-rewriter/lib/Dispatcher.cpp
// (flags at 48, GPRs at 64, the xsave areas from 320 on, 64-aligned; a
// pointer to the quick answer's chain at 16). Keeps the callee-saved
// registers.
__asm__(".text\n"
        ".type decan_dispatch_replica_call,@function\n"
        ".p2align 4\n"
        "decan_dispatch_replica_call:\n" // the quick answer's loads
        "  movq 16(%rdi), %rcx\n"
        "  movq (%rcx), %rcx\n"
        "  movq 8(%rcx), %rcx\n"
        "  movq (%rcx), %rcx\n"
        "  incq 24(%rcx)\n"
        "  decq 32(%rcx)\n"
        "  movl $-1, %eax\n"
        "  ret\n"
        ".size decan_dispatch_replica_call, .-decan_dispatch_replica_call\n"
        ".type decan_dispatch_replica,@function\n"
        ".p2align 4\n"
        "decan_dispatch_replica:\n"
        "  pushq %rbx\n  pushq %rbp\n  pushq %r12\n"
        "  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rdi, %r13\n  movq %rsi, %r14\n  movl %edx, %r15d\n"
        "1:\n"
        "  movq %rax, 64(%r13)\n"
        "  pushfq\n  popq 48(%r13)\n"
        "  movq %rbx, 72(%r13)\n  movq %rcx, 80(%r13)\n"
        "  movq %rdx, 88(%r13)\n  movq %rsi, 96(%r13)\n"
        "  movq %rdi, 104(%r13)\n  movq %rbp, 112(%r13)\n"
        "  movq %r8, 120(%r13)\n  movq %r9, 128(%r13)\n"
        "  movq %r10, 136(%r13)\n  movq %r11, 144(%r13)\n"
        "  movq %r12, 152(%r13)\n  movq %r13, 160(%r13)\n"
        "  movq %r14, 168(%r13)\n  movq %r15, 176(%r13)\n"
        "  movq %r13, 304(%r13)\n"
        "  movq 304(%r13), %rcx\n  movslq 0(%rcx), %rdx\n"
        "  addq %rcx, %rdx\n  movq %rdx, 312(%r13)\n"
        "  movq %r13, %rdi\n  movl $0x4b435551, %edx\n"
        "  movq %rsp, %r12\n  andq $-16, %rsp\n"
        "  call decan_dispatch_replica_call\n"
        "  movq %r12, %rsp\n"
        "  testl %r15d, %r15d\n  jz 2f\n"
        "  leaq 383(%r13), %rbx\n  andq $-64, %rbx\n"
        "  movq $0, 512(%rbx)\n  movq $0, 520(%rbx)\n"
        "  movq $0, 528(%rbx)\n  movq $0, 536(%rbx)\n"
        "  movq $0, 544(%rbx)\n  movq $0, 552(%rbx)\n"
        "  movq $0, 560(%rbx)\n  movq $0, 568(%rbx)\n"
        "  movl $0xe7, %eax\n  xorl %edx, %edx\n"
        "  xsave64 (%rbx)\n"
        "  movq %r13, %rdi\n"
        "  movq %rsp, %r12\n  andq $-16, %rsp\n"
        "  call decan_dispatch_replica_call\n" // begin_call
        "  movq %r12, %rsp\n"
        "  movq %r13, %rdi\n" // (the timed copy and end_call's stay)
        "  movq %rsp, %r12\n  andq $-16, %rsp\n"
        "  call decan_dispatch_replica_call\n" // end_call's return
        "  movq %r12, %rsp\n"
        "  movl $0xe7, %eax\n  xorl %edx, %edx\n"
        "  xrstor64 (%rbx)\n"
        "  stmxcsr 28(%r13)\n  ldmxcsr 28(%r13)\n"
        "2:\n"
        "  leaq 3f(%rip), %rdx\n  movq %rdx, 32(%r13)\n"
        "  movq 64(%r13), %rax\n  movq 72(%r13), %rbx\n"
        "  movq 80(%r13), %rcx\n  movq 88(%r13), %rdx\n"
        "  movq 96(%r13), %rsi\n  movq 104(%r13), %rdi\n"
        "  movq 112(%r13), %rbp\n  movq 120(%r13), %r8\n"
        "  movq 128(%r13), %r9\n  movq 136(%r13), %r10\n"
        "  movq 144(%r13), %r11\n  movq 152(%r13), %r12\n"
        "  movq 168(%r13), %r14\n  movq 176(%r13), %r15\n"
        "  movq 160(%r13), %r13\n"
        "  pushq 48(%r13)\n  popfq\n"
        "  jmp *32(%r13)\n"
        "3:\n"
        "  decq %r14\n  jnz 1b\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n"
        "  popq %r12\n  popq %rbp\n  popq %rbx\n"
        "  ret\n"
        ".size decan_dispatch_replica, .-decan_dispatch_replica\n");

extern "C" void decan_dispatch_replica(void *Frame, long N, int Full);

namespace decan::rt {
namespace {

/// The replica's frame: as the dispatcher's (two xsave areas), and the
/// quick answer's chain of pointers (from 16).
struct alignas(64) ReplicaFrame {
  unsigned char Bytes[320 + 2 * 2752 + 64];
};
constinit ReplicaFrame Replica = {};

/// Median cycles per pass of \p Full entries (or quick ones), in 1/100
/// cycle: 9 batches of kPasses, after one to warm up.
uint64_t replicaCentiCycles(int Full) {
  constexpr long kPasses = 64;
  uint64_t *Words = reinterpret_cast<uint64_t *>(Replica.Bytes);
  // 16: -> the chain at 192, where the dispatcher keeps its exit GPRs (the
  // replica never writes there).
  Words[2] = (uint64_t)(uintptr_t)&Words[24];
  Words[24] = (uint64_t)(uintptr_t)&Words[24];
  Words[25] = (uint64_t)(uintptr_t)&Words[24];
  decan_dispatch_replica(Replica.Bytes, kPasses, Full);
  uint64_t S[9];
  for (uint64_t &X : S) {
    uint64_t A = decan_tsc_start();
    decan_dispatch_replica(Replica.Bytes, kPasses, Full);
    X = decan_tsc_stop() - A;
  }
  std::sort(S, S + 9);
  return S[4] * 100 / kPasses;
}

} // namespace

void measureDispatchCost() {
  Facts.DispatchCentiCycles = replicaCentiCycles(1);
  Facts.DispatchQuickCentiCycles = replicaCentiCycles(0);
}

} // namespace decan::rt
