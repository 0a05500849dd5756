//===- Dispatcher.h - The rewriter's loop dispatcher: its parts -*- C++ -*-===//
//
// Part of decan. The pieces shared by the rewrite driver (RewriteInstance.cpp)
// and the loop emitter (Dispatcher.cpp): Asm, which appends X86Target-built
// instructions to a CodeBuffer; the RW segment's layout; a loop planned for
// rewriting; and the entry point that emits one loop's stub, copies and
// dispatcher. Private to mc-rewriter/lib.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LIB_DISPATCHER_H
#define DECAN_REWRITER_LIB_DISPATCHER_H

#include "CodeBuffer.h"

#include "decan/Rewriter/LoopCopy.h"
#include "decan/Rewriter/LoopFinder.h"
#include "decan/abi.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace decan::rewriter {

/// Appends the dispatcher's instructions, made by X86Target's create*()
/// helpers, to a CodeBuffer; the loop emitter (Dispatcher.cpp) speaks
/// through it or through the X86Target directly.
class Asm {
public:
  Asm(const decan::X86Knowledge &X86, CodeBuffer &CB) : X86(X86), CB(CB) {
    const decan::X86Target::DispatchOpcodes &O = X86.ops();
    PUSHF = O.PUSHF64;
    POPF = O.POPF64;
    XSAVE = O.XSAVE64;
    XRSTOR = O.XRSTOR64;
    LFENCE = O.LFENCE;
    RDTSC = O.RDTSC;
    RDTSCP = O.RDTSCP;
    STMXCSR = O.STMXCSR;
    LDMXCSR = O.LDMXCSR;
    CQO = O.CQO;
    for (const char *R : {"RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "R8",
                          "R9", "R10", "R11", "R12", "R13", "R14", "R15"})
      GPRs.push_back(X86.reg(R));
    RAX = X86.reg("RAX");
    RBX = X86.reg("RBX");
    RCX = X86.reg("RCX");
    RDX = X86.reg("RDX");
    RSI = X86.reg("RSI");
    RDI = X86.reg("RDI");
    R12 = X86.reg("R12");
    EAX = X86.reg("EAX");
    ECX = X86.reg("ECX");
    EDX = X86.reg("EDX");
    RSP = X86.RSP;
    RIP = X86.RIP;
  }

  // reg <- [base + disp]
  void load(unsigned Dst, unsigned Base, int64_t Disp) {
    CB.inst(X86.createLoad(Dst, Base, Disp));
  }
  void store(unsigned Base, int64_t Disp, unsigned Src, bool Is32 = false) {
    CB.inst(X86.createStore(Base, Disp, Src, Is32));
  }
  void storeImm(unsigned Base, int64_t Disp, int64_t V, bool Is32) {
    CB.inst(X86.createStoreImm(Base, Disp, V, Is32));
  }
  void lea(unsigned Dst, unsigned Base, int64_t Disp) {
    CB.inst(X86.createLea(Dst, Base, Disp));
  }
  void leaRip(unsigned Dst, CodeTarget T) {
    CB.instRip(X86.createLea(Dst, RIP, 0), T);
  }
  void movrr(unsigned Dst, unsigned Src) { CB.inst(X86.createMove(Dst, Src)); }
  void andImm(unsigned Reg, int64_t V) { CB.inst(X86.createAndImm(Reg, V)); }
  void orrr(unsigned Dst, unsigned Src) { CB.inst(X86.createOr(Dst, Src)); }
  void addImm(unsigned Reg, int64_t V) { CB.inst(X86.createAddImm(Reg, V)); }
  void simple(unsigned Opc) { CB.inst(decan::X86Target::createInst(Opc)); }
  /// pushf/popf below the red zone: a leaf function's data may live in the
  /// 128 bytes under the program's stack pointer.
  void pushFlagsBelowRedZone() {
    lea(RSP, RSP, -128);
    simple(PUSHF);
  }
  void popFlagsBelowRedZone() {
    simple(POPF);
    lea(RSP, RSP, 128);
  }
  void pushMem(unsigned Base, int64_t Disp) {
    CB.inst(X86.createPushMem(Base, Disp));
  }
  void popMem(unsigned Base, int64_t Disp) {
    CB.inst(X86.createPopMem(Base, Disp));
  }
  /// xsave64/xrstor64 (%Base) of x87, SSE, AVX and AVX-512 state.
  void xsaveLike(unsigned Opc, unsigned Base) {
    CB.inst(X86.createMoveImm32(EAX, 0xe7));
    CB.inst(X86.createXor32(EDX, EDX));
    CB.inst(X86.createMemOnly(Opc, Base, 0));
  }
  void callRip(CodeTarget T) { CB.instRip(X86.createCallMem(RIP, 0), T); }
  void jmpMem(unsigned Base, int64_t Disp) {
    CB.inst(X86.createJmpMem(Base, Disp));
  }
  void cmpRipImm(CodeTarget T, int64_t V) {
    CB.instRip(X86.createCmpMemImm32(RIP, 0, V), T);
  }
  void decRip(CodeTarget T) { CB.instRip(X86.createDecMem32(RIP, 0), T); }
  void cmpImm(unsigned Reg32, int64_t V) {
    CB.inst(X86.createCmpImm32(Reg32, V));
  }
  void testSelf(unsigned Reg32) { CB.inst(X86.createTestSelf32(Reg32)); }
  void mxcsr(unsigned Opc, unsigned Base, int64_t Disp) {
    CB.inst(X86.createMemOnly(Opc, Base, Disp));
  }
  /// Dst <- Base + sext(int32 at [Base + Idx*4]).
  void tableTarget(unsigned Dst, unsigned Base, unsigned Idx) {
    CB.inst(X86.createSignExtendLoad32(Dst, Base, 0, Idx, 4));
    CB.inst(X86.createAdd(Dst, Base));
  }

