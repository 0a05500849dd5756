//===- RegionFinder.cpp - Outer loops of a prebuilt binary, as regions ----===//
//
// Part of decan. See RegionFinder.h. Per function: decode, CFG, LLVM's
// DomTreeBase and LoopInfoBase (as LoopFinder.cpp), then the function
// (when it has loops) and each top-level loop that holds other loops get
// their entry and exit sites, or the reason they have none.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/RegionFinder.h"

#include "FunctionCFG.h"
#include "FunctionCode.h"
#include "LoopChecks.h"
#include "PatchPlanning.h"

#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/Support/GenericDomTreeConstruction.h"
#include "llvm/Support/GenericLoopInfoImpl.h"

#include <algorithm>

using namespace llvm;
using namespace decan::rewriter;

namespace {
/// Bytes a patch takes: jmp rel32, or jmp rel8 to a trampoline.
constexpr unsigned PatchBytes = 5, ShortPatchBytes = 2;

std::string where(const FunctionRange &F, uint64_t Addr) {
  return F.Name + "+0x" + utohexstr(Addr - F.Start, true);
}

/// Why instruction \p K cannot run from a region's stub, or "". The stub
/// runs it on the program's stack, right where the original would, so
/// stack pointer uses and returns move as they are; a call would return
/// into the stub (which has no unwind rule), so none moves.
std::string whyNotMovable(const FunctionCode &Code, const decan::X86Target &X86,
                          unsigned K) {
  const MCInst &I = Code.Instrs[K].Inst;
  const Flow &Fl = Code.Flows[K];
  StringRef Name = X86.opcodeName(I.getOpcode());
  if (Fl.Call)
    return ("a call (" + Name + ")").str();
  if (Fl.Indirect && !Fl.Return)
    return ("an indirect jump (" + Name + ")").str();
  if (Name.starts_with("LOOP") || Name.starts_with("JCXZ") ||
      Name.starts_with("JECXZ") || Name.starts_with("JRCXZ") ||
      Name.starts_with("XBEGIN"))
    return ("a rel8-only branch (" + Name + ")").str();
  unsigned Opc = I.getOpcode();
  bool DirectBranch = Fl.Branch && Fl.HasTarget &&
                      (Opc == X86.JMP_1 || Opc == X86.JMP_4 ||
                       Opc == X86.JCC_1 || Opc == X86.JCC_4);
  if (Fl.Branch && !Fl.Return && !DirectBranch)
    return ("a branch form the rewriter cannot move (" + Name + ")").str();
  int Mem = X86.addressOperandIndex(I);
  for (unsigned O = 0; O < I.getNumOperands(); ++O) {
    if (Mem >= 0 && O >= unsigned(Mem) && O < unsigned(Mem) + 5)
      continue;
    if (I.getOperand(O).isReg() && I.getOperand(O).getReg() == X86.RIP)
      return ("RIP outside a memory operand (" + Name + ")").str();
  }
  if (!DirectBranch && X86.encodedSize(I) == 0)
    return ("an instruction the encoder cannot re-encode (" + Name + ")").str();
  return "";
}

class FunctionRegions {
public:
  FunctionRegions(const BinaryImage &Bin, const decan::X86Target &X86,
                  const FunctionRange &F, FinderStats &Stats)
      : X86(X86), F(F), Code(decodeFunction(Bin, X86, F, Stats)),
        CFG(Code, Bin, X86, Stats) {}

  void run(std::vector<RegionCandidate> &Out);
  const std::vector<std::pair<uint64_t, uint64_t>> &padding() const {
    return CFG.Padding;
  }

private:
  RegionCandidate functionRegion(const CFGLoopInfo &LI);
  std::string check(const CFGLoop &L, const CFGLoopInfo &LI,
                    RegionCandidate &R);
  std::string checkFunction(RegionCandidate &R);
  std::string enterSite(const CFGBlock &P, const CFGBlock &Header,
                        RegionSite &S);
  std::string leaveSite(const CFGBlock &E, RegionSite &S);
  std::string headSite(const CFGBlock &B, unsigned From,
                       const std::string &What, RegionSite &S);
  std::string returnSite(const CFGBlock &B, RegionSite &S);
  unsigned tailStart(const CFGBlock &B, uint64_t &Bytes) const;
  bool flagsLiveAt(const CFGBlock &B);
  bool flagsReadFirst(const std::vector<Instr> &Moved) const;
  std::string sharedBytes(const RegionCandidate &R) const;

