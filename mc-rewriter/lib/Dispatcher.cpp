//===- Dispatcher.cpp - The rewriter's loop dispatcher (LoopEmitter) ------===//
//
// Part of decan. Emits, per rewritten loop, the stub at the loop header,
// the relocated original loop, the measured copies and the dispatcher that
// saves the program's state, asks the runtime, runs a copy and restores the
// state (docs/rewriter.md). The rewrite driver (RewriteInstance.cpp) calls
// emitLoopDispatcher() once per loop.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"
#include "CodeBuffer.h"

#include "decan/Rewriter/LoopCopy.h"
#include "decan/abi.h"

#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/MathExtras.h"

#include <cstddef>
#include <functional>

using namespace llvm;
using namespace decan::rewriter;

namespace {

// X86 condition codes: CC_E, CC_NE, ... (X86::CondCode order).
using enum decan::X86Target::CondCode;

//===----------------------------------------------------------------------===//
// The measured-call frame, below the red zone of the interrupted code:
//
//   orig rsp - 128 .. orig rsp   red zone (untouched)
//   new rsp = orig rsp - FrameDelta
//   [new rsp + 0]   variant index      [+8]  TSC at entry
//   [+16] TSC at exit                   [+24] exit index  [+28] MXCSR
//   [+32] indirect jump target          [+40] xsave area pointer
//   [+48] flags at entry                [+56] flags at exit
//   [+64] 15 GPRs at entry              [+184] 15 GPRs at exit
//   [+304] two 64-byte aligned xsave areas
//
// Variants run with rsp = new rsp (so a signal handler's frame lands below
// the saved state) and their rsp-relative operands displaced by FrameDelta.
//===----------------------------------------------------------------------===//
// Offsets in the measured-call frame (above).
constexpr int64_t OffVariant = 0;      ///< variant index
constexpr int64_t OffTscEntry = 8;     ///< TSC at entry
constexpr int64_t OffTscExit = 16;     ///< TSC at exit
constexpr int64_t OffExitIndex = 24;   ///< exit index
constexpr int64_t OffMxcsr = 28;       ///< the program's MXCSR
constexpr int64_t OffJumpTarget = 32;  ///< indirect jump target
constexpr int64_t OffXSavePtr = 40;    ///< xsave area pointer
constexpr int64_t OffFlagsEntry = 48;  ///< flags at entry
constexpr int64_t OffFlagsExit = 56;   ///< flags at exit
constexpr int64_t OffGPRsEntry = 64;   ///< 15 GPRs at entry
constexpr int64_t OffGPRsExit = 184;   ///< 15 GPRs at exit
constexpr int64_t OffXSaveAreas = 304; ///< two 64-byte aligned xsave areas
constexpr int64_t XSaveSize = 2752; // >= 2688: x87+SSE+AVX+AVX-512, 64-multiple
constexpr int64_t FrameSize = alignTo(OffXSaveAreas + 2 * XSaveSize + 64, 16);
constexpr int64_t FrameDelta = FrameSize + 128;

class LoopEmitter {
public:
  LoopEmitter(const decan::X86Knowledge &X86, CodeBuffer &CB, Asm &A,
              PlannedLoop &P)
      : X86(X86), CB(CB), A(A), P(P), L(*P.L) {}

  void emit();

private:
  CodeTarget desc(uint32_t Field = 0) const {
    return CodeTarget::desc(P.Slot, Field);
  }
  CodeTarget active() const { return desc(offsetof(decan_loop_desc, active)); }
  CodeTarget countdown() const {
    return desc(offsetof(decan_loop_desc, countdown));
  }
  /// Emits one copy; exits go where \p Exit says.
  void emitCopy(const LoopCopy &C, bool Measured,
                const std::function<CodeTarget(uint64_t)> &Exit);
  void saveGPRs(int64_t Off, unsigned Skip = 0);
  void restoreGPRs(int64_t Off);
  void callRuntime(uint64_t HeaderFieldOff);
  void emitTrips();