  const decan::X86Knowledge &X86;
  CodeBuffer &CB;
  /// Operand-less or memory-only forms, passed to simple(), xsaveLike() and
  /// mxcsr().
  unsigned PUSHF, POPF, XSAVE, XRSTOR, LFENCE, RDTSC, RDTSCP, STMXCSR, LDMXCSR,
      CQO;
  std::vector<unsigned> GPRs;
  unsigned RAX, RBX, RCX, RDX, RSI, RDI, R12, EAX, ECX, EDX, RSP, RIP;
};

/// Layout of the RW segment, as offsets from its start.
struct DataLayout {
  uint64_t DescsOff = 0, MInfoOff = 0, StringsOff = 0, ScratchOff = 0, Size = 0;
  std::string Strings;
  std::map<std::string, uint64_t> StringAt;
  uint64_t str(const std::string &S) {
    auto It = StringAt.find(S);
    if (It != StringAt.end())
      return It->second;
    uint64_t O = Strings.size();
    Strings += S;
    Strings.push_back('\0');
    StringAt[S] = O;
    return O;
  }
};

struct PlannedLoop {
  const LoopCandidate *L = nullptr;
  LoopVariants V;    ///< the copies are dropped once emitted
  unsigned Slot = 0; ///< names its descriptor and scratch in CodeTargets
  unsigned DescIndex = 0;
  uint64_t IdOff = 0, FuncOff = 0, FileOff = 0, ScratchOff = 0;
  unsigned StubLabel = 0;
  /// Labels around each variant's copy (measured copies) and the
  /// unmeasured relocated loop.
  std::array<unsigned, DECAN_NUM_VARIANTS> CopyBegin{}, CopyEnd{};
  unsigned OrigBegin = 0, OrigEnd = 0;
  /// [MeasuredBegin, MeasuredEnd): the measured copies and their exit
  /// stubs, which run with the frame below the program's stack (their
  /// unwind rule: Dispatcher.h, measuredFrameCFI).
  unsigned MeasuredBegin = 0, MeasuredEnd = 0;
  /// A base copy for late variants: the stub, the relocated original and a
  /// record without copies (Dispatcher.cpp); the measured copies come with
  /// the late pack.
  bool BaseOnly = false;
  /// The loop's record (the shared routines' view of it).
  unsigned RecordLabel = 0;
  /// A late pack's loop (LatePack.cpp): only its measured copies, exit
  /// stubs and record, which name the base copy's resume stub and shared
  /// exit routine at these addresses (0: an ordinary loop).
  uint64_t PackResume = 0, PackSharedCommon = 0;
  /// Each call of the measured copies, between two labels, and the
  /// original call's return address: its unwind row (.eh_frame) makes the
  /// copy look called from there, so the function's exception table sees
  /// the original call site.
  struct CallSite {
    unsigned Begin, End;
    uint64_t ReturnAddr;
  };
  std::vector<CallSite> MeasuredCalls;
  /// The same for the relocated original's calls: its exception table.
  std::vector<CallSite> OrigCalls;
  /// The relocated loop's unwind rule (Unwind.h, ruleAt); none: no FDE.
  std::optional<std::string> OrigRule;
};

/// Labels of the routines every loop shares, reserved first in every
/// CodeBuffer (CodeBuffer's SharedLabels).
enum SharedLabel : unsigned {
  SharedEnter,  ///< save the state, begin_call, start a copy
  SharedCommon, ///< after a copy: end_call, rerun REF or continue
  NumSharedLabels
};

/// Unwind rule of a measured copy, for debuggers (.debug_frame): the
/// interrupted code's stack pointer (the CFA) is rsp + \p FrameDelta, and
/// the frame holds, at CFA - \p ReturnFromCFA, the loop header's address
/// + 1, so the copy looks called from the loop header of its function.
struct MeasuredFrameCFI {
  int64_t FrameDelta, ReturnFromCFA;
};
MeasuredFrameCFI measuredFrameCFI();

/// Runs \p Fn(K, J) for every J in [0, \p N), in parallel: one instruction
/// knowledge per thread (MC objects are not shared), at most \p Threads
/// threads (0: one per core) and at least \p Grain items each. Returns the
/// threads' knowledge objects: buffers they filled encode through them
/// until appended.
std::vector<std::unique_ptr<decan::X86Knowledge>> forEachInParallel(
    const decan::X86Knowledge &X86, size_t N, unsigned Threads, size_t Grain,
    llvm::function_ref<void(const decan::X86Knowledge &, size_t)> Fn);

/// Emits the shared routines (once per binary, before any loop). \p Late:
/// a base copy for late variants, whose measured calls take the loop's
/// record from the late pack (decan_loop_desc::late_record).
void emitSharedDispatch(const decan::X86Knowledge &X86, CodeBuffer &CB, Asm &A,
                        bool Late = false);

/// Emits loop \p P's stub, its relocated original loop, its measured copies
/// and the dispatcher that runs them (Dispatcher.cpp, LoopEmitter); its
/// descriptor and scratch area are CodeTarget::desc/scratch(P.Slot).
void emitLoopDispatcher(const decan::X86Knowledge &X86, CodeBuffer &CB, Asm &A,
                        PlannedLoop &P);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LIB_DISPATCHER_H