  const decan::X86Target &X86;
  const FunctionRange &F;
  FunctionCode Code;
  FunctionCFG CFG;
  std::vector<const CFGBlock *> AllBlocks;
};
} // namespace

void FunctionRegions::run(std::vector<RegionCandidate> &Out) {
  if (Code.Instrs.empty())
    return;
  CFGDomTree DT;
  DT.recalculate(CFG);
  CFGLoopInfo LI;
  LI.analyze(DT);
  if (LI.empty())
    return;
  for (CFGBlock &B : CFG)
    if (!B.isVirtualEntry())
      AllBlocks.push_back(&B);
  bool Nests = false;
  for (unsigned K = 0; K < Code.Instrs.size() && !Nests; ++K)
    Nests = Code.Flows[K].Call && Code.Flows[K].HasTarget &&
            Code.Flows[K].Target == F.Start;
  size_t First = Out.size();
  Out.push_back(functionRegion(LI));
  std::vector<const CFGLoop *> Outer;
  for (const CFGLoop *L : LI.getTopLevelLoops())
    if (!L->isInnermost())
      Outer.push_back(L);
  // Header order, as innermost loops and the plugin's regions are numbered.
  llvm::sort(Outer, [](const CFGLoop *A, const CFGLoop *B) {
    return A->getHeader()->getNumber() < B->getHeader()->getNumber();
  });
  for (unsigned K = 0; K < Outer.size(); ++K) {
    RegionCandidate R;
    R.Function = F.Name;
    R.FunctionStart = F.Start;
    R.Index = K;
    R.Header = Outer[K]->getHeader()->Start;
    R.NumInnerLoops = Outer[K]->getLoopsInPreorder().size() - 1;
    // Where its line is looked for: the header's instructions, then those
    // of the blocks after it.
    for (const CFGBlock *B : Outer[K]->blocks())
      for (unsigned I = B->First; I < B->First + B->Count; ++I)
        if (Code.Instrs[I].Addr >= R.Header && R.LineProbes.size() < 64)
          R.LineProbes.push_back(Code.Instrs[I].Addr);
    llvm::sort(R.LineProbes);
    R.SkipReason = check(*Outer[K], LI, R);
    if (!R.SkipReason.empty())
      R.Sites.clear();
    Out.push_back(std::move(R));
  }
  for (size_t K = First; K < Out.size(); ++K)
    Out[K].Nests = Nests;
}

/// The function as a region, \p LI its loops.
RegionCandidate FunctionRegions::functionRegion(const CFGLoopInfo &LI) {
  RegionCandidate R;
  R.Function = F.Name;
  R.FunctionStart = R.Header = F.Start;
  R.WholeFunction = true;
  R.NumInnerLoops = std::distance(LI.begin(), LI.end());
  for (unsigned I = 0; I < Code.Instrs.size() && I < 8; ++I)
    R.LineProbes.push_back(Code.Instrs[I].Addr);
  R.SkipReason = checkFunction(R);
  if (!R.SkipReason.empty())
    R.Sites.clear();
  return R;
}

