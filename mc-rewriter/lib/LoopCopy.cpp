//===- LoopCopy.cpp - A loop body ready to be placed in new code ----------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/LoopCopy.h"

#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

using namespace llvm;
using namespace decan::rewriter;

/// Copy of one original instruction with its position-dependent parts made
/// absolute.
static CopyInst copyOf(const decan::X86Target &X86, const Instr &I) {
  CopyInst C;
  C.MI = I.Inst;
  unsigned Opc = I.Inst.getOpcode();
  if (Opc == X86.JMP_1 || Opc == X86.JMP_4 || Opc == X86.JCC_1 ||
      Opc == X86.JCC_4) {
    uint64_t T;
    if (X86.analysis().evaluateBranch(I.Inst, I.Addr, I.Size, T)) {
      C.IsBranch = true;
      C.BranchTarget = T;
    }
  }
  if (X86.opcodeName(Opc) == "CALL64pcrel32") {
    uint64_t T;
    if (X86.analysis().evaluateBranch(I.Inst, I.Addr, I.Size, T)) {
      C.IsCall = true;
      C.CallTarget = T;
    }
  }
  if (X86.analysis().isCall(I.Inst))
    C.ReturnAddr = I.Addr + I.Size;
  int Mem = X86.addressOperandIndex(I.Inst);
  if (Mem >= 0 && I.Inst.getOperand(Mem).isReg() &&
      I.Inst.getOperand(Mem).getReg() == X86.RIP &&
      I.Inst.getOperand(Mem + 3).isImm()) {
    C.HasRip = true;
    C.RipTarget = I.Addr + I.Size + I.Inst.getOperand(Mem + 3).getImm();
  }
  return C;
}

LoopCopy decan::rewriter::refCopy(const decan::X86Target &X86,
                                  const LoopCandidate &L) {
  LoopCopy Copy;
  // Header first, then the blocks after it, then those before it: keeps
  // most fall-through edges of rotated loops.
  size_t H = 0;
  while (H < L.Blocks.size() && L.Blocks[H].Start != L.Header)
    ++H;
  for (size_t K = 0; K < L.Blocks.size(); ++K) {
    const LoopBlock &B = L.Blocks[(H + K) % L.Blocks.size()];
    CopyBlock CB;
    CB.Start = B.Start;
    CB.FallThrough = B.FallThrough;
    for (const Instr &I : B.Instrs)
      CB.Instrs.push_back(copyOf(X86, I));
    Copy.Blocks.push_back(std::move(CB));
  }
  return Copy;
}