  const decan::X86Knowledge &X86;
  CodeBuffer &CB;
  Asm &A;
  PlannedLoop &P;
  const LoopCandidate &L;
};

void LoopEmitter::saveGPRs(int64_t Off, unsigned Skip) {
  for (unsigned K = 0; K < A.GPRs.size(); ++K)
    if (!(Skip & (1u << K)))
      A.store(A.RSP, Off + 8 * K, A.GPRs[K]);
}

void LoopEmitter::restoreGPRs(int64_t Off) {
  for (unsigned K = 0; K < A.GPRs.size(); ++K)
    A.load(A.GPRs[K], A.RSP, Off + 8 * K);
}

void LoopEmitter::callRuntime(uint64_t HeaderFieldOff) {
  // The ABI wants a 16-byte aligned stack at the call; r12 is callee-saved.
  A.movrr(A.R12, A.RSP);
  A.andImm(A.RSP, -16);
  A.callRip(CodeTarget::data(HeaderFieldOff));
  A.movrr(A.RSP, A.R12);
}

/// rcx <- trip count of the timed call: (induction register at exit - at
/// entry) / step, from the two saved GPR sets (outside the timed region,
/// nothing added to the loop); 0 when the loop has no induction register
/// or the quotient is negative. Clobbers rax, rdx (saved already).
void LoopEmitter::emitTrips() {
  auto Zero = [&] { CB.inst(X86.createXor32(A.ECX, A.ECX)); };
  int K = -1;
  for (unsigned G = 0; G < A.GPRs.size() && P.V.IndReg; ++G)
    if (X86.regInfo().isSuperRegisterEq(P.V.IndReg, A.GPRs[G]))
      K = int(G);
  if (K < 0 || P.V.IndStep == 0 || P.V.IndStep != int32_t(P.V.IndStep)) {
    Zero();
    return;
  }
  A.load(A.RAX, A.RSP, OffGPRsExit + 8 * K);
  CB.inst(X86.createSubMem(A.RAX, A.RSP, OffGPRsEntry + 8 * K));
  if (P.V.Ind32) // a 32-bit counter: the difference modulo 2^32
    CB.inst(X86.createSignExtend32(A.RAX, A.EAX));
  if (P.V.IndStep == -1) {
    CB.inst(X86.createNeg(A.RAX));
  } else if (P.V.IndStep != 1) {
    CB.inst(X86.createMoveImm(A.RCX, P.V.IndStep));
    A.simple(A.CQO);
    CB.inst(X86.createIDiv(A.RCX));
  }
  A.movrr(A.RCX, A.RAX);
  unsigned Done = CB.newLabel();
  CB.inst(X86.createTestSelf(A.RCX));
  CB.jcc(CC_NS, CodeTarget::label(Done));
  Zero();
  CB.bind(Done);
}

void LoopEmitter::emitCopy(const LoopCopy &C, bool Measured,
                           const std::function<CodeTarget(uint64_t)> &Exit) {
  std::map<uint64_t, unsigned> Labels;
  for (const CopyBlock &B : C.Blocks)
    Labels[B.Start] = CB.newLabel();
  auto To = [&](uint64_t Addr) {
    auto It = Labels.find(Addr);
    return It != Labels.end() ? CodeTarget::label(It->second) : Exit(Addr);
  };
  // Same offset modulo 64 as the original header: REF and every variant
  // see the original's cache-line layout.
  CB.align(64, L.Header % 64);
  for (size_t K = 0; K < C.Blocks.size(); ++K) {
    const CopyBlock &B = C.Blocks[K];
    CB.bind(Labels[B.Start]);
    for (const CopyInst &CI : B.Instrs) {
      if (CI.IsBranch) {
        bool Cond =
            CI.MI.getOpcode() == X86.JCC_1 || CI.MI.getOpcode() == X86.JCC_4;
        CB.branch(Cond ? X86.JCC_4 : X86.JMP_4,
                  Cond ? int(CI.MI.getOperand(1).getImm()) : -1,
                  To(CI.BranchTarget));
        continue;
      }
      if (CI.IsCall) {
        CB.call(CodeTarget::abs(CI.CallTarget));
        continue;
      }
      MCInst MI = CI.MI;
      int Mem = X86.addressOperandIndex(MI);
      if (Measured && Mem >= 0 && MI.getOperand(Mem).isReg() &&
          MI.getOperand(Mem).getReg() == X86.RSP)
        MI.getOperand(Mem + 3) =
            MCOperand::createImm(MI.getOperand(Mem + 3).getImm() + FrameDelta);
      if (CI.HasScratch)
        CB.instRip(MI, CodeTarget::scratch(P.Slot, CI.ScratchOff));
      else if (CI.HasRip)
        CB.instRip(MI, CodeTarget::abs(CI.RipTarget));
      else
        CB.inst(MI);
    }
    if (B.FallThrough &&
        (K + 1 == C.Blocks.size() || C.Blocks[K + 1].Start != B.FallThrough))
      CB.jmp(To(B.FallThrough));
  }
}

void LoopEmitter::emit() {
  unsigned OrigLabel = CB.newLabel(), Measured = CB.newLabel(),
           RestoreOrig = CB.newLabel(), RerunRef = CB.newLabel(),
           Common = CB.newLabel(), VTable = CB.newLabel(),
           ETable = CB.newLabel();
  // Exit addresses, in a fixed order.
  std::vector<uint64_t> Exits;
  for (const LoopBlock &B : L.Blocks)
    for (uint64_t S : B.Succs)
      if (!L.contains(S) && !is_contained(Exits, S))
        Exits.push_back(S);

  // --- Stub: one load and branch when the descriptor is inactive; an
  // active one goes to the runtime on every countdown-th call (abi.h).
  CB.align(16);
  CB.bind(P.StubLabel);
  // active == 0: to Skip; active != 2: to Measure; 2: count down, to Skip
  // while the countdown stays above 0 (abi.h).
  auto Test = [&](CodeTarget Skip, CodeTarget Measure) {
    A.cmpRipImm(active(), 0);
    CB.jcc(CC_E, Skip);
    A.cmpRipImm(active(), 2);
    CB.jcc(CC_NE, Measure);
    A.decRip(countdown());
    CB.jcc(CC_G, Skip);
  };
  if (L.FlagsLiveIn) {
    unsigned Inline = CB.newLabel(), MFlags = CB.newLabel();
    A.lea(A.RSP, A.RSP, -128);
    A.simple(A.PUSHF);
    Test(CodeTarget::label(Inline), CodeTarget::label(MFlags));
    CB.bind(MFlags);
    A.simple(A.POPF);
    A.lea(A.RSP, A.RSP, 128);
    CB.jmp(CodeTarget::label(Measured));
    CB.bind(Inline);
    A.simple(A.POPF);
    A.lea(A.RSP, A.RSP, 128);
    CB.jmp(CodeTarget::label(OrigLabel));
  } else {
    Test(CodeTarget::label(OrigLabel), CodeTarget::label(Measured));
    CB.jmp(CodeTarget::label(Measured));
  }

  // --- The relocated original loop: exits return to the original code.
  unsigned OrigBody = CB.newLabel();
  (void)OrigBody;
  {
    // Bind OrigLabel at the copy's header (after its alignment).
    LoopCopy C = P.V.Copies[DECAN_REF];
    CB.align(64, L.Header % 64);
    CB.bind(OrigLabel);
    P.OrigBegin = OrigLabel;
    emitCopy(C, /*Measured=*/false,
             [](uint64_t Addr) { return CodeTarget::abs(Addr); });
    P.OrigEnd = CB.newLabel();
    CB.bind(P.OrigEnd);
  }

  // --- Measured path: save the whole state, ask the runtime.
  CB.align(16);
  CB.bind(Measured);
  A.lea(A.RSP, A.RSP, -FrameDelta);
  A.simple(A.PUSHF);
  A.popMem(A.RSP, OffFlagsEntry);
  saveGPRs(OffGPRsEntry);
  A.lea(A.RBX, A.RSP, OffXSaveAreas + 63);
  A.andImm(A.RBX, -64);
  A.store(A.RSP, OffXSavePtr, A.RBX);
  for (int64_t Area : {int64_t(0), XSaveSize})
    for (int K = 0; K < 8; ++K) // XSAVE leaves the header's reserved bytes
      A.storeImm(A.RBX, Area + 512 + 8 * K, 0, false);
  A.xsaveLike(A.XSAVE, A.RBX);
  A.leaRip(A.RDI, desc());
  callRuntime(offsetof(decan_rewritten_header, begin_call));
  CB.inst(X86.createSignExtend32(A.RAX, A.EAX));
  A.store(A.RSP, OffVariant, A.RAX);
  A.testSelf(A.EAX);
  CB.jcc(CC_S, CodeTarget::label(RestoreOrig));
  A.cmpImm(A.EAX, DECAN_NUM_VARIANTS - 1);
  CB.jcc(CC_A, CodeTarget::label(RestoreOrig));
  // The runtime has set the FP environment for the timed call: keep its
  // MXCSR across the state restore.
  A.mxcsr(A.STMXCSR, A.RSP, OffMxcsr);
  A.leaRip(A.RCX, CodeTarget::label(VTable));
  A.tableTarget(A.RDX, A.RCX, A.RAX);
  A.store(A.RSP, OffJumpTarget, A.RDX);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.xsaveLike(A.XRSTOR, A.RBX);
  A.mxcsr(A.LDMXCSR, A.RSP, OffMxcsr);
  // Start the clock, restore the entry registers and flags, enter the copy
  // whose address is at OffJumpTarget (the measured path and the rerun share
  // it).
  auto StartTimedCopy = [&] {
    A.simple(A.LFENCE);
    A.simple(A.RDTSC);
    A.store(A.RSP, OffTscEntry, A.EAX, true);
    A.store(A.RSP, OffTscEntry + 4, A.EDX, true);
    restoreGPRs(OffGPRsEntry);
    A.pushMem(A.RSP, OffFlagsEntry);
    A.simple(A.POPF);
    A.jmpMem(A.RSP, OffJumpTarget);
  };
  StartTimedCopy();

  // --- Variant copies; their exits stop the clock and join Common.
  std::array<unsigned, DECAN_NUM_VARIANTS> VariantLabel{};
  std::vector<std::pair<unsigned, std::vector<unsigned>>> Trampolines;
  for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V) {
    if (!(P.V.Mask & (1u << V)))
      continue;
    std::vector<unsigned> ExitLabels;
    for (size_t K = 0; K < Exits.size(); ++K)
      ExitLabels.push_back(CB.newLabel());
    const LoopCopy &C = P.V.Copies[V];
    CB.align(64, L.Header % 64);
    VariantLabel[V] = CB.newLabel();
    CB.bind(VariantLabel[V]);
    emitCopy(C, /*Measured=*/true, [&](uint64_t Addr) {
      for (size_t K = 0; K < Exits.size(); ++K)
        if (Exits[K] == Addr)
          return CodeTarget::label(ExitLabels[K]);
      // An exit only a variant has cannot happen: variants keep the CFG.
      return CodeTarget::label(ExitLabels.empty() ? RestoreOrig
                                                  : ExitLabels[0]);
    });
    P.CopyBegin[V] = VariantLabel[V];
    P.CopyEnd[V] = CB.newLabel();
    CB.bind(P.CopyEnd[V]);
    CB.align(16);
    for (size_t K = 0; K < Exits.size(); ++K) {
      CB.bind(ExitLabels[K]);
      A.store(A.RSP, OffGPRsExit + 0 * 8, A.RAX);
      A.store(A.RSP, OffGPRsExit + 2 * 8, A.RCX);
      A.store(A.RSP, OffGPRsExit + 3 * 8, A.RDX);
      A.simple(A.RDTSCP);
      A.simple(A.LFENCE);
      A.store(A.RSP, OffTscExit, A.EAX, true);
      A.store(A.RSP, OffTscExit + 4, A.EDX, true);
      A.storeImm(A.RSP, OffExitIndex, K, true);
      CB.jmp(CodeTarget::label(Common));
    }
  }
  // Each entry of the variant table: copy - table (REF where not built).
  CB.align(4);
  CB.bind(VTable);
  for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
    CB.rel32(CodeTarget::label(VariantLabel[(P.V.Mask >> V) & 1 ? V : 0]),
             CodeTarget::label(VTable));

