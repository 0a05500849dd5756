//===- PatchPlanning.cpp - How each loop's header is patched --------------===//
//
// Part of decan. See PatchPlanning.h.
//
//===----------------------------------------------------------------------===//

#include "PatchPlanning.h"

#include "llvm/MC/MCInst.h"

#include <algorithm>

using namespace llvm;
using namespace decan::rewriter;

/// Bytes patched must lie in the loop: nothing else of the function may
/// run into them. With the function's CFG known, the original loop never
/// runs again once its header is patched (a natural loop is entered at its
/// header only), so the patch may span several of its blocks. With an
/// unresolved indirect jump elsewhere in the function, that jump may land
/// inside the loop (past the header) and run the original bytes, which are
/// all still there, except the patched ones: the patch then covers the
/// header's first instruction only, since no jump lands inside an
/// instruction. A header with room for 2 bytes only gets a short jump to a
/// trampoline.
std::string
decan::rewriter::checkPatchRoom(const FunctionCFG &CFG,
                                const DenseSet<const CFGBlock *> &InBody,
                                const CFGBlock &Header, bool &ShortHeader) {
  uint64_t Start = Header.Start;
  unsigned FirstSize = CFG.code().Instrs[Header.First].Size;
  // Contiguous loop bytes from the header.
  uint64_t Covered = Start;
  while (Covered < Start + 5) {
    const CFGBlock *B = CFG.blockAt(Covered);
    if (!B || !InBody.count(B))
      break;
    Covered = B->End;
  }
  unsigned Room = CFG.UnknownCFG ? FirstSize : unsigned(Covered - Start);
  ShortHeader = Room < 5;
  if (Room >= 2)
    return "";
  if (CFG.UnknownCFG)
    return "the header's first instruction is 1 byte, no room for a jump "
           "(an unresolved indirect jump elsewhere in the function may "
           "land on the next one)";
  return "the header is 1 byte before code outside the loop: no room for "
         "a jump";
}

uint64_t decan::rewriter::trampolineInLoop(const LoopCandidate &L) {
  uint64_t Lo = L.Header >= 126 ? L.Header - 126 : 0, Hi = L.Header + 129;
  uint64_t Best = 0, BestDist = ~uint64_t(0);
  auto Consider = [&](uint64_t S, uint64_t E) { // free bytes [S, E)
    if (E < S + 5 || std::max(S, Lo) > std::min(E - 5, Hi))
      return;
    uint64_t T = std::clamp(L.Header, std::max(S, Lo), std::min(E - 5, Hi));
    uint64_t Dist = T > L.Header ? T - L.Header : L.Header - T;
    if (Dist < BestDist) {
      Best = T;
      BestDist = Dist;
    }
  };
  for (size_t K = 0; K < L.Blocks.size();) {
    uint64_t S = L.Blocks[K].Start, E = L.Blocks[K].End;
    for (++K; K < L.Blocks.size() && L.Blocks[K].Start == E; ++K)
      E = L.Blocks[K].End;
    if (L.Header >= S && L.Header < E) {
      Consider(S, L.Header);
      Consider(L.Header + 2, E);
    } else {
      Consider(S, E);
    }
  }
  return Best;
}

/// No code runs in a gap between two functions of one executable section
/// that holds nothing but int3 and NOPs: nothing jumps into alignment
/// padding.
void decan::rewriter::addPaddingBetweenFunctions(
    const BinaryImage &Bin, const decan::X86Target &X86,
    std::map<uint64_t, uint64_t> &Free) {
  const std::vector<FunctionRange> &Fs = Bin.functions();
  for (size_t K = 0; K + 1 < Fs.size(); ++K) {
    uint64_t Start = Fs[K].End, End = Fs[K + 1].Start;
    if (End <= Start || End - Start < 5 || End - Start > 4096)
      continue;
    ArrayRef<uint8_t> Code = Bin.codeAt(Start, End - Start);
    if (Code.empty())
      continue;
    bool Padding = true;
    for (uint64_t Off = 0; Off < Code.size() && Padding;) {
      MCInst Inst;
      uint64_t Size = X86.decode(Code.slice(Off), Start + Off, Inst);
      Padding = Size && isPaddingOpcode(X86.opcodeName(Inst.getOpcode()));
      Off += Size;
    }
    if (Padding)
      Free[Start] = End;
  }
}

uint64_t decan::rewriter::takeTrampolineSlot(std::map<uint64_t, uint64_t> &Free,
                                             uint64_t At) {
  // jmp rel8 at At reaches [At + 2 - 128, At + 2 + 127].
  uint64_t Lo = At >= 126 ? At - 126 : 0, Hi = At + 129;
  uint64_t Best = 0, BestDist = ~uint64_t(0);
  auto It = Free.upper_bound(Lo);
  if (It != Free.begin())
    --It;
  for (; It != Free.end() && It->first <= Hi; ++It) {
    if (It->second - It->first < 5)
      continue;
    // Slots of this range within reach: [A, B]; the nearest to At.
    uint64_t A = std::max(It->first, Lo), B = std::min(It->second - 5, Hi);
    if (A > B)
      continue;
    uint64_t T = std::clamp(At, A, B);
    uint64_t Dist = T > At ? T - At : At - T;
    if (Dist < BestDist) {
      Best = T;
      BestDist = Dist;
    }
  }
  if (Best)
    takeRange(Free, Best, Best + 5);
  return Best;
}

void decan::rewriter::takeRange(std::map<uint64_t, uint64_t> &Free,
                                uint64_t Begin, uint64_t End) {
  auto R = Free.upper_bound(Begin);
  if (R == Free.begin())
    return;
  --R;
  uint64_t Start = R->first, Stop = R->second;
  if (Stop < End)
    return;
  Free.erase(R);
  if (Begin > Start)
    Free[Start] = Begin;
  if (Stop > End)
    Free[End] = Stop;
}

/// 5 free padding bytes within reach of `jmp rel8` at the header, the
/// nearest first.
void decan::rewriter::placeTrampolines(std::map<uint64_t, uint64_t> &Free,
                                       std::vector<LoopCandidate> &Loops,
                                       FinderStats &Stats) {
  for (LoopCandidate &L : Loops) {
    if (L.Trampoline != ~uint64_t(0))
      continue;
    L.Trampoline = takeTrampolineSlot(Free, L.Header);
    if (!L.Trampoline) {
      L.SkipReason = "the header has room for a 2-byte jump only, and no "
                     "padding within 127 bytes holds a 5-byte trampoline";
      continue;
    }
    ++Stats.Trampolines;
  }
}
