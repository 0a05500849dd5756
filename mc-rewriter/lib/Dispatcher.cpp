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

#include "decan/Rewriter/LoopCopy.h"
#include "decan/abi.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <cstddef>

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
//   [+16] TSC at exit                   [+24] exit index (CappedExit: the
//                                       iteration cap ran out) [+28] MXCSR
//   [+32] indirect jump target          [+40] xsave area pointer
//   [+48] flags at entry                [+56] flags at exit
//   [+64] 15 GPRs at entry              [+184] 15 GPRs at exit
//   [+304] the loop's record            [+312] its header + 1 (for unwinding)
//   [+320] two 64-byte aligned xsave areas
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
constexpr int64_t OffRecord = 304;     ///< address of the loop's record
constexpr int64_t OffReturn = 312;     ///< loop header + 1: a debugger's
                                       ///< "return address" of a copy
constexpr int64_t OffXSaveAreas = 320; ///< two 64-byte aligned xsave areas
constexpr int64_t XSaveSize = 2752; // >= 2688: x87+SSE+AVX+AVX-512, 64-multiple
constexpr int64_t FrameSize = alignTo(OffXSaveAreas + 2 * XSaveSize + 64, 16);
constexpr int64_t FrameDelta = FrameSize + 128;
/// The exit index of a copy whose iteration cap ran out (abi.h,
/// capped_mask): the shared exit reports DECAN_TRIPS_CAPPED and never
/// continues from that state (the runtime answers "rerun").
constexpr int32_t CappedExit = -1;

//===----------------------------------------------------------------------===//
// A loop's record (read-only, in its code): what the shared routines need
// to know about the loop, as int32 offsets from the record itself (so the
// code is position independent, DSOs and PIEs alike).
//===----------------------------------------------------------------------===//
constexpr int64_t RecDesc = 0;      ///< its descriptor
constexpr int64_t RecResume = 4;    ///< "leave the frame, run the original"
constexpr int64_t RecIndReg = 8;    ///< induction GPR (index in Asm::GPRs; -1)
constexpr int64_t RecIndStep = 12;  ///< its step
constexpr int64_t RecInd32 = 16;    ///< 1: a 32-bit counter
constexpr int64_t RecHeader = 20;   ///< the original loop header
constexpr int64_t RecVariants = 24; ///< DECAN_NUM_VARIANTS copies (REF if
                                    ///< not built)
constexpr int64_t RecExits = RecVariants + 4 * DECAN_NUM_VARIANTS; ///< per
///< exit: "leave the frame, continue at the original exit"
// A base copy for late variants has records of the fields before
// RecVariants only (no copies): a measured call switches to the loop's
// record in the late pack first (emitSharedDispatch, Late).

void saveGPRs(Asm &A, int64_t Off, unsigned Skip = 0) {
  for (unsigned K = 0; K < A.GPRs.size(); ++K)
    if (!(Skip & (1u << K)))
      A.store(A.RSP, Off + 8 * K, A.GPRs[K]);
}

void restoreGPRs(Asm &A, int64_t Off) {
  for (unsigned K = 0; K < A.GPRs.size(); ++K)
    A.load(A.GPRs[K], A.RSP, Off + 8 * K);
}

void callRuntime(Asm &A, uint64_t HeaderFieldOff) {
  // The ABI wants a 16-byte aligned stack at the call; r12 is callee-saved.
  A.movrr(A.R12, A.RSP);
  A.andImm(A.RSP, -16);
  A.callRip(CodeTarget::data(HeaderFieldOff));
  A.movrr(A.RSP, A.R12);
}

/// \p Dst <- the record's address + the int32 at record + \p Field
/// (+ 4 * \p Index when given). Clobbers \p Tmp.
void fromRecord(Asm &A, unsigned Dst, unsigned Tmp, int64_t Field,
                unsigned Index = 0) {
  A.load(Tmp, A.RSP, OffRecord);
  A.CB.inst(A.X86.createSignExtendLoad32(Dst, Tmp, Field, Index, 4));
  A.CB.inst(A.X86.createAdd(Dst, Tmp));
}