  // --- Common exit: save the variant's final state, tell the runtime.
  CB.align(16);
  CB.bind(Common);
  saveGPRs(OffGPRsExit, /*Skip rax, rcx, rdx*/ 0b1101);
  A.simple(A.PUSHF);
  A.popMem(A.RSP, OffFlagsExit);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.addImm(A.RBX, XSaveSize);
  A.xsaveLike(A.XSAVE, A.RBX);
  emitTrips();
  A.load(A.RDX, A.RSP, OffTscExit);
  CB.inst(X86.createSubMem(A.RDX, A.RSP, OffTscEntry));
  A.load(A.RSI, A.RSP, OffVariant);
  A.leaRip(A.RDI, desc());
  callRuntime(offsetof(decan_rewritten_header, end_call));
  A.testSelf(A.EAX);
  CB.jcc(CC_NE, CodeTarget::label(RerunRef));
  // The timed copy's results stand (REF): continue at its exit with its
  // final state, but the program's own MXCSR: its control bits at entry,
  // and the sticky flags the copy raised (the program's loop raised them).
  CB.inst(X86.createSignExtendLoad32(A.RAX, A.RSP, OffExitIndex, 0, 1));
  A.leaRip(A.RCX, CodeTarget::label(ETable));
  A.tableTarget(A.RDX, A.RCX, A.RAX);
  A.store(A.RSP, OffJumpTarget, A.RDX);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.load(A.RCX, A.RBX, XSaveSize + 24); // MXCSR of the final state
  A.andImm(A.RCX, 0x3F);                // its exception flags
  A.load(A.RDX, A.RBX, 24);             // MXCSR of the entry state
  A.orrr(A.RDX, A.RCX);
  A.store(A.RSP, OffMxcsr, A.EDX, /*Is32=*/true);
  A.addImm(A.RBX, XSaveSize);
  A.xsaveLike(A.XRSTOR, A.RBX);
  A.mxcsr(A.LDMXCSR, A.RSP, OffMxcsr);
  restoreGPRs(OffGPRsExit);
  A.pushMem(A.RSP, OffFlagsExit);
  A.simple(A.POPF);
  A.jmpMem(A.RSP, OffJumpTarget);
  std::vector<unsigned> ExitStubs;
  for (uint64_t E : Exits) {
    unsigned S = CB.newLabel();
    ExitStubs.push_back(S);
    CB.bind(S);
    A.lea(A.RSP, A.RSP, FrameDelta);
    CB.jmp(CodeTarget::abs(E));
  }
  CB.align(4);
  CB.bind(ETable);
  for (unsigned S : ExitStubs)
    CB.rel32(CodeTarget::label(S), CodeTarget::label(ETable));