/// A function is entered at its first instructions (after an endbr64,
/// which indirect calls must still land on) and left at each return and
/// direct tail jump, whose stub runs the leave test and then the block's
/// last instructions, the return among them. The return address is never
/// replaced by a trampoline's: C++ unwinding looks each frame's return
/// address up in the unwind tables (a stub's has none: std::terminate), and
/// a shadow stack (CET) faults on a return to an address it did not push.
/// So every way out must be patched, and one that cannot is a refusal.
std::string FunctionRegions::checkFunction(RegionCandidate &R) {
  if (!CFG.Problem.empty() || !Code.Problem.empty())
    return CFG.Problem.empty() ? Code.Problem : CFG.Problem;
  if (CFG.UnknownCFG)
    return "the function has an unresolved indirect jump: its returns are "
           "not all known";
  const CFGBlock *Entry = CFG.blockAt(F.Start);
  if (!Entry)
    return "no instruction at the function's start";
  for (const CFGBlock *P : Entry->Preds)
    if (!P->isVirtualEntry())
      return "its first block is also reached from " +
             where(F, Code.Instrs[P->First + P->Count - 1].Addr) +
             " (a loop or a jump back to the entry): the entry does not run "
             "once per call";
  RegionSite In;
  In.Enter = In.TestFirst = true;
  unsigned From = Entry->First;
  if (Entry->Count > 1 &&
      X86.opcodeName(Code.Instrs[From].Inst.getOpcode()) == "ENDBR64")
    ++From;
  if (std::string Why = headSite(*Entry, From, "its first block", In);
      !Why.empty())
    return Why;
  In.FlagsLive = flagsLiveAt(*Entry);
  R.Sites.push_back(std::move(In));
  for (const CFGBlock *B : AllBlocks) {
    const Flow &Fl = Code.Flows[B->First + B->Count - 1];
    uint64_t At = Code.Instrs[B->First + B->Count - 1].Addr;
    bool Jumps = !B->ExternSucc.empty();
    if (!Jumps && Fl.Branch && Fl.Indirect && !Fl.Return && B->Succs.empty())
      return "an indirect tail call at " + where(F, At) +
             ": its jump cannot move to a stub";
    if (!Fl.Return && !Jumps)
      continue;
    if (Jumps && (Fl.Cond || !B->Succs.empty() || B->FallThrough))
      return "a conditional jump out of the function at " + where(F, At) +
             " (a tail call or a cold part): the region would be left on "
             "one of its paths only";
    RegionSite S;
    S.TestFirst = true;
    if (std::string Why = returnSite(*B, S); !Why.empty())
      return Why;
    R.Sites.push_back(std::move(S));
  }
  return sharedBytes(R);
}

/// "" when no two of \p R's patches share bytes (a block both left at its
/// start and entered at its end has room for both), else where they do.
std::string FunctionRegions::sharedBytes(const RegionCandidate &R) const {
  std::vector<std::pair<uint64_t, uint64_t>> Ranges;
  for (const RegionSite &S : R.Sites)
    Ranges.push_back(
        {S.Patch, S.Patch + (S.Trampoline ? ShortPatchBytes : PatchBytes)});
  llvm::sort(Ranges);
  for (size_t K = 1; K < Ranges.size(); ++K)
    if (Ranges[K].first < Ranges[K - 1].second)
      return "two of the region's patches share bytes at " +
             where(F, Ranges[K].first);
  return "";
}

std::string FunctionRegions::check(const CFGLoop &L, const CFGLoopInfo &LI,
                                   RegionCandidate &R) {
  if (!CFG.Problem.empty() || !Code.Problem.empty())
    return CFG.Problem.empty() ? Code.Problem : CFG.Problem;
  if (CFG.UnknownCFG)
    return "the function has an unresolved indirect jump: the loop's entries "
           "and exits are not all known";
  const CFGBlock &Header = *L.getHeader();
  for (const CFGBlock *B : L.blocks())
    if (!B->ExternSucc.empty())
      return "the loop jumps out of the function at " +
             where(F, Code.Instrs[B->First + B->Count - 1].Addr) +
             " (a tail call): no exit block to leave the region at";
  for (const CFGBlock *P : Header.Preds) {
    if (L.contains(P))
      continue;
    if (P->isVirtualEntry())
      return "the loop's header is the function's entry (or has no "
             "predecessor): no entry edge to patch";
    if (LI.getLoopFor(P))
      return "the loop is entered from inside another loop at " +
             where(F, P->Start);
    RegionSite S;
    if (std::string Why = enterSite(*P, Header, S); !Why.empty())
      return Why;
    R.Sites.push_back(std::move(S));
  }
  SmallVector<CFGBlock *, 8> Exits;
  L.getUniqueExitBlocks(Exits);
  for (const CFGBlock *E : Exits) {
    if (LI.getLoopFor(E))
      return "the loop exits into another loop at " + where(F, E->Start);
    RegionSite S;
    if (std::string Why = leaveSite(*E, S); !Why.empty())
      return Why;
    R.Sites.push_back(std::move(S));
  }
  return sharedBytes(R);
}