/// rcx <- trip count of the timed call: (induction register at exit - at
/// entry) / step, from the two saved GPR sets (outside the timed region,
/// nothing added to the loop); 0 when the loop has none or the quotient
/// is negative; DECAN_TRIPS_CAPPED when the copy's iteration cap ran out.
void emitTripCount(const decan::X86Knowledge &X86, CodeBuffer &CB, Asm &A) {
  unsigned Zero = CB.newLabel(), Wide = CB.newLabel(), Done = CB.newLabel(),
           Capped = CB.newLabel();
  CB.inst(X86.createCmpMemImm32(A.RSP, OffExitIndex, CappedExit));
  CB.jcc(CC_E, CodeTarget::label(Capped));
  A.load(A.RSI, A.RSP, OffRecord);
  CB.inst(X86.createSignExtendLoad32(A.RDX, A.RSI, RecIndReg, 0, 1));
  CB.inst(X86.createTestSelf(A.RDX));
  CB.jcc(CC_S, CodeTarget::label(Zero));
  for (int K = 0; K < 3; ++K) // *8
    CB.inst(X86.createAdd(A.RDX, A.RDX));
  CB.inst(X86.createAdd(A.RDX, A.RSP));
  A.load(A.RAX, A.RDX, OffGPRsExit);
  CB.inst(X86.createSubMem(A.RAX, A.RDX, OffGPRsEntry));
  CB.inst(X86.createCmpMemImm32(A.RSI, RecInd32, 0));
  CB.jcc(CC_E, CodeTarget::label(Wide));
  CB.inst(X86.createSignExtend32(A.RAX, A.EAX)); // the difference mod 2^32
  CB.bind(Wide);
  CB.inst(X86.createSignExtendLoad32(A.RCX, A.RSI, RecIndStep, 0, 1));
  A.simple(A.CQO);
  CB.inst(X86.createIDiv(A.RCX));
  A.movrr(A.RCX, A.RAX);
  CB.inst(X86.createTestSelf(A.RCX));
  CB.jcc(CC_NS, CodeTarget::label(Done));
  CB.bind(Zero);
  CB.inst(X86.createXor32(A.ECX, A.ECX));
  CB.jmp(CodeTarget::label(Done));
  CB.bind(Capped);
  static_assert(DECAN_TRIPS_CAPPED == UINT64_MAX, "mov $-1 below");
  CB.inst(X86.createMoveImm(A.RCX, -1));
  CB.bind(Done);
}

class LoopEmitter {
public:
  LoopEmitter(const decan::X86Knowledge &X86, CodeBuffer &CB, Asm &A,
              PlannedLoop &P)
      : X86(X86), CB(CB), A(A), P(P), L(*P.L) {}

  void emit();

private:
  void emitEntry(unsigned OrigLabel, unsigned Measured, unsigned Record,
                 unsigned Resume);
  CodeTarget desc(uint32_t Field = 0) const {
    return CodeTarget::desc(P.Slot, Field);
  }
  CodeTarget active() const { return desc(offsetof(decan_loop_desc, active)); }
  CodeTarget countdown() const {
    return desc(offsetof(decan_loop_desc, countdown));
  }
  /// An iteration cap (LoopVariants::CapReg): the register it is counted
  /// down in and the exit stub taken when it runs out.
  struct Cap {
    unsigned Reg;
    unsigned Exit;
    bool FlagsFree; ///< lea; jrcxz (Reg is RCX), for live EFLAGS
    unsigned Begin; ///< bound here: the copy's first byte (listings)
    unsigned Entry; ///< bound here: where the copy is entered (its record)
  };
  /// Emits one copy; exits go where \p Exit says; with \p Capped, the copy
  /// counts its iterations down and binds its own Begin and Entry labels
  /// (without, the caller aligns and binds them).
  void emitCopy(const LoopCopy &C, bool Measured,
                llvm::function_ref<CodeTarget(uint64_t)> Exit,
                const Cap *Capped = nullptr);
  /// Emits one instruction of a copy; \p To maps an original address to
  /// its label or exit.
  void emitInst(const CopyInst &CI, bool Measured,
                llvm::function_ref<CodeTarget(uint64_t)> To);
  int inductionIndex() const;
  /// Every measured copy's header offset in its 64-byte line (issue 26): 0,
  /// as the plugin's, or 16 if one is capped (its count-down, up to 9 bytes
  /// before the header, then stays in the header's line).
  unsigned measuredHeaderOffset() const {
    for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
      if (V != DECAN_REF && (P.V.Mask & (1u << V)) && P.V.CapReg[V])
        return 16;
    return 0;
  }
  /// Emits the record's fields before its copies; returns the record.
  CodeTarget emitRecordHead(unsigned Record, CodeTarget ResumeAt);

