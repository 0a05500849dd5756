//===- LoopFinder.cpp - Innermost loops of a prebuilt binary --------------===//
//
// Part of decan.
// Over 600 lines on purpose: one
// analysis (decode, blocks, jump tables, dominators, natural loops, skip
// reasons) over one FunctionAnalyzer's state.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/LoopFinder.h"
#include "decan/Rewriter/Unwind.h"

#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
using namespace decan::rewriter;

uint64_t LoopCandidate::bytes() const {
  uint64_t N = 0;
  for (const LoopBlock &B : Blocks)
    N += B.End - B.Start;
  return N;
}

unsigned LoopCandidate::numInstrs() const {
  unsigned N = 0;
  for (const LoopBlock &B : Blocks)
    N += B.Instrs.size();
  return N;
}

bool LoopCandidate::contains(uint64_t Addr) const {
  for (const LoopBlock &B : Blocks)
    if (B.Start == Addr)
      return true;
  return false;
}

namespace {

/// What control flow an instruction has, from MCInstrDesc/MCInstrAnalysis.
struct Flow {
  bool Branch = false, Cond = false, Indirect = false, Call = false,
       Return = false, Barrier = false;
  uint64_t Target = 0; ///< direct branch/call target
  bool HasTarget = false;
};

struct Block {
  uint64_t Start = 0, End = 0;
  unsigned First = 0, Count = 0;
  SmallVector<unsigned, 2> Succs;      // block indices
  SmallVector<uint64_t, 2> ExternSucc; // targets outside the function
  SmallVector<unsigned, 4> Preds;
  uint64_t FallThrough = 0;
};

class FunctionAnalyzer {
public:
  FunctionAnalyzer(const BinaryImage &Bin, const decan::X86Target &X86,
                   const FunctionRange &F, FinderStats &Stats, bool WithLines)
      : Bin(Bin), X86(X86), F(F), Stats(Stats), WithLines(WithLines) {}

  void run(std::vector<LoopCandidate> &Out);
  /// Targets of the function's direct calls (after run()).
  std::vector<uint64_t> CallTargets;

private:
  Flow flowOf(const Instr &I) const;
  bool decode();
  void buildBlocks();
  void computeDominators();
  bool dominates(unsigned A, unsigned B) const;
  std::string checkLoop(const std::vector<unsigned> &Body, unsigned Header,
                        bool &FlagsLiveIn) const;

  const BinaryImage &Bin;
  const decan::X86Target &X86;
  const FunctionRange &F;
  FinderStats &Stats;
  bool WithLines;
  std::vector<Instr> Instrs;
  std::vector<Flow> Flows;
  std::vector<Block> Blocks;
  DenseMap<uint64_t, unsigned> BlockAt;
  std::vector<int> IDom; // -1: unreachable; root's idom is itself
  std::vector<unsigned> RPONumber;
  std::set<unsigned> DeadPadding; // NOP-only blocks
  /// Targets of resolved jump tables, by instruction index of the jump.
  std::map<unsigned, std::vector<uint64_t>> TableTargets;
  bool isIndirectTailCall(unsigned K) const;
  bool resolveJumpTable(unsigned K, uint64_t End,
                        const DenseMap<uint64_t, unsigned> &InstrAt);
  std::string Problem; // makes every loop of the function skipped
  std::vector<std::pair<unsigned, unsigned>> Irreducible; // retreating edges
};

} // namespace

Flow FunctionAnalyzer::flowOf(const Instr &I) const {
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

bool FunctionAnalyzer::decode() {
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
        Problem =
            "undecodable bytes at +0x" + utohexstr(Off, /*LowerCase=*/true);
        Stats.UndecodedBytes += Code.size() - Off;
        ++Stats.UndecodableFunctions;
      }
      break;
    }
    Stats.DecodedBytes += I.Size;
    Off += I.Size;
    Instrs.push_back(std::move(I));
  }
  Flows.reserve(Instrs.size());
  for (const Instr &I : Instrs)
    Flows.push_back(flowOf(I));
  return !Instrs.empty();
}