/// The last whole instructions of \p P (at least 5 bytes), which the stub
/// runs before it enters the region on its way to \p Header.
std::string FunctionRegions::enterSite(const CFGBlock &P,
                                       const CFGBlock &Header, RegionSite &S) {
  S.Enter = true;
  uint64_t Bytes = 0;
  unsigned First = tailStart(P, Bytes);
  if (Bytes < ShortPatchBytes)
    return "its entry block at " + where(F, P.Start) + " has " +
           std::to_string(Bytes) + " byte, fewer than a 2-byte jump takes";
  if (Bytes < PatchBytes)
    S.Trampoline = ~uint64_t(0); // placed by findRegions
  for (unsigned K = First; K < P.First + P.Count; ++K) {
    if (std::string Why = whyNotMovable(Code, X86, K); !Why.empty())
      return "its entry block ends with " + Why + " at " +
             where(F, Code.Instrs[K].Addr);
    S.Moved.push_back(Code.Instrs[K]);
  }
  S.Patch = S.Moved.front().Addr;
  S.FallThrough = P.FallThrough;
  S.FlagsLive = flagsLiveAt(Header);
  return "";
}

/// The first instruction of \p B's last whole instructions of at least 5
/// bytes (all of them when it has fewer), their bytes in \p Bytes.
unsigned FunctionRegions::tailStart(const CFGBlock &B, uint64_t &Bytes) const {
  unsigned First = B.First + B.Count;
  Bytes = 0;
  while (First > B.First && Bytes < PatchBytes)
    Bytes += Code.Instrs[--First].Size;
  return First;
}

/// The first whole instructions of exit block \p E (at least 5 bytes),
/// which the stub runs after it leaves the region.
std::string FunctionRegions::leaveSite(const CFGBlock &E, RegionSite &S) {
  S.Enter = false;
  S.TestFirst = true;
  if (std::string Why =
          headSite(E, E.First, "its exit block at " + where(F, E.Start), S);
      !Why.empty())
    return Why;
  S.FlagsLive = flagsLiveAt(E);
  return "";
}

/// \p B's first whole instructions from its \p From-th (at least 5 bytes),
/// which the stub runs after its test; \p What names the block.
std::string FunctionRegions::headSite(const CFGBlock &B, unsigned From,
                                      const std::string &What, RegionSite &S) {
  uint64_t Bytes = 0;
  unsigned K = From;
  for (; K < B.First + B.Count && Bytes < PatchBytes; ++K) {
    if (std::string Why = whyNotMovable(Code, X86, K); !Why.empty())
      return What + " starts with " + Why;
    S.Moved.push_back(Code.Instrs[K]);
    Bytes += Code.Instrs[K].Size;
  }
  if (Bytes < ShortPatchBytes)
    return What + " has " + std::to_string(Bytes) +
           " byte, fewer than a 2-byte jump takes";
  if (Bytes < PatchBytes)
    S.Trampoline = ~uint64_t(0); // placed by findRegions
  S.Patch = S.Moved.front().Addr;
  // Past the moved instructions: the rest of the block, or, when they end
  // it, where it falls through to.
  const Flow &Last = Code.Flows[K - 1];
  if (K < B.First + B.Count)
    S.FallThrough = Code.Instrs[K].Addr;
  else if (!Last.Barrier && !Last.Return)
    S.FallThrough = B.FallThrough;
  return "";
}

/// The last whole instructions of \p B (at least 5 bytes), which end in a
/// return or a direct jump out of the function: the stub runs the leave
/// test, then them.
std::string FunctionRegions::returnSite(const CFGBlock &B, RegionSite &S) {
  S.Enter = false;
  uint64_t Bytes = 0;
  unsigned First = tailStart(B, Bytes);
  uint64_t At = Code.Instrs[B.First + B.Count - 1].Addr;
  // Short: dead padding after it, or a trampoline (placed by findRegions).
  if (Bytes < PatchBytes)
    S.Trampoline = ~uint64_t(0);
  for (unsigned K = First; K < B.First + B.Count; ++K) {
    if (std::string Why = whyNotMovable(Code, X86, K); !Why.empty())
      return "the block of its return at " + where(F, At) + " ends with " +
             Why + " at " + where(F, Code.Instrs[K].Addr);
    S.Moved.push_back(Code.Instrs[K]);
  }
  S.Patch = S.Moved.front().Addr;
  // EFLAGS are dead at a return or a jump to another function (the ABI
  // keeps none across calls), unless the moved instructions read them.
  S.FlagsLive = flagsReadFirst(S.Moved);
  return "";
}