  const decan::X86Knowledge &X86;
  CodeBuffer &CB;
  Asm &A;
  PlannedLoop &P;
  const LoopCandidate &L;
};

/// The induction register's index among the saved GPRs; -1: none (trips
/// unknown).
int LoopEmitter::inductionIndex() const {
  if (!P.V.IndReg || P.V.IndStep == 0 || P.V.IndStep != int32_t(P.V.IndStep))
    return -1;
  for (unsigned G = 0; G < A.GPRs.size(); ++G)
    if (X86.regInfo().isSuperRegisterEq(P.V.IndReg, A.GPRs[G]))
      return int(G);
  return -1;
}

/// The record's fields up to its copies (RecVariants), at label \p Record.
CodeTarget LoopEmitter::emitRecordHead(unsigned Record, CodeTarget ResumeAt) {
  CB.align(4);
  CB.bind(Record);
  CodeTarget Rec = CodeTarget::label(Record);
  CB.rel32(desc(), Rec);
  CB.rel32(ResumeAt, Rec);
  int Ind = inductionIndex();
  CB.word(uint32_t(Ind));
  CB.word(uint32_t(Ind < 0 ? 0 : int32_t(P.V.IndStep)));
  CB.word(P.V.Ind32 ? 1 : 0);
  CB.rel32(CodeTarget::abs(L.Header), Rec);
  return Rec;
}

