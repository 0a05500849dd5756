//===- FunctionCFG.cpp - A function's machine CFG -------------------------===//
//
// Part of decan. See FunctionCFG.h.
//
//===----------------------------------------------------------------------===//

#include "FunctionCFG.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;
using namespace decan::rewriter;

bool CFGBlock::isVirtualEntry() const {
  return Number + 1 == Parent->getMaxNumber();
}

void CFGBlock::printAsOperand(raw_ostream &OS, bool) const {
  if (isVirtualEntry())
    OS << "entry";
  else
    OS << format_hex(Start, 0);
}

FunctionCFG::FunctionCFG(const FunctionCode &Code, const BinaryImage &Bin,
                         const decan::X86Target &X86, FinderStats &Stats)
    : Code(Code) {
  findBlocks(Bin, X86, Stats);
  if (Blocks.size() == 1) // the virtual entry alone: no code
    return;
  addEdges();
  cutDeadPadding(X86);
  linkEntry();
}

const CFGBlock *FunctionCFG::blockAt(uint64_t Addr) const {
  auto It = BlockAt.find(Addr);
  return It == BlockAt.end() ? nullptr : &Blocks[It->second];
}

/// Jump tables of the two forms compilers emit for a switch:
///   lea T(%rip), %rt; movslq (%rt,%ri,4), %rx; add %rt, %rx; jmp *%rx
///   jmp *T(,%ri,8)                                  (position-dependent)
/// with the lea in the jump's block or, when it is hoisted, the only
/// instruction of the function that sets %rt (tableBaseOf).
/// Entries are read while they name an instruction of this function; the
/// bound check before the jump is not analysed, so extra entries can only
/// add edges (a conservative CFG), never drop real ones.
bool FunctionCFG::resolveJumpTable(
    const BinaryImage &Bin, const decan::X86Target &X86, unsigned K,
    const DenseMap<uint64_t, unsigned> &InstrAt) {
  const std::vector<Instr> &Instrs = Code.Instrs;
  const MCInst &J = Instrs[K].Inst;
  StringRef Name = X86.opcodeName(J.getOpcode());
  std::vector<uint64_t> Targets;
  uint64_t Start = Code.Range->Start, End = Code.end();
  auto Valid = [&](uint64_t T) {
    return T >= Start && T < End && InstrAt.count(T);
  };
  if (Name == "JMP64r") {
    uint64_t Table = 0;
    MCRegister Base; // of the table load
    for (unsigned B = 1; B <= 8 && B <= K && !Table; ++B) {
      const Instr &I = Instrs[K - B];
      StringRef N = X86.opcodeName(I.Inst.getOpcode());
      if (!Base && N == "MOVSX64rm32" && I.Inst.getOperand(2).isImm() &&
          I.Inst.getOperand(2).getImm() == 4 && I.Inst.getOperand(1).getReg())
        Base = I.Inst.getOperand(1).getReg();
      if (N == "LEA64r" && Base && I.Inst.getOperand(0).getReg() == Base &&
          I.Inst.getOperand(1).getReg() == X86.RIP)
        Table = I.Addr + I.Size + I.Inst.getOperand(4).getImm();
      if (Code.Flows[K - B].Branch || Code.Flows[K - B].Call)
        break;
    }
    // The base is often loaded once, before the loop the switch is in.
    if (!Table && Base && Base != X86.RIP)
      Table = tableBaseOf(X86, Base);
    if (!Table)
      return false;
    for (unsigned E = 0; E < 4096; ++E) {
      ArrayRef<uint8_t> D = Bin.dataAt(Table + 4 * E, 4);
      if (D.empty())
        break;
      int32_t V = int32_t(uint32_t(D[0]) | uint32_t(D[1]) << 8 |
                          uint32_t(D[2]) << 16 | uint32_t(D[3]) << 24);
      uint64_t T = Table + int64_t(V);
      if (!Valid(T))
        break;
      Targets.push_back(T);
    }
  } else if (Name == "JMP64m" && J.getOperand(0).getReg() == 0 &&
             J.getOperand(1).getImm() == 8 && J.getOperand(2).getReg() &&
             J.getOperand(3).isImm() && J.getOperand(4).getReg() == 0) {
    uint64_t Table = uint64_t(J.getOperand(3).getImm());
    for (unsigned E = 0; E < 4096; ++E) {
      ArrayRef<uint8_t> D = Bin.dataAt(Table + 8 * E, 8);
      if (D.empty())
        break;
      uint64_t T = 0;
      for (int B = 0; B < 8; ++B)
        T |= uint64_t(D[B]) << (8 * B);
      if (!Valid(T))
        break;
      Targets.push_back(T);
    }
  }
  if (Targets.empty())
    return false;
  TableTargets[K] = std::move(Targets);
  return true;
}

