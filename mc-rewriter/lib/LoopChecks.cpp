//===- LoopChecks.cpp - Why a loop cannot be rewritten --------------------===//
//
// Part of decan. See LoopChecks.h.
//
//===----------------------------------------------------------------------===//

#include "LoopChecks.h"

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/Rewriter/Unwind.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <set>

using namespace llvm;
using namespace decan::rewriter;

static bool isStackPointer(const decan::X86Target &X86, MCRegister R) {
  return R && X86.regInfo().isSuperOrSubRegisterEq(X86.RSP, R);
}

/// Calls are measured (REF with them, NO_CALL without: the variant rules
/// delete a call the rewriter knows nothing about in every other variant).
/// Measured copies run on a stack FrameDelta lower than the program's, so
/// a callee could not find arguments passed on the stack: a loop that
/// calls and stores near the stack pointer without reading the slot back
/// (an outgoing argument, not a spill) is refused.
static std::string checkCalls(const FunctionCFG &CFG,
                              const decan::X86Target &X86,
                              ArrayRef<const CFGBlock *> Body) {
  const FunctionCode &Code = CFG.code();
  bool Calls = false;
  for (const CFGBlock *B : Body)
    for (unsigned K = B->First; K < B->First + B->Count; ++K) {
      if (!Code.Flows[K].Call)
        continue;
      StringRef Name = X86.opcodeName(Code.Instrs[K].Inst.getOpcode());
      if (Name != "CALL64pcrel32" && Name != "CALL64r" && Name != "CALL64m")
        return ("call form the rewriter cannot move (" + Name + ") in loop")
            .str();
      if (Name == "CALL64pcrel32" && !Code.Flows[K].HasTarget)
        return "call without a target in loop";
      Calls = true;
    }
  if (!Calls)
    return "";
  // Outgoing stack arguments are stored and never read back in the loop;
  // a spill slot (a value kept across the call) is reloaded.
  std::set<int64_t> Stored, Loaded;
  for (const CFGBlock *B : Body)
    for (unsigned K = B->First; K < B->First + B->Count; ++K) {
      const MCInst &I = Code.Instrs[K].Inst;
      int Mem = X86.addressOperandIndex(I);
      if (Mem < 0 || !I.getOperand(Mem).isReg() ||
          !isStackPointer(X86, I.getOperand(Mem).getReg()) ||
          !I.getOperand(Mem + 3).isImm())
        continue;
      int64_t Disp = I.getOperand(Mem + 3).getImm();
      const MCInstrDesc &D = X86.instrInfo().get(I.getOpcode());
      if (D.mayStore() && Disp < 48)
        Stored.insert(Disp);
      if (D.mayLoad())
        Loaded.insert(Disp);
    }
  for (int64_t Disp : Stored)
    if (!Loaded.count(Disp))
      return "call with stack arguments in loop (a store near the stack "
             "pointer): measured copies run on another stack";
  return "";
}

/// Why instruction \p K cannot run from new code, or "".
static std::string checkInstruction(const FunctionCode &Code,
                                    const decan::X86Target &X86, unsigned K) {
  const MCInst &I = Code.Instrs[K].Inst;
  const Flow &Fl = Code.Flows[K];
  if (Fl.Return)
    return "return in loop";
  if (Fl.Indirect)
    return "indirect jump in loop";
  StringRef Name = X86.opcodeName(I.getOpcode());
  if (Name.starts_with("LOOP") || Name.starts_with("JCXZ") ||
      Name.starts_with("JECXZ") || Name.starts_with("JRCXZ") ||
      Name.starts_with("XBEGIN"))
    return ("rel8-only branch (" + Name + ") in loop").str();
  if (Fl.Branch && !Fl.Barrier && !Fl.Cond && !Fl.HasTarget)
    return "unknown control flow in loop";
  const MCInstrDesc &D = X86.instrInfo().get(I.getOpcode());
  for (MCPhysReg R : D.implicit_uses())
    if (isStackPointer(X86, R) && !Fl.Call)
      return ("stack pointer use (" + Name + ") in loop").str();
  for (MCPhysReg R : D.implicit_defs())
    if (isStackPointer(X86, R) && !Fl.Call)
      return ("stack pointer write (" + Name + ") in loop").str();
  int Mem = X86.addressOperandIndex(I);
  for (unsigned O = 0; O < I.getNumOperands(); ++O) {
    if (Mem >= 0 && O >= unsigned(Mem) && O < unsigned(Mem) + 5)
      continue;
    const MCOperand &Op = I.getOperand(O);
    if (Op.isReg() && Op.getReg() == X86.RIP)
      return ("RIP outside a memory operand (" + Name + ")").str();
    if (Op.isReg() && isStackPointer(X86, Op.getReg()))
      return ("stack pointer used as a value (" + Name + ") in loop").str();
  }
  // fs:/gs: accesses are position independent: fine to move.
  if (Mem >= 0) {
    const MCOperand &Idx = I.getOperand(Mem + 2);
    if (Idx.isReg() && isStackPointer(X86, Idx.getReg()))
      return "stack pointer as an index register in loop";
  }
  unsigned Opc = I.getOpcode();
  bool DirectBranch = Fl.Branch && Fl.HasTarget &&
                      (Opc == X86.JMP_1 || Opc == X86.JMP_4 ||
                       Opc == X86.JCC_1 || Opc == X86.JCC_4);
  if (Fl.Branch && !DirectBranch)
    return ("branch form the rewriter cannot move (" + Name + ")").str();
  // A direct call is re-emitted as call rel32 to its target.
  bool DirectCall = Fl.Call && Fl.HasTarget && Name == "CALL64pcrel32";
  if (!DirectBranch && !DirectCall && X86.encodedSize(I) == 0)
    return ("instruction the encoder cannot re-encode (" + Name + ")").str();
  return "";
}