  // --- After a variant: back to the entry state (the program's MXCSR
  // included), then the REF copy, timed, reported with DECAN_RERUN: the
  // call's real work and the trip count of the same input.
  CB.align(16);
  CB.bind(RerunRef);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.xsaveLike(A.XRSTOR, A.RBX);
  // end_call learns which variant the original follows: v | DECAN_RERUN.
  A.load(A.RAX, A.RSP, OffVariant);
  A.addImm(A.RAX, DECAN_RERUN);
  A.store(A.RSP, OffVariant, A.RAX);
  A.leaRip(A.RCX, CodeTarget::label(VariantLabel[DECAN_REF]));
  A.store(A.RSP, OffJumpTarget, A.RCX);
  StartTimedCopy();

  // --- Not measured: back to the entry state, then the original loop.
  CB.align(16);
  CB.bind(RestoreOrig);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.xsaveLike(A.XRSTOR, A.RBX);
  restoreGPRs(OffGPRsEntry);
  A.pushMem(A.RSP, OffFlagsEntry);
  A.simple(A.POPF);
  A.lea(A.RSP, A.RSP, FrameDelta);
  CB.jmp(CodeTarget::label(OrigLabel));
}

} // namespace

void decan::rewriter::emitLoopDispatcher(const decan::X86Knowledge &X86,
                                         CodeBuffer &CB, Asm &A,
                                         PlannedLoop &P) {
  LoopEmitter(X86, CB, A, P).emit();
}