/// The table a switch's base register \p Base holds when every instruction
/// of the function that sets it is one `lea T(%rip), Base` (the same T), or
/// 0. Other writers that compiled code cannot mean as a table (a call's
/// clobber, the epilogue's pop restoring the caller's value) are ignored: a
/// table lookup through such a value would be a compiler's bug.
uint64_t FunctionCFG::tableBaseOf(const decan::X86Target &X86,
                                  MCRegister Base) const {
  const MCRegisterInfo &MRI = X86.regInfo();
  const MCInstrInfo &MII = X86.instrInfo();
  uint64_t Table = 0;
  for (unsigned K = 0; K < Code.Instrs.size(); ++K) {
    const MCInst &I = Code.Instrs[K].Inst;
    const MCInstrDesc &D = MII.get(I.getOpcode());
    bool Writes = false;
    for (unsigned O = 0; O < D.getNumDefs() && O < I.getNumOperands(); ++O)
      Writes |= I.getOperand(O).isReg() &&
                MRI.regsOverlap(I.getOperand(O).getReg(), Base);
    for (MCPhysReg R : D.implicit_defs())
      Writes |= MRI.regsOverlap(R, Base);
    StringRef N = X86.opcodeName(I.getOpcode());
    if (!Writes || Code.Flows[K].Call || N == "POP64r")
      continue;
    if (N != "LEA64r" || I.getOperand(0).getReg() != Base ||
        I.getOperand(1).getReg() != X86.RIP || I.getOperand(3).getReg() ||
        !I.getOperand(4).isImm())
      return 0;
    uint64_t T =
        Code.Instrs[K].Addr + Code.Instrs[K].Size + I.getOperand(4).getImm();
    if (Table && T != Table)
      return 0;
    Table = T;
  }
  return Table;
}

/// An indirect jump that leaves the function: through a RIP-relative slot
/// without index (a GOT entry), or right after the frame is torn down (pop,
/// leave, add to rsp), as compilers emit indirect tail calls. A jump within
/// the function needs the frame it jumps from.
bool FunctionCFG::isIndirectTailCall(const decan::X86Target &X86,
                                     unsigned K) const {
  const MCInst &J = Code.Instrs[K].Inst;
  StringRef Name = X86.opcodeName(J.getOpcode());
  if (Name == "JMP64m" && J.getOperand(0).getReg() == X86.RIP &&
      J.getOperand(2).getReg() == 0)
    return true;
  if (K == 0 || (Name != "JMP64r" && Name != "JMP64m"))
    return false;
  const MCInst &P = Code.Instrs[K - 1].Inst;
  StringRef PN = X86.opcodeName(P.getOpcode());
  if (PN == "POP64r" || PN == "LEAVE64")
    return true;
  return (PN == "ADD64ri32" || PN == "ADD64ri8") &&
         P.getOperand(0).getReg() == X86.RSP;
}