/// Whether one of \p Moved reads EFLAGS before one of them writes them.
bool FunctionRegions::flagsReadFirst(const std::vector<Instr> &Moved) const {
  const MCInstrInfo &MII = X86.instrInfo();
  for (const Instr &I : Moved) {
    const MCInstrDesc &D = MII.get(I.Inst.getOpcode());
    if (is_contained(D.implicit_uses(), X86.EFLAGS) ||
        decan::mergesFlags(X86.opcodeName(I.Inst.getOpcode())))
      return true;
    if (is_contained(D.implicit_defs(), X86.EFLAGS))
      return false;
  }
  return false;
}

bool FunctionRegions::flagsLiveAt(const CFGBlock &B) {
  return flagsLiveIn(CFG, X86, AllBlocks, B);
}

/// Takes [\p Begin, \p End) from \p Free when it is all free.
static bool takeIfFree(std::map<uint64_t, uint64_t> &Free, uint64_t Begin,
                       uint64_t End) {
  auto R = Free.upper_bound(Begin);
  if (R == Free.begin() || std::prev(R)->second < End)
    return false;
  takeRange(Free, Begin, End);
  return true;
}

/// Room for the short sites: a site whose moved instructions end in a
/// return or jump (nothing after them runs from there) followed by dead
/// padding takes a 5-byte jump over both (a 1-byte `ret` at a function's
/// end, before the alignment to the next); else a trampoline from the
/// padding the loops left (the nearest slot first). A region with a short
/// site and neither is skipped.
static void placeRegionTrampolines(std::map<uint64_t, uint64_t> &Free,
                                   const FunctionRange *F, RegionCandidate &R) {
  for (RegionSite &S : R.Sites)
    if (S.Trampoline == ~uint64_t(0)) {
      uint64_t Bytes = 0;
      for (const Instr &I : S.Moved)
        Bytes += I.Size;
      if (!S.FallThrough &&
          takeIfFree(Free, S.Patch + Bytes, S.Patch + PatchBytes)) {
        S.Trampoline = 0;
        continue;
      }
      if (Bytes < ShortPatchBytes) {
        R.SkipReason = "its " + std::string(S.Enter ? "entry" : "exit") +
                       " at " + where(*F, S.Patch) +
                       " is 1 byte (a lone return), and no padding after "
                       "it makes room for a 5-byte jump";
        R.Sites.clear();
        return;
      }
      S.Trampoline = takeTrampolineSlot(Free, S.Patch);
      if (!S.Trampoline) {
        R.SkipReason = "its " + std::string(S.Enter ? "entry" : "exit") +
                       " at " + where(*F, S.Patch) +
                       " has room for a 2-byte jump only, and no padding "
                       "within 127 bytes holds a 5-byte trampoline";
        R.Sites.clear();
        return;
      }
    }
}

std::vector<RegionCandidate> decan::rewriter::findRegions(
    const BinaryImage &Bin, const decan::X86Target &X86,
    const std::vector<LoopCandidate> &Loops, bool WithLines) {
  std::vector<RegionCandidate> Out;
  std::vector<const FunctionRange *> OutFunction;
  std::map<uint64_t, uint64_t> Free; // padding, start -> end
  FinderStats Stats;
  for (const FunctionRange &F : Bin.functions()) {
    FunctionRegions FR(Bin, X86, F, Stats);
    FR.run(Out);
    OutFunction.resize(Out.size(), &F);
    // Shorter than a trampoline too: room after a short return.
    for (auto [S, E] : FR.padding())
      Free[S] = E;
  }
  addPaddingBetweenFunctions(Bin, X86, Free);
  for (const LoopCandidate &L : Loops)
    if (L.Trampoline && L.Trampoline != ~uint64_t(0))
      takeRange(Free, L.Trampoline, L.Trampoline + 5);
  for (size_t K = 0; K < Out.size(); ++K)
    if (Out[K].SkipReason.empty())
      placeRegionTrampolines(Free, OutFunction[K], Out[K]);
  // The header's line, else the first line an instruction of the loop's
  // first blocks has (compilers give rotated headers line 0).
  if (WithLines)
    for (RegionCandidate &R : Out)
      for (uint64_t At : R.LineProbes)
        if (auto Line = Bin.lineFor(At)) {
          R.File = Line->first;
          R.Line = Line->second;
          break;
        }
  return Out;
}