/// Jump tables of the two forms compilers emit for a switch:
///   lea T(%rip), %rt; movslq (%rt,%ri,4), %rx; add %rt, %rx; jmp *%rx
///   jmp *T(,%ri,8)                                  (position-dependent)
/// Entries are read while they name an instruction of this function; the
/// bound check before the jump is not analysed, so extra entries can only
/// add edges (a conservative CFG), never drop real ones.
bool FunctionAnalyzer::resolveJumpTable(
    unsigned K, uint64_t End, const DenseMap<uint64_t, unsigned> &InstrAt) {
  const MCInst &J = Instrs[K].Inst;
  StringRef Name = X86.opcodeName(J.getOpcode());
  std::vector<uint64_t> Targets;
  auto Valid = [&](uint64_t T) {
    return T >= F.Start && T < End && InstrAt.count(T);
  };
  if (Name == "JMP64r") {
    uint64_t Table = 0;
    bool Load = false;
    for (unsigned B = 1; B <= 8 && B <= K && !Table; ++B) {
      const Instr &I = Instrs[K - B];
      StringRef N = X86.opcodeName(I.Inst.getOpcode());
      if (N == "MOVSX64rm32" && I.Inst.getOperand(2).isImm() &&
          I.Inst.getOperand(2).getImm() == 4)
        Load = true;
      if (N == "LEA64r" && Load && I.Inst.getOperand(1).getReg() == X86.RIP)
        Table = I.Addr + I.Size + I.Inst.getOperand(4).getImm();
      if (Flows[K - B].Branch || Flows[K - B].Call)
        break;
    }
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

/// An indirect jump that leaves the function: through a RIP-relative slot
/// without index (a GOT entry), or right after the frame is torn down (pop,
/// leave, add to rsp), as compilers emit indirect tail calls. A jump within
/// the function needs the frame it jumps from.
bool FunctionAnalyzer::isIndirectTailCall(unsigned K) const {
  const MCInst &J = Instrs[K].Inst;
  StringRef Name = X86.opcodeName(J.getOpcode());
  if (Name == "JMP64m" && J.getOperand(0).getReg() == X86.RIP &&
      J.getOperand(2).getReg() == 0)
    return true;
  if (K == 0 || (Name != "JMP64r" && Name != "JMP64m"))
    return false;
  const MCInst &P = Instrs[K - 1].Inst;
  StringRef PN = X86.opcodeName(P.getOpcode());
  if (PN == "POP64r" || PN == "LEAVE64")
    return true;
  return (PN == "ADD64ri32" || PN == "ADD64ri8") &&
         P.getOperand(0).getReg() == X86.RSP;
}

void FunctionAnalyzer::buildBlocks() {
  uint64_t End = Instrs.back().Addr + Instrs.back().Size;
  std::set<uint64_t> Leaders{F.Start};
  DenseMap<uint64_t, unsigned> InstrAt;
  for (unsigned K = 0; K < Instrs.size(); ++K)
    InstrAt[Instrs[K].Addr] = K;
  bool IndirectJump = false;
  for (unsigned K = 0; K < Instrs.size(); ++K) {
    const Flow &Fl = Flows[K];
    if (Fl.Branch && Fl.Indirect) {
      if (isIndirectTailCall(K)) {
        // Leaves the function: an exit, like a return.
      } else if (resolveJumpTable(K, End, InstrAt)) {
        for (uint64_t T : TableTargets[K])
          Leaders.insert(T);
      } else {
        IndirectJump = true;
      }
    }
    if (Fl.Branch && Fl.HasTarget && Fl.Target >= F.Start && Fl.Target < End) {
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
    if (Problem.empty())
      Problem = "unresolved indirect jump in function (its CFG is unknown)";
  }
  for (unsigned K = 0; K < Instrs.size(); ++K) {
    if (Leaders.count(Instrs[K].Addr)) {
      Block B;
      B.Start = Instrs[K].Addr;
      B.First = K;
      BlockAt[B.Start] = Blocks.size();
      Blocks.push_back(B);
    }
    Block &B = Blocks.back();
    B.Count++;
    B.End = Instrs[K].Addr + Instrs[K].Size;
  }
  for (unsigned BI = 0; BI < Blocks.size(); ++BI) {
    Block &B = Blocks[BI];
    unsigned Last = B.First + B.Count - 1;
    const Flow &Fl = Flows[Last];
    auto AddSucc = [&](uint64_t T) {
      auto It = BlockAt.find(T);
      if (It != BlockAt.end()) {
        if (!is_contained(B.Succs, It->second))
          B.Succs.push_back(It->second);
      } else {
        B.ExternSucc.push_back(T);
      }
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
  // Alignment padding after a jump or return (nopw/nopl/int3) is dead code
  // that falls into the next block: without this it would look like a
  // second entry into loops whose header follows padding.
  for (unsigned BI = 1; BI < Blocks.size(); ++BI) {
    bool Padding = true;
    for (unsigned K = Blocks[BI].First;
         K < Blocks[BI].First + Blocks[BI].Count && Padding; ++K) {
      StringRef N = X86.opcodeName(Instrs[K].Inst.getOpcode());
      Padding = N.starts_with("NOOP") || N == "INT3" || N == "NOP";
    }
    if (Padding)
      DeadPadding.insert(BI);
  }
  for (unsigned BI = 0; BI < Blocks.size(); ++BI)
    for (unsigned S : Blocks[BI].Succs)
      Blocks[S].Preds.push_back(BI);
  for (unsigned BI : DeadPadding)
    if (Blocks[BI].Preds.empty()) {
      for (unsigned S : Blocks[BI].Succs)
        erase(Blocks[S].Preds, BI);
      Blocks[BI].Succs.clear();
      Blocks[BI].FallThrough = 0;
    }
}

void FunctionAnalyzer::computeDominators() {
  // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm". Blocks
  // with no predecessor other than the entry (landing pads, code reached
  // only indirectly) are treated as extra roots under a virtual root N.
  unsigned N = Blocks.size();
  auto SuccsOf = [&](unsigned B) -> SmallVector<unsigned, 8> {
    if (B == N) {
      SmallVector<unsigned, 8> R{0};
      for (unsigned K = 1; K < N; ++K)
        if (Blocks[K].Preds.empty())
          R.push_back(K);
      return R;
    }
    return SmallVector<unsigned, 8>(Blocks[B].Succs.begin(),
                                    Blocks[B].Succs.end());
  };
  // Iterative DFS for postorder, and retreating edges for irreducibility.
  std::vector<unsigned> Post;
  std::vector<uint8_t> State(N + 1, 0); // 0 new, 1 on stack, 2 done
  std::vector<std::pair<unsigned, SmallVector<unsigned, 8>>> Stack;
  Stack.push_back({N, SuccsOf(N)});
  State[N] = 1;
  std::vector<std::pair<unsigned, unsigned>> Retreating;
  while (!Stack.empty()) {
    auto &[B, Pending] = Stack.back();
    if (Pending.empty()) {
      State[B] = 2;
      Post.push_back(B);
      Stack.pop_back();
      continue;
    }
    unsigned S = Pending.front();
    Pending.erase(Pending.begin());
    if (State[S] == 1)
      Retreating.push_back({B, S});
    if (State[S] != 0)
      continue;
    State[S] = 1;
    unsigned BB = B;
    (void)BB;
    Stack.push_back({S, SuccsOf(S)});
  }
  RPONumber.assign(N + 1, ~0u);
  std::vector<unsigned> RPO(Post.rbegin(), Post.rend());
  for (unsigned K = 0; K < RPO.size(); ++K)
    RPONumber[RPO[K]] = K;
  IDom.assign(N + 1, -1);
  IDom[N] = N;
  auto Intersect = [&](unsigned A, unsigned B) {
    while (A != B) {
      while (RPONumber[A] > RPONumber[B])
        A = IDom[A];
      while (RPONumber[B] > RPONumber[A])
        B = IDom[B];
    }
    return A;
  };
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (unsigned B : RPO) {
      if (B == N)
        continue;
      SmallVector<unsigned, 8> Ps(Blocks[B].Preds.begin(),
                                  Blocks[B].Preds.end());
      if (B == 0 || Blocks[B].Preds.empty())
        Ps.push_back(N);
      int New = -1;
      for (unsigned P : Ps) {
        if (IDom[P] < 0)
          continue;
        New = New < 0 ? int(P) : int(Intersect(P, New));
      }
      if (New >= 0 && IDom[B] != New) {
        IDom[B] = New;
        Changed = true;
      }
    }
  }
  for (auto [From, To] : Retreating)
    if (From != N && !dominates(To, From))
      Irreducible.push_back({From, To});
}

bool FunctionAnalyzer::dominates(unsigned A, unsigned B) const {
  if (IDom[B] < 0)
    return false;
  unsigned N = Blocks.size();
  while (true) {
    if (A == B)
      return true;
    if (B == N)
      return false;
    B = IDom[B];
  }
}

std::string FunctionAnalyzer::checkLoop(const std::vector<unsigned> &Body,
                                        unsigned Header,
                                        bool &FlagsLiveIn) const {
  const MCInstrInfo &MII = X86.instrInfo();
  const MCRegisterInfo &MRI = X86.regInfo();
  auto IsRSP = [&](MCRegister R) {
    return R && MRI.isSuperOrSubRegisterEq(X86.RSP, R);
  };
  std::set<unsigned> InBody(Body.begin(), Body.end());
  // Calls are measured (REF with them, NO_CALL without: the variant rules
  // delete a call the rewriter knows nothing about in every other variant).
  // Measured copies run on a stack FrameDelta lower than the program's, so
  // a callee could not find arguments passed on the stack: a loop that
  // calls and stores near the stack pointer without reading the slot back
  // (an outgoing argument, not a spill) is refused.
  bool Calls = false;
  for (unsigned BI : Body)
    for (unsigned K = Blocks[BI].First; K < Blocks[BI].First + Blocks[BI].Count;
         ++K) {
      const Instr &I = Instrs[K];
      if (!Flows[K].Call)
        continue;
      StringRef Name = X86.opcodeName(I.Inst.getOpcode());
      if (Name != "CALL64pcrel32" && Name != "CALL64r" && Name != "CALL64m")
        return ("call form the rewriter cannot move (" + Name + ") in loop")
            .str();
      if (Name == "CALL64pcrel32" && !Flows[K].HasTarget)
        return "call without a target in loop";
      Calls = true;
    }
  if (Calls) {
    // Outgoing stack arguments are stored and never read back in the loop;
    // a spill slot (a value kept across the call) is reloaded.
    std::set<int64_t> Stored, Loaded;
    for (unsigned BI : Body)
      for (unsigned K = Blocks[BI].First;
           K < Blocks[BI].First + Blocks[BI].Count; ++K) {
        const Instr &I = Instrs[K];
        int Mem = X86.addressOperandIndex(I.Inst);
        if (Mem < 0 || !I.Inst.getOperand(Mem).isReg() ||
            !IsRSP(I.Inst.getOperand(Mem).getReg()) ||
            !I.Inst.getOperand(Mem + 3).isImm())
          continue;
        int64_t Disp = I.Inst.getOperand(Mem + 3).getImm();
        const MCInstrDesc &D = MII.get(I.Inst.getOpcode());
        if (D.mayStore() && Disp < 48)
          Stored.insert(Disp);
        if (D.mayLoad())
          Loaded.insert(Disp);
      }
    for (int64_t Disp : Stored)
      if (!Loaded.count(Disp))
        return "call with stack arguments in loop (a store near the stack "
               "pointer): measured copies run on another stack";
  }
  for (unsigned BI : Body) {
    const Block &B = Blocks[BI];
    for (unsigned K = B.First; K < B.First + B.Count; ++K) {
      const Instr &I = Instrs[K];
      const Flow &Fl = Flows[K];
      if (Fl.Return)
        return "return in loop";
      if (Fl.Indirect)
        return "indirect jump in loop";
      StringRef Name = X86.opcodeName(I.Inst.getOpcode());
      if (Name.starts_with("LOOP") || Name.starts_with("JCXZ") ||
          Name.starts_with("JECXZ") || Name.starts_with("JRCXZ") ||
          Name == "XBEGIN" || Name.starts_with("XBEGIN"))
        return ("rel8-only branch (" + Name + ") in loop").str();
      if (Fl.Branch && Fl.Barrier == false && !Fl.Cond && !Fl.HasTarget)
        return "unknown control flow in loop";
      const MCInstrDesc &D = MII.get(I.Inst.getOpcode());
      for (MCPhysReg R : D.implicit_uses())
        if (IsRSP(R) && !Fl.Call)
          return ("stack pointer use (" + Name + ") in loop").str();
      for (MCPhysReg R : D.implicit_defs())
        if (IsRSP(R) && !Fl.Call)
          return ("stack pointer write (" + Name + ") in loop").str();
      int Mem = X86.addressOperandIndex(I.Inst);
      for (unsigned O = 0; O < I.Inst.getNumOperands(); ++O) {
        if (Mem >= 0 && O >= unsigned(Mem) && O < unsigned(Mem) + 5)
          continue;
        const MCOperand &Op = I.Inst.getOperand(O);
        if (Op.isReg() && Op.getReg() == X86.RIP)
          return ("RIP outside a memory operand (" + Name + ")").str();
        if (Op.isReg() && IsRSP(Op.getReg()))
          return ("stack pointer used as a value (" + Name + ") in loop").str();
      }
      if (Mem >= 0) {
        const MCOperand &Idx = I.Inst.getOperand(Mem + 2);
        if (Idx.isReg() && IsRSP(Idx.getReg()))
          return "stack pointer as an index register in loop";
        const MCOperand &Seg = I.Inst.getOperand(Mem + 4);
        if (Seg.isReg() && Seg.getReg())
          ; // fs:/gs: accesses are position independent; fine to move.
      }
      bool DirectBranch =
          Fl.Branch && Fl.HasTarget &&
          (I.Inst.getOpcode() == X86.JMP_1 || I.Inst.getOpcode() == X86.JMP_4 ||
           I.Inst.getOpcode() == X86.JCC_1 || I.Inst.getOpcode() == X86.JCC_4);
      if (Fl.Branch && !DirectBranch)
        return ("branch form the rewriter cannot move (" + Name + ")").str();
      // A direct call is re-emitted as call rel32 to its target.
      bool DirectCall = Fl.Call && Fl.HasTarget &&
                        X86.opcodeName(I.Inst.getOpcode()) == "CALL64pcrel32";
      if (!DirectBranch && !DirectCall && X86.encodedSize(I.Inst) == 0)
        return ("instruction the encoder cannot re-encode (" + Name + ")")
            .str();
    }
  }
  // The 5-byte jump patched at the header must lie in loop blocks only.
  uint64_t Need = Blocks[Header].Start + 5, Covered = Blocks[Header].Start;
  while (Covered < Need) {
    auto It = BlockAt.find(Covered);
    if (It == BlockAt.end() || !InBody.count(It->second))
      return "loop header too short for the 5-byte patch";
    Covered = Blocks[It->second].End;
  }

  // EFLAGS live-in at the header (the dispatch stub's compare clobbers it
  // unless saved). Leaving the loop counts as a read, conservatively.
  auto ReadsFlags = [&](const Instr &I) {
    const MCInstrDesc &D = MII.get(I.Inst.getOpcode());
    for (MCPhysReg R : D.implicit_uses())
      if (R == X86.EFLAGS)
        return true;
    // A partial write (inc/dec keep CF) merges: a read.
    return decan::mergesFlags(X86.opcodeName(I.Inst.getOpcode()));
  };
  auto WritesFlags = [&](const Instr &I) {
    const MCInstrDesc &D = MII.get(I.Inst.getOpcode());
    for (MCPhysReg R : D.implicit_defs())
      if (R == X86.EFLAGS)
        return true;
    return false;
  };
  std::map<unsigned, bool> LiveIn;
  std::map<unsigned, int> Local; // 1 read first, 0 written first, -1 neither
  for (unsigned BI : Body) {
    int L = -1;
    const Block &B = Blocks[BI];
    for (unsigned K = B.First; K < B.First + B.Count && L < 0; ++K) {
      if (ReadsFlags(Instrs[K]))
        L = 1;
      else if (WritesFlags(Instrs[K]))
        L = 0;
    }
    Local[BI] = L;
    LiveIn[BI] = L == 1 || (L < 0 && !B.ExternSucc.empty());
  }
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (unsigned BI : Body) {
      if (LiveIn[BI] || Local[BI] == 0)
        continue;
      bool L = false;
      for (unsigned S : Blocks[BI].Succs)
        L |= InBody.count(S) ? LiveIn[S] : true;
      if (L) {
        LiveIn[BI] = true;
        Changed = true;
      }
    }
  }
  FlagsLiveIn = LiveIn[Header];
  return "";
}

void FunctionAnalyzer::run(std::vector<LoopCandidate> &Out) {
  if (!decode())
    return;
  for (const Flow &Fl : Flows)
    if (Fl.Call && Fl.HasTarget)
      CallTargets.push_back(Fl.Target);
  buildBlocks();
  computeDominators();
  unsigned N = Blocks.size();
  // Natural loops, merged per header.
  std::map<unsigned, std::set<unsigned>> LoopsByHeader;
  for (unsigned U = 0; U < N; ++U)
    for (unsigned H : Blocks[U].Succs)
      if (dominates(H, U)) {
        std::set<unsigned> &Body = LoopsByHeader[H];
        Body.insert(H);
        SmallVector<unsigned, 16> Work{U};
        while (!Work.empty()) {
          unsigned B = Work.pop_back_val();
          if (!Body.insert(B).second)
            continue;
          for (unsigned P : Blocks[B].Preds)
            Work.push_back(P);
        }
        if (U == H)
          Body.insert(U);
      }
  unsigned Index = 0;
  for (auto &[H, Body] : LoopsByHeader) {
    bool Innermost = true;
    for (auto &[H2, Body2] : LoopsByHeader)
      if (H2 != H && Body.count(H2))
        Innermost = false;
    if (!Innermost)
      continue;
    LoopCandidate L;
    L.Function = F.Name;
    L.FunctionStart = F.Start;
    L.Index = Index++;
    L.Header = Blocks[H].Start;
    std::vector<unsigned> Sorted(Body.begin(), Body.end());
    std::sort(Sorted.begin(), Sorted.end()); // block index == address order
    for (unsigned BI : Sorted) {
      const Block &B = Blocks[BI];
      LoopBlock LB;
      LB.Start = B.Start;
      LB.End = B.End;
      LB.Instrs.assign(Instrs.begin() + B.First,
                       Instrs.begin() + B.First + B.Count);
      for (unsigned S : B.Succs)
        LB.Succs.push_back(Blocks[S].Start);
      for (uint64_t T : B.ExternSucc)
        LB.Succs.push_back(T);
      LB.FallThrough = B.FallThrough;
      L.Blocks.push_back(std::move(LB));
    }
    for (auto [From, To] : Irreducible)
      if (Body.count(From) || Body.count(To))
        L.SkipReason = "irreducible control flow in loop";
    if (L.SkipReason.empty())
      L.SkipReason = Problem;
    if (L.SkipReason.empty())
      L.SkipReason = checkLoop(Sorted, H, L.FlagsLiveIn);
    // The header's own line, else the first line any loop instruction has
    // (compilers give rotated headers line 0).
    std::vector<uint64_t> Addrs{L.Header};
    for (const LoopBlock &LB : L.Blocks)
      for (const Instr &I : LB.Instrs)
        Addrs.push_back(I.Addr);
    for (uint64_t A : WithLines ? Addrs : std::vector<uint64_t>())
      if (auto Line = Bin.lineFor(A)) {
        L.File = Line->first;
        L.Line = Line->second;
        break;
      }
    Out.push_back(std::move(L));
  }
}

/// A loop that calls a function of \p Bin which runs rewritable loops,
/// itself or through its own calls, is skipped, as the plugin skips it: its
/// calls would be measured calls nested in it (the runtime times one loop
/// at a time), and the callee's loops are the innermost ones.
static void
skipLoopsCallingLoops(const BinaryImage &Bin, const decan::X86Target &X86,
                      const std::map<uint64_t, std::vector<uint64_t>> &Calls,
                      std::vector<LoopCandidate> &Loops) {
  std::map<uint64_t, std::string> WithLoops; // function start -> name
  for (const LoopCandidate &L : Loops)
    if (L.SkipReason.empty())
      WithLoops[L.FunctionStart] = L.Function;
  std::map<uint64_t, std::string> Names;
  for (const FunctionRange &F : Bin.functions())
    Names[F.Start] = F.Name;
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const auto &[F, Targets] : Calls)
      if (!WithLoops.count(F))
        for (uint64_t T : Targets)
          if (WithLoops.count(T)) {
            WithLoops[F] = Names[F];
            Grew = true;
            break;
          }
  }
  for (LoopCandidate &L : Loops) {
    if (!L.SkipReason.empty())
      continue;
    for (const LoopBlock &B : L.Blocks)
      for (const Instr &I : B.Instrs) {
        uint64_t T;
        if (!L.SkipReason.empty() || !X86.analysis().isCall(I.Inst) ||
            !X86.analysis().evaluateBranch(I.Inst, I.Addr, I.Size, T))
          continue;
        auto It = WithLoops.find(T);
        if (It != WithLoops.end() && T != L.FunctionStart)
          L.SkipReason = "calls '" + It->second +
                         "', which runs loops decan measures (a loop is "
                         "measured where it is innermost)";
      }
  }
}

/// A loop that calls runs from new code when rewritten: the relocated
/// original (on the program's stack) gets its function's unwind rule at
/// the header and personality, with an exception table that lets an
/// exception pass or end the program where the original's does, but that
/// has no landing pad: a call with a handler in its function keeps its loop
/// in place. (A measured copy's frame unwinds to the original call site
/// and its exception table: Dispatcher.h.)
static void skipLoopsExceptionsCannotLeave(const BinaryImage &Bin,
                                           const decan::X86Target &X86,
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

/// The PLT entries of \p Bin (LLVM's reader), or none when a relocation
/// section is malformed (a zero or uneven entry size would make the reader
/// divide by zero) or the dynamic symbol table is missing.
static std::vector<object::ELFPltEntry>
pltEntries(const BinaryImage &Bin, const decan::X86Target &X86) {
  const auto &ELF = Bin.object().getELFFile();
  auto Sections = ELF.sections();
  if (!Sections) {
    consumeError(Sections.takeError());
    return {};
  }
  // LLVM's reader aborts on malformed tables (report_fatal_error): check
  // every section it may read first.
  uint64_t FileSize = Bin.object().getData().size();
  uint64_t NumDynSyms = 0;
  for (const auto &S : *Sections) {
    if (S.sh_type != ELF::SHT_NOBITS &&
        (S.sh_offset > FileSize || S.sh_size > FileSize - S.sh_offset))
      return {};
    if (S.sh_type == ELF::SHT_DYNSYM) {
      if (S.sh_entsize != sizeof(object::ELF64LE::Sym) ||
          S.sh_size % S.sh_entsize != 0 || NumDynSyms)
        return {};
      NumDynSyms = S.sh_size / S.sh_entsize;
    }
    if ((S.sh_type == ELF::SHT_RELA &&
         S.sh_entsize != sizeof(object::ELF64LE::Rela)) ||
        (S.sh_type == ELF::SHT_REL &&
         S.sh_entsize != sizeof(object::ELF64LE::Rel)) ||
        ((S.sh_type == ELF::SHT_RELA || S.sh_type == ELF::SHT_REL) &&
         (S.sh_size % S.sh_entsize != 0 || S.sh_link >= Sections->size())))
      return {};
  }
  if (!NumDynSyms)
    return {};
  std::vector<object::ELFPltEntry> Out;
  for (object::ELFPltEntry &E : Bin.object().getPltEntries(X86.subtarget()))
    if (E.Symbol && E.Symbol->d.b < NumDynSyms)
      Out.push_back(E);
  return Out;
}

Expected<std::vector<LoopCandidate>>
decan::rewriter::findLoops(const BinaryImage &Bin, const decan::X86Target &X86,
                           FinderStats *StatsOut, bool WithLines) {
  FinderStats Stats;
  std::vector<LoopCandidate> Loops;
  std::map<uint64_t, std::vector<uint64_t>> Calls; // function -> targets
  for (const FunctionRange &F : Bin.functions()) {
    ++Stats.Functions;
    FunctionAnalyzer FA(Bin, X86, F, Stats, WithLines);
    FA.run(Loops);
    Calls[F.Start] = std::move(FA.CallTargets);
  }
  skipLoopsCallingLoops(Bin, X86, Calls, Loops);
  skipLoopsExceptionsCannotLeave(Bin, X86, Loops);
  if (StatsOut)
    *StatsOut = Stats;
  // The PLT entries the loops call, by name (LoopCandidate::Callees).
  std::map<uint64_t, std::string> Plt;
  for (const object::ELFPltEntry &E : pltEntries(Bin, X86))
    if (E.Symbol) {
      object::SymbolRef Sym(*E.Symbol, &Bin.object());
      if (Expected<StringRef> N = Sym.getName())
        Plt[E.Address] = N->str();
      else
        consumeError(N.takeError());
    }
  for (LoopCandidate &L : Loops)
    for (const LoopBlock &B : L.Blocks)
      for (const Instr &I : B.Instrs) {
        uint64_t T;
        if (X86.analysis().isCall(I.Inst) &&
            X86.analysis().evaluateBranch(I.Inst, I.Addr, I.Size, T))
          if (auto It = Plt.find(T); It != Plt.end())
            L.Callees[T] = It->second;
      }
  // Packed or encrypted code decodes as garbage: refuse rather than list
  // nonsense loops.
  uint64_t Total = Stats.DecodedBytes + Stats.UndecodedBytes;
  if (Total > 256 && Stats.UndecodedBytes * 5 > Total)
    return createStringError(inconvertibleErrorCode(),
                             "'%s': %.0f%% of the code does not decode as "
                             "x86-64 (packed or not code)",
                             Bin.path().str().c_str(),
                             100.0 * Stats.UndecodedBytes / Total);
  if (Bin.functions().empty())
    return createStringError(inconvertibleErrorCode(),
                             "'%s': no function found (no symbols and no "
                             ".eh_frame)",
                             Bin.path().str().c_str());
  return std::move(Loops);
}