void LoopEmitter::emitInst(const CopyInst &CI, bool Measured,
                           llvm::function_ref<CodeTarget(uint64_t)> To) {
  if (CI.IsBranch) {
    CB.copiedBranch(CI.MI, To(CI.BranchTarget));
    return;
  }
  if (CI.IsCall) {
    CB.call(CodeTarget::abs(CI.CallTarget));
    return;
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

void LoopEmitter::emitCopy(const LoopCopy &C, bool Measured,
                           llvm::function_ref<CodeTarget(uint64_t)> Exit,
                           const Cap *Capped) {
  unsigned HeaderOff = Measured ? measuredHeaderOffset() : L.Header % 64;
  std::map<uint64_t, unsigned> Labels;
  for (const CopyBlock &B : C.Blocks)
    Labels[B.Start] = CB.newLabel();
  auto To = [&](uint64_t Addr) {
    auto It = Labels.find(Addr);
    return It != Labels.end() ? CodeTarget::label(It->second) : Exit(Addr);
  };
  if (Capped) {
    // An iteration cap: the count-down sits right before the header, where
    // every jump to the header (the back edges) lands instead, and the
    // cap's load from the descriptor (the runtime wrote it before
    // begin_call returned) right before the count-down, where the copy is
    // entered. So the loop's own bytes keep REF's offsets modulo 64 and
    // the entry runs one extra instruction. Where the copy's flags are live
    // into the header, the count-down's jrcxz (rel8) leaves through a jump
    // to the capped exit before the load.
    MCInst Load = X86.createLoad(Capped->Reg, X86.RIP, 0);
    MCInst Count = Capped->FlagsFree
                       ? X86.createLea(Capped->Reg, Capped->Reg, -1)
                       : X86.createDec(Capped->Reg);
    unsigned Before = X86.encodedSize(Load) + X86.encodedSize(Count) +
                      (Capped->FlagsFree ? 2 /*jrcxz*/ + 5 /*jmp rel32*/
                                         : 6 /*je rel32*/);
    CB.align(64, (HeaderOff + 64 - Before % 64) % 64);
    CB.bind(Capped->Begin);
    unsigned Tramp = CB.newLabel();
    if (Capped->FlagsFree) {
      CB.bind(Tramp);
      CB.jmp(CodeTarget::label(Capped->Exit));
    }
    CB.bind(Capped->Entry);
    CB.instRip(Load, desc(offsetof(decan_loop_desc, iteration_cap)));
    // One count per pass through the header (entry and back edges): at 0
    // the copy leaves. A cap of 0 wraps around first: it caps nothing.
    CB.bind(Labels[C.Blocks[0].Start]);
    CB.inst(Count);
    if (Capped->FlagsFree)
      CB.jrcxzBack(Tramp); // Reg is RCX (capRegister)
    else
      CB.jcc(CC_E, CodeTarget::label(Capped->Exit));
    assert(CB.size() % 64 == HeaderOff && "the header moved");
  } else {
    CB.align(64, HeaderOff); // measured copies, or the relocated original
  }
  for (size_t K = 0; K < C.Blocks.size(); ++K) {
    const CopyBlock &B = C.Blocks[K];
    if (K != 0 || !Capped)
      CB.bind(Labels[B.Start]);
    for (const CopyInst &CI : B.Instrs) {
      if (CI.ReturnAddr) {
        unsigned Begin = CB.newLabel(), End = CB.newLabel();
        CB.bind(Begin);
        emitInst(CI, Measured, To);
        CB.bind(End);
        (Measured ? P.MeasuredCalls : P.OrigCalls)
            .push_back({Begin, End, CI.ReturnAddr});
        continue;
      }
      emitInst(CI, Measured, To);
    }
    if (B.FallThrough &&
        (K + 1 == C.Blocks.size() || C.Blocks[K + 1].Start != B.FallThrough))
      CB.jmp(To(B.FallThrough));
  }
}

/// The stub at the loop header's jump, the measured call's entry and the
/// relocated original loop (and, for a base copy, its resume stub and
/// record without copies).
void LoopEmitter::emitEntry(unsigned OrigLabel, unsigned Measured,
                            unsigned Record, unsigned Resume) {
  // --- The relocated original loop: exits return to the original code.
  auto EmitOrig = [&] {
    CB.align(64, L.Header % 64);
    CB.bind(OrigLabel);
    P.OrigBegin = OrigLabel;
    emitCopy(P.V.Copies[DECAN_REF], /*Measured=*/false,
             [](uint64_t Addr) { return CodeTarget::abs(Addr); });
    P.OrigEnd = CB.newLabel();
    CB.bind(P.OrigEnd);
  };
  // A base copy's loop starts with it: its alignment is then the
  // fragment's first bytes, which CodeBuffer::append lays out with the
  // padding the fragment's start needs anyway (one padding, not two).
  if (P.BaseOnly)
    EmitOrig();
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
    A.pushFlagsBelowRedZone();
    Test(CodeTarget::label(Inline), CodeTarget::label(MFlags));
    CB.bind(MFlags);
    A.popFlagsBelowRedZone();
    CB.jmp(CodeTarget::label(Measured));
    CB.bind(Inline);
    A.popFlagsBelowRedZone();
    CB.jmp(CodeTarget::label(OrigLabel));
  } else {
    Test(CodeTarget::label(OrigLabel), CodeTarget::label(Measured));
  }
  // Measured: open the frame, keep rax, hand the record to the shared
  // entry (flags untouched: lea and mov leave them).
  CB.bind(Measured);
  A.lea(A.RSP, A.RSP, -FrameDelta);
  A.store(A.RSP, OffGPRsEntry, A.RAX);
  A.leaRip(A.RAX, CodeTarget::label(Record));
  CB.jmp(CodeTarget::label(SharedEnter));

  if (!P.BaseOnly)
    EmitOrig();
  if (P.BaseOnly) {
    // No measured copy: a measured call of this loop uses its record in
    // the late pack, and leaves the frame through Resume until there is
    // one (begin_call returns no copy before).
    CB.bind(P.MeasuredBegin);
    CB.bind(P.MeasuredEnd);
    CB.bind(Resume);
    A.lea(A.RSP, A.RSP, FrameDelta);
    CB.jmp(CodeTarget::label(OrigLabel));
    emitRecordHead(Record, CodeTarget::label(Resume)); // no induction
  }
}

void LoopEmitter::emit() {
  unsigned OrigLabel = CB.newLabel(), Measured = CB.newLabel(),
           Record = CB.newLabel(), Resume = CB.newLabel();
  P.RecordLabel = Record;
  // Exit addresses, in a fixed order.
  std::vector<uint64_t> Exits;
  for (const LoopBlock &B : L.Blocks)
    for (uint64_t S : B.Succs)
      if (!L.contains(S) && !is_contained(Exits, S))
        Exits.push_back(S);

  // A late pack's loop: its stub, relocated original and resume stub are
  // the base copy's.
  bool Pack = P.PackResume != 0;
  CodeTarget ResumeAt =
      Pack ? CodeTarget::abs(P.PackResume) : CodeTarget::label(Resume);
  CodeTarget Common = Pack ? CodeTarget::abs(P.PackSharedCommon)
                           : CodeTarget::label(SharedCommon);
  P.MeasuredBegin = CB.newLabel();
  P.MeasuredEnd = CB.newLabel();
  if (!Pack)
    emitEntry(OrigLabel, Measured, Record, Resume);
  if (P.BaseOnly)
    return;

  // --- Measured copies; every copy's exit k stops the clock in one stub.
  std::vector<unsigned> ExitLabels;
  for (size_t K = 0; K < Exits.size(); ++K)
    ExitLabels.push_back(CB.newLabel());
  // The exit of the copies whose iteration cap ran out (one per loop).
  unsigned CappedLabel = CB.newLabel();
  bool AnyCap = false;
  std::array<unsigned, DECAN_NUM_VARIANTS> VariantLabel{};
  for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V) {
    if (!(P.V.Mask & (1u << V)))
      continue;
    // A capped copy aligns itself and binds its labels (emitCopy); REF,
    // never capped, opens the measured range.
    VariantLabel[V] = CB.newLabel();
    Cap C{P.V.CapReg[V], CappedLabel, bool(P.V.CapFlagsFree >> V & 1),
          CB.newLabel(), VariantLabel[V]};
    if (V == DECAN_REF)
      C.Reg = 0;
    AnyCap |= C.Reg != 0;
    if (!C.Reg) {
      CB.align(64, measuredHeaderOffset());
      if (V == DECAN_REF)
        CB.bind(P.MeasuredBegin);
      CB.bind(VariantLabel[V]);
      C.Begin = VariantLabel[V];
    }
    emitCopy(
        P.V.Copies[V], /*Measured=*/true,
        [&](uint64_t Addr) {
          for (size_t K = 0; K < Exits.size(); ++K)
            if (Exits[K] == Addr)
              return CodeTarget::label(ExitLabels[K]);
          // An exit only a variant has cannot happen: variants keep the
          // CFG.
          return ExitLabels.empty() ? ResumeAt
                                    : CodeTarget::label(ExitLabels[0]);
        },
        C.Reg ? &C : nullptr);
    P.CopyBegin[V] = C.Begin;
    P.CopyEnd[V] = CB.newLabel();
    CB.bind(P.CopyEnd[V]);
  }
  CB.align(16);
  // Stops the clock and tells the shared exit which exit this is.
  auto ExitStub = [&](unsigned Label, int32_t Index) {
    CB.bind(Label);
    A.store(A.RSP, OffGPRsExit + 0 * 8, A.RAX);
    A.store(A.RSP, OffGPRsExit + 2 * 8, A.RCX);
    A.store(A.RSP, OffGPRsExit + 3 * 8, A.RDX);
    A.simple(A.RDTSCP);
    A.simple(A.LFENCE);
    A.store(A.RSP, OffTscExit, A.EAX, true);
    A.store(A.RSP, OffTscExit + 4, A.EDX, true);
    A.storeImm(A.RSP, OffExitIndex, Index, true);
    CB.jmp(Common);
  };
  for (size_t K = 0; K < Exits.size(); ++K)
    ExitStub(ExitLabels[K], int32_t(K));
  // The capped exit: the same frame and stack as any exit (the registers do
  // not matter: the shared exit reruns REF from the entry state). Inside
  // the measured range: the copies' unwind rule covers it.
  if (AnyCap)
    ExitStub(CappedLabel, CappedExit);
  CB.bind(P.MeasuredEnd);
  // Leaving the frame is the last step (everything restored): a direct jump
  // per destination, so no value lives below the stack pointer after it.
  if (!Pack) {
    CB.bind(Resume);
    A.lea(A.RSP, A.RSP, FrameDelta);
    CB.jmp(CodeTarget::label(OrigLabel));
  }
  std::vector<unsigned> ExitStubs;
  for (uint64_t E : Exits) {
    unsigned S = CB.newLabel();
    ExitStubs.push_back(S);
    CB.bind(S);
    A.lea(A.RSP, A.RSP, FrameDelta);
    CB.jmp(CodeTarget::abs(E));
  }

  // --- The record (abi of the shared routines above).
  CodeTarget Rec = emitRecordHead(Record, ResumeAt);
  for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
    CB.rel32(CodeTarget::label(VariantLabel[(P.V.Mask >> V) & 1 ? V : 0]), Rec);
  for (unsigned S : ExitStubs)
    CB.rel32(CodeTarget::label(S), Rec);
}

} // namespace