std::string
decan::rewriter::whyNotRelocatable(const FunctionCFG &CFG,
                                   const decan::X86Target &X86,
                                   ArrayRef<const CFGBlock *> Body) {
  if (std::string Why = checkCalls(CFG, X86, Body); !Why.empty())
    return Why;
  for (const CFGBlock *B : Body)
    for (unsigned K = B->First; K < B->First + B->Count; ++K)
      if (std::string Why = checkInstruction(CFG.code(), X86, K); !Why.empty())
        return Why;
  return "";
}

bool decan::rewriter::flagsLiveIn(const FunctionCFG &CFG,
                                  const decan::X86Target &X86,
                                  ArrayRef<const CFGBlock *> Body,
                                  const CFGBlock &Header) {
  const MCInstrInfo &MII = X86.instrInfo();
  auto ReadsFlags = [&](const MCInst &I) {
    for (MCPhysReg R : MII.get(I.getOpcode()).implicit_uses())
      if (R == X86.EFLAGS)
        return true;
    // A partial write (inc/dec keep CF) merges: a read.
    return decan::mergesFlags(X86.opcodeName(I.getOpcode()));
  };
  auto WritesFlags = [&](const MCInst &I) {
    for (MCPhysReg R : MII.get(I.getOpcode()).implicit_defs())
      if (R == X86.EFLAGS)
        return true;
    return false;
  };
  // Per block: read first, written first, or neither (then live-in when a
  // successor is, or the block leaves the loop).
  enum Local { Neither, ReadFirst, WrittenFirst };
  DenseMap<const CFGBlock *, Local> First;
  DenseMap<const CFGBlock *, bool> LiveIn;
  for (const CFGBlock *B : Body) {
    Local L = Neither;
    for (unsigned K = B->First; K < B->First + B->Count && L == Neither; ++K) {
      const MCInst &I = CFG.code().Instrs[K].Inst;
      if (ReadsFlags(I))
        L = ReadFirst;
      else if (WritesFlags(I))
        L = WrittenFirst;
    }
    First[B] = L;
    LiveIn[B] = L == ReadFirst || (L == Neither && !B->ExternSucc.empty());
  }
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const CFGBlock *B : Body) {
      if (LiveIn[B] || First[B] == WrittenFirst)
        continue;
      bool L = false;
      for (const CFGBlock *S : B->Succs) {
        auto It = LiveIn.find(S);
        L |= It == LiveIn.end() || It->second;
      }
      if (L) {
        LiveIn[B] = true;
        Changed = true;
      }
    }
  }
  return LiveIn[&Header];
}

/// A loop that calls runs from new code when rewritten: the relocated
/// original (on the program's stack) gets its function's unwind rule at
/// the header and personality, with an exception table that lets an
/// exception pass or end the program where the original's does, but that
/// has no landing pad: a call with a handler in its function keeps its loop
/// in place. (A measured copy's frame unwinds to the original call site
/// and its exception table: Dispatcher.h.)
void decan::rewriter::skipLoopsExceptionsCannotLeave(
    const BinaryImage &Bin, const decan::X86Target &X86,
    std::vector<LoopCandidate> &Loops) {
  auto At = [](const LoopCandidate &L, uint64_t A) {
    return L.Function + "+0x" + utohexstr(A - L.FunctionStart, true);
  };
  for (LoopCandidate &L : Loops) {
    if (!L.SkipReason.empty())
      continue;
    bool Calls = false;
    for (const LoopBlock &B : L.Blocks)
      for (const Instr &I : B.Instrs) {
        if (!L.SkipReason.empty() || !X86.analysis().isCall(I.Inst))
          continue;
        Calls = true;
        uint64_t LP = 0;
        switch (Bin.unwind().landingFor(I.Addr + I.Size, LP)) {
        case CallLanding::NoTable:
        case CallLanding::Through:
        case CallLanding::Terminates: // the copy's table says so too
          break;
        case CallLanding::Handler:
          L.SkipReason = "the call at " + At(L, I.Addr) +
                         " has an exception handler in its function (at " +
                         At(L, LP) + "): a relocated loop could not reach it";
          break;
        case CallLanding::Unreadable:
          L.SkipReason = "its function's exception table cannot be read";
          break;
        }
      }
    std::string Why;
    if (Calls && L.SkipReason.empty() && Bin.unwind().fdeFor(L.Header) &&
        !Bin.unwind().ruleAt(L.Header, Why))
      L.SkipReason = "it calls, and its function's unwind rule at the loop "
                     "cannot be copied (" +
                     Why + ")";
  }
}