/// Block leaders (the entry, branch and jump-table targets, what follows a
/// branch, return or barrier) and the blocks they start; the virtual entry
/// last.
void FunctionCFG::findBlocks(const BinaryImage &Bin,
                             const decan::X86Target &X86, FinderStats &Stats) {
  const std::vector<Instr> &Instrs = Code.Instrs;
  uint64_t Start = Code.Range->Start, End = Code.end();
  std::set<uint64_t> Leaders{Start};
  DenseMap<uint64_t, unsigned> InstrAt;
  for (unsigned K = 0; K < Instrs.size(); ++K)
    InstrAt[Instrs[K].Addr] = K;
  bool IndirectJump = false;
  for (unsigned K = 0; K < Instrs.size(); ++K) {
    const Flow &Fl = Code.Flows[K];
    if (Fl.Branch && Fl.Indirect) {
      if (isIndirectTailCall(X86, K)) {
        // Leaves the function: an exit, like a return.
      } else if (resolveJumpTable(Bin, X86, K, InstrAt)) {
        for (uint64_t T : TableTargets[K])
          Leaders.insert(T);
      } else {
        IndirectJump = true;
      }
    }
    if (Fl.Branch && Fl.HasTarget && Fl.Target >= Start && Fl.Target < End) {
      if (!InstrAt.count(Fl.Target)) {
        // A branch into the middle of an instruction: overlapping code.
        Problem = "branch into the middle of an instruction at 0x" +
                  utohexstr(Fl.Target, true);
      } else {
        Leaders.insert(Fl.Target);
      }
    }
    if ((Fl.Branch || Fl.Return || Fl.Barrier) && K + 1 < Instrs.size())
      Leaders.insert(Instrs[K + 1].Addr);
  }
  if (IndirectJump) {
    ++Stats.FunctionsWithIndirectJump;
    UnknownCFG = true;
  }
  Blocks.reserve(Leaders.size() + 1);
  for (unsigned K = 0; K < Instrs.size(); ++K) {
    if (Leaders.count(Instrs[K].Addr)) {
      CFGBlock B;
      B.Start = Instrs[K].Addr;
      B.First = K;
      B.Number = Blocks.size();
      B.Parent = this;
      BlockAt[B.Start] = Blocks.size();
      Blocks.push_back(B);
    }
    CFGBlock &B = Blocks.back();
    B.Count++;
    B.End = Instrs[K].Addr + Instrs[K].Size;
  }
  CFGBlock Entry;
  Entry.Number = Blocks.size();
  Entry.Parent = this;
  Blocks.push_back(Entry);
}

/// Each block's successors: its branch target, the entries of its jump
/// table, its fall-through; targets outside the function are exits.
void FunctionCFG::addEdges() {
  for (CFGBlock &B : drop_end(Blocks)) {
    unsigned Last = B.First + B.Count - 1;
    const Flow &Fl = Code.Flows[Last];
    auto AddSucc = [&](uint64_t T) {
      auto It = BlockAt.find(T);
      if (It == BlockAt.end()) {
        B.ExternSucc.push_back(T);
        return;
      }
      CFGBlock *S = &Blocks[It->second];
      if (!is_contained(B.Succs, S))
        B.Succs.push_back(S);
    };
    if (Fl.Branch && Fl.HasTarget)
      AddSucc(Fl.Target);
    if (auto It = TableTargets.find(Last); It != TableTargets.end())
      for (uint64_t T : It->second)
        AddSucc(T);
    if (!Fl.Barrier) {
      B.FallThrough = B.End;
      AddSucc(B.End);
    }
  }
  for (CFGBlock &B : drop_end(Blocks))
    for (CFGBlock *S : B.Succs)
      S->Preds.push_back(&B);
}

/// Alignment padding after a jump or return (nopw/nopl/int3) is dead code
/// that falls into the next block: without this it would look like a
/// second entry into loops whose header follows padding.
void FunctionCFG::cutDeadPadding(const decan::X86Target &X86) {
  for (CFGBlock &B : drop_end(drop_begin(Blocks))) {
    bool OnlyPadding = true;
    for (unsigned K = B.First; K < B.First + B.Count && OnlyPadding; ++K)
      OnlyPadding =
          isPaddingOpcode(X86.opcodeName(Code.Instrs[K].Inst.getOpcode()));
    if (!OnlyPadding || !B.Preds.empty())
      continue;
    for (CFGBlock *S : B.Succs)
      erase(S->Preds, &B);
    B.Succs.clear();
    B.FallThrough = 0;
    // Room for trampolines, where no unknown edge can land either.
    if (!UnknownCFG)
      Padding.push_back({B.Start, B.End});
  }
}

/// The virtual entry leads to block 0 and to every block without a
/// predecessor: a landing pad, or code only an unknown jump reaches.
void FunctionCFG::linkEntry() {
  CFGBlock &Entry = entry();
  Entry.Succs.push_back(&Blocks[0]);
  for (CFGBlock &B : drop_end(drop_begin(Blocks)))
    if (B.Preds.empty())
      Entry.Succs.push_back(&B);
  for (CFGBlock *S : Entry.Succs)
    S->Preds.push_back(&Entry);
}