MeasuredFrameCFI decan::rewriter::measuredFrameCFI() {
  return {FrameDelta, FrameDelta - OffReturn};
}

void decan::rewriter::emitSharedDispatch(const decan::X86Knowledge &X86,
                                         CodeBuffer &CB, Asm &A, bool Late) {
  unsigned RestoreOrig = CB.newLabel(), Rerun = CB.newLabel(),
           StartTimed = CB.newLabel(), Faulted = CB.newLabel(),
           LeaveUntimed = CB.newLabel();
  // --- Entry (rax = the loop's record, the program's rax in the frame):
  // save the whole state, ask the runtime which copy to run.
  CB.align(64);
  CB.bind(SharedEnter);
  A.simple(A.PUSHF);
  A.popMem(A.RSP, OffFlagsEntry);
  A.store(A.RSP, OffRecord, A.RAX);
  saveGPRs(A, OffGPRsEntry, /*Skip rax*/ 1);
  fromRecord(A, A.RDX, A.RCX, RecHeader);
  A.addImm(A.RDX, 1);
  A.store(A.RSP, OffReturn, A.RDX);
  // The quick question first (abi.h, DECAN_QUICK_CALL): a call the runtime
  // will not time leaves without the extended state's save and restore.
  fromRecord(A, A.RDI, A.RCX, RecDesc);
  CB.inst(X86.createMoveImm32(A.EDX, DECAN_QUICK_CALL));
  callRuntime(A, offsetof(decan_rewritten_header, begin_call));
  A.testSelf(A.EAX);
  CB.jcc(CC_S, CodeTarget::label(LeaveUntimed));
  A.lea(A.RBX, A.RSP, OffXSaveAreas + 63);
  A.andImm(A.RBX, -64);
  A.store(A.RSP, OffXSavePtr, A.RBX);
  for (int64_t Area : {int64_t(0), XSaveSize})
    for (int K = 0; K < 8; ++K) // XSAVE leaves the header's reserved bytes
      A.storeImm(A.RBX, Area + 512 + 8 * K, 0, false);
  A.xsaveLike(A.XSAVE, A.RBX);
  fromRecord(A, A.RDI, A.RCX, RecDesc);
  CB.inst(X86.createXor32(A.EDX, A.EDX));      // the full begin_call this time
  A.leaRip(A.RSI, CodeTarget::label(Faulted)); // the fault entry (abi.h)
  callRuntime(A, offsetof(decan_rewritten_header, begin_call));
  CB.inst(X86.createSignExtend32(A.RAX, A.EAX));
  A.store(A.RSP, OffVariant, A.RAX);
  A.testSelf(A.EAX);
  CB.jcc(CC_S, CodeTarget::label(RestoreOrig));
  A.cmpImm(A.EAX, DECAN_NUM_VARIANTS - 1);
  CB.jcc(CC_A, CodeTarget::label(RestoreOrig));
  if (Late) {
    // The base record has no copies: from here on the call uses the loop's
    // record in the late pack (the runtime sets desc.late_record once,
    // before begin_call returns a copy of the loop).
    fromRecord(A, A.RDX, A.RCX, RecDesc);
    CB.inst(X86.createSignExtendLoad32(
        A.RCX, A.RDX, offsetof(decan_loop_desc, late_record), 0, 1));
    CB.inst(X86.createAdd(A.RCX, A.RDX));
    A.store(A.RSP, OffRecord, A.RCX);
  }
  // The runtime has set the FP environment for the timed call: keep its
  // MXCSR across the state restore.
  A.mxcsr(A.STMXCSR, A.RSP, OffMxcsr);
  fromRecord(A, A.RDX, A.RCX, RecVariants, A.RAX);
  A.store(A.RSP, OffJumpTarget, A.RDX);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.xsaveLike(A.XRSTOR, A.RBX);
  A.mxcsr(A.LDMXCSR, A.RSP, OffMxcsr);
  // Start the clock, restore the entry registers and flags, enter the copy
  // whose address is at OffJumpTarget (the measured path and the rerun share
  // it).
  CB.bind(StartTimed);
  A.simple(A.LFENCE);
  A.simple(A.RDTSC);
  A.store(A.RSP, OffTscEntry, A.EAX, true);
  A.store(A.RSP, OffTscEntry + 4, A.EDX, true);
  restoreGPRs(A, OffGPRsEntry);
  A.pushMem(A.RSP, OffFlagsEntry);
  A.simple(A.POPF);
  A.jmpMem(A.RSP, OffJumpTarget);

  // --- Common exit (the clock stopped, rax/rcx/rdx and the exit index in
  // the frame): save the copy's final state, tell the runtime.
  CB.align(16);
  CB.bind(SharedCommon);
  saveGPRs(A, OffGPRsExit, /*Skip rax, rcx, rdx*/ 0b1101);
  A.simple(A.PUSHF);
  A.popMem(A.RSP, OffFlagsExit);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.addImm(A.RBX, XSaveSize);
  A.xsaveLike(A.XSAVE, A.RBX);
  emitTripCount(X86, CB, A);
  A.load(A.RDX, A.RSP, OffTscExit);
  CB.inst(X86.createSubMem(A.RDX, A.RSP, OffTscEntry));
  A.load(A.RSI, A.RSP, OffVariant);
  fromRecord(A, A.RDI, A.RAX, RecDesc);
  callRuntime(A, offsetof(decan_rewritten_header, end_call));
  A.testSelf(A.EAX);
  CB.jcc(CC_NE, CodeTarget::label(Rerun));
  // A capped copy has no exit to continue at: whatever the runtime said,
  // REF reruns from the entry state.
  CB.inst(X86.createCmpMemImm32(A.RSP, OffExitIndex, CappedExit));
  CB.jcc(CC_E, CodeTarget::label(Rerun));
  // The timed copy's results stand (REF): continue at its exit with its
  // final state, but the program's own MXCSR: its control bits at entry,
  // and the sticky flags the copy raised (the program's loop raised them).
  CB.inst(X86.createSignExtendLoad32(A.RAX, A.RSP, OffExitIndex, 0, 1));
  fromRecord(A, A.RDX, A.RCX, RecExits, A.RAX);
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
  restoreGPRs(A, OffGPRsExit);
  A.pushMem(A.RSP, OffFlagsExit);
  A.simple(A.POPF);
  A.jmpMem(A.RSP, OffJumpTarget); // the loop's exit stub leaves the frame

  // --- After a variant: back to the entry state (the program's MXCSR
  // included), then the REF copy, timed, reported with DECAN_RERUN: the
  // call's real work and the trip count of the same input.
  CB.align(16);
  CB.bind(Rerun);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.xsaveLike(A.XRSTOR, A.RBX);
  // end_call learns which variant the original follows: v | DECAN_RERUN.
  A.load(A.RAX, A.RSP, OffVariant);
  A.addImm(A.RAX, DECAN_RERUN);
  A.store(A.RSP, OffVariant, A.RAX);
  fromRecord(A, A.RCX, A.RDX, RecVariants + 4 * DECAN_REF);
  A.store(A.RSP, OffJumpTarget, A.RCX);
  CB.jmp(CodeTarget::label(StartTimed));

  CB.bind(Faulted); // --- a faulted copy resumes here (abi.h): as capped
  A.storeImm(A.RSP, OffExitIndex, CappedExit, /*Is32=*/true);
  CB.jmp(CodeTarget::label(SharedCommon));

  // --- Not measured: back to the entry state, then the original loop.
  CB.align(16);
  CB.bind(RestoreOrig);
  A.load(A.RBX, A.RSP, OffXSavePtr);
  A.xsaveLike(A.XRSTOR, A.RBX);
  CB.bind(LeaveUntimed); // the extended state untouched since the entry
  fromRecord(A, A.RDX, A.RCX, RecResume);
  A.store(A.RSP, OffJumpTarget, A.RDX);
  restoreGPRs(A, OffGPRsEntry);
  A.pushMem(A.RSP, OffFlagsEntry);
  A.simple(A.POPF);
  A.jmpMem(A.RSP, OffJumpTarget); // the loop's Resume leaves the frame
}

void decan::rewriter::emitLoopDispatcher(const decan::X86Knowledge &X86,
                                         CodeBuffer &CB, Asm &A,
                                         PlannedLoop &P) {
  LoopEmitter(X86, CB, A, P).emit();
}
