//===- FunctionCode.cpp - One function's instructions, decoded ------------===//
//
// Part of decan. See FunctionCode.h.
//
//===----------------------------------------------------------------------===//

#include "FunctionCode.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"

using namespace llvm;
using namespace decan::rewriter;

static Flow flowOf(const decan::X86Target &X86, const Instr &I) {
  Flow Fl;
  const MCInstrAnalysis &A = X86.analysis();
  const MCInstrDesc &D = X86.instrInfo().get(I.Inst.getOpcode());
  Fl.Call = A.isCall(I.Inst);
  Fl.Return = A.isReturn(I.Inst);
  Fl.Branch = A.isBranch(I.Inst) && !Fl.Call;
  Fl.Cond = Fl.Branch && A.isConditionalBranch(I.Inst);
  Fl.Indirect = A.isIndirectBranch(I.Inst) && !Fl.Call;
  Fl.Barrier =
      D.isBarrier() || Fl.Return || (Fl.Branch && !Fl.Cond && !Fl.Call);
  uint64_t T;
  if ((Fl.Branch || Fl.Call) && !Fl.Indirect &&
      A.evaluateBranch(I.Inst, I.Addr, I.Size, T)) {
    Fl.Target = T;
    Fl.HasTarget = true;
  }
  return Fl;
}

FunctionCode decan::rewriter::decodeFunction(const BinaryImage &Bin,
                                             const decan::X86Target &X86,
                                             const FunctionRange &F,
                                             FinderStats &Stats) {
  FunctionCode FC;
  FC.Range = &F;
  ArrayRef<uint8_t> Code = Bin.codeAt(F.Start, F.End - F.Start);
  uint64_t Off = 0;
  while (Off < Code.size()) {
    Instr I;
    I.Addr = F.Start + Off;
    I.Size = X86.decode(Code.slice(Off), I.Addr, I.Inst);
    if (!I.Size) {
      // Trailing padding after the last instruction is common; anything
      // else means the function's code is not fully known.
      bool Padding = true;
      for (uint64_t K = Off; K < Code.size(); ++K)
        Padding &= Code[K] == 0 || Code[K] == 0xcc;
      if (!Padding) {
        FC.Problem =
            "undecodable bytes at +0x" + utohexstr(Off, /*LowerCase=*/true);
        Stats.UndecodedBytes += Code.size() - Off;
        ++Stats.UndecodableFunctions;
      }
      break;
    }
    Stats.DecodedBytes += I.Size;
    Off += I.Size;
    FC.Instrs.push_back(std::move(I));
  }
  FC.Flows.reserve(FC.Instrs.size());
  for (const Instr &I : FC.Instrs)
    FC.Flows.push_back(flowOf(X86, I));
  return FC;
}

bool decan::rewriter::isPaddingOpcode(StringRef N) {
  return N.starts_with("NOOP") || N == "INT3" || N == "NOP";
}
