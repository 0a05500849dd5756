//===- ScratchLayout.cpp - Where DL1 puts each memory access -------------===//
//
// Part of decan. layoutScratch() (decan/InstrKnowledge/Variants.h): folds
// the loop's memory accesses into an L1-sized scratch area, cluster by
// cluster, keeping relative offsets and alignment; data-dependent indexes
// keep their chain (Indexed) or are masked into a window (Masked). And the
// scratch that LS and NO_DIV use (VariantBuilder.h): cells for stores the
// next iteration reloads, a window for pairs of unknown distance.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Variants.h"

#include "Dataflow.h"
#include "VariantBuilder.h"
#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
using namespace decan;

/// Largest value of \p Reg at instruction \p I when every definition that
/// reaches it bounds it (zero extension of a byte or word, and with a
/// non-negative immediate); 0 when unknown.
static int64_t indexBound(const X86Knowledge &K, const LoopBody &L,
                          const ReachingDefs &RD, unsigned I, unsigned Reg) {
  int64_t Max = 0;
  bool Any = false;
  for (const RegRead *R : RD.readsOf(I)) {
    if (!K.regsOverlap(R->Reg, Reg))
      continue;
    for (auto [D, C] : R->Defs) {
      if (D == EntryDef)
        return 0;
      const Instr &In = L.Instrs[D];
      StringRef N = K.opcodeName(In.Opcode);
      // The definition must write the whole register (32-bit writes zero
      // the upper half).
      if (In.Ops.empty() || !In.Ops[0].isReg() || K.regBits(In.Ops[0].Reg) < 32)
        return 0;
      int64_t B = 0;
      if (N.starts_with("MOVZX") && N.ends_with("8"))
        B = 0xff;
      else if (N.starts_with("MOVZX") && N.ends_with("16"))
        B = 0xffff;
      else if (N.starts_with("AND") &&
               (N.ends_with("ri") || N.ends_with("ri8") ||
                N.ends_with("ri32")) &&
               In.Ops.back().isImm() && In.Ops.back().Imm >= 0)
        B = In.Ops.back().Imm;
      else
        return 0;
      Max = std::max(Max, B);
      Any = true;
    }
  }
  return Any ? Max : 0;
}

Expected<ScratchLayout> decan::layoutScratch(const X86Knowledge &K,
                                             const LoopBody &L,
                                             const LoopSubsets &S,
                                             unsigned Size) {
  ScratchLayout Out;
  Out.Offset.assign(L.Instrs.size(), -1);
  Out.How.assign(L.Instrs.size(), ScratchLayout::InPlace);
  Out.Mask.assign(L.Instrs.size(), 0);
  std::shared_ptr<const BodyFacts> Facts = bodyFacts(K, L);
  const ReachingDefs &RD = Facts->RD;
  const std::vector<bool> &Affine = Facts->affine(K, L);
  // Region key: the array (base, index, scale, segment) and, for arrays
  // whose address moves, whether it holds the loads or the stores.
  struct Member {
    unsigned I;
    int64_t Disp, End; ///< bytes [Disp, End) relative to the array
  };
  std::map<std::string, std::vector<Member>> Regions;
  std::vector<std::string> Order;
  unsigned RIP = K.RIP;
  auto DispOf = [](const Operand *Mem) -> int64_t {
    return Mem[3].Kind == Operand::Immediate ||
                   (Mem[3].Kind == Operand::Symbol && Mem[3].SymKey)
               ? Mem[3].Imm
               : 0;
  };
  for (unsigned I = 0; I < L.Instrs.size(); ++I) {
    unsigned B = S.Bits[I];
    if (!(B & (SubsetLoad | SubsetStore)) || (B & (SubsetCtrl | SubsetGather)))
      continue;
    const Instr &In = L.Instrs[I];
    int M = K.memOperandIndex(In.Opcode);
    const Operand *Mem = &In.Ops[M];
    if (Mem[0].isReg() && Mem[0].Reg == RIP)
      continue; // constants: already one L1-resident location
    unsigned Base = Mem[0].Reg, Index = Mem[2].Reg;
    bool BaseAff = affineAt(K, RD, Affine, I, Base);
    bool IdxAff = affineAt(K, RD, Affine, I, Index);
    int64_t Bound = 0, Mask = 0;
    if (!BaseAff)
      continue; // the address chain through loaded data stays as it is
    if (!IdxAff && !(Bound = indexBound(K, L, RD, I, Index))) {
      // No bound: the index will be masked into a quarter of the area.
      int64_t Scale = std::max<int64_t>(Mem[1].Imm, 1);
      Mask = 1;
      while (Scale * Mask * 2 <= (int64_t)Size / 4)
        Mask *= 2;
      Bound = --Mask;
    }
    std::string Key = (Twine(IdxAff ? "a"
                             : Mask ? "m"
                                    : "i") +
                       Twine(Base) + "," + Twine(Mem[1].Imm) + "," +
                       Twine(Index) + "," + Twine(Mem[4].Reg))
                          .str();
    if (Mem[3].Kind == Operand::Symbol)
      Key += Mem[3].SymKey ? ",key" + std::to_string(Mem[3].SymKey)
                           : ",sym" + std::to_string(I); // its own array
    bool Invariant = !RD.regWrittenInLoop(Base) && !RD.regWrittenInLoop(Index);
    if (!Invariant)
      Key += (B & SubsetStore) ? ",stores" : ",loads";
    auto [It, New] = Regions.try_emplace(Key);
    if (New)
      Order.push_back(Key);
    int64_t Disp = DispOf(Mem);
    int64_t W = std::max(K.memWidth(In), 1u);
    // An indexed access spans every index value up to the bound.
    int64_t Span = IdxAff ? W : Mem[1].Imm * Bound + W;
    It->second.push_back({I, Disp, Disp + Span});
    Out.How[I] = IdxAff ? ScratchLayout::Redirect
                 : Mask ? ScratchLayout::Masked
                        : ScratchLayout::Indexed;
    Out.Mask[I] = Mask;
  }
  int64_t Cursor = 0;
  for (const std::string &Key : Order) {
    std::vector<Member> &R = Regions[Key];
    std::stable_sort(R.begin(), R.end(), [](const Member &A, const Member &B) {
      return A.Disp < B.Disp;
    });
    // Clusters: accesses less than a line apart keep their relative offsets;
    // farther ones (stencil rows, far unrolled offsets) fold together.
    for (size_t C = 0; C < R.size();) {
      size_t E = C + 1;
      int64_t Lo = R[C].Disp, Hi = R[C].End;
      while (E < R.size() && R[E].Disp < Hi + 64)
        Hi = std::max(Hi, R[E++].End);
      // The line phase: REF's (the scratch area is line aligned), or the
      // one the strictest aligned access needs.
      int64_t Phase = ((Lo % 64) + 64) % 64;
      unsigned Align = 1;
      for (size_t J = C; J < E; ++J) {
        unsigned A = K.memAlignment(L.Instrs[R[J].I]);
        if (A > Align) {
          Align = A;
          Phase = ((-(R[J].Disp - Lo)) % 64 + 64) % 64;
        }
      }
      int64_t Start = (Cursor + 63 - Phase) / 64 * 64 + Phase;
      if (Start < Cursor)
        Start += 64;
      if (Hi - Lo + Phase > (int64_t)Size)
        return createStringError(
            inconvertibleErrorCode(),
            "accesses " + Twine(Lo) + ".." + Twine(Hi) + " of one array need " +
                Twine(Hi - Lo) + " bytes of scratch, more than " + Twine(Size));
      if (Start + (Hi - Lo) > (int64_t)Size) {
        // Past the window: fold back, lines may now be shared.
        Start = Phase;
        Out.Wrapped = true;
      }
      for (size_t J = C; J < E; ++J) {
        unsigned I = R[J].I;
        Out.Offset[I] = Out.How[I] == ScratchLayout::Redirect
                            ? Start + (R[J].Disp - Lo)
                            : Start - Lo; // the base register's offset
      }
      // The next cluster starts on a line of its own.
      Cursor = std::max<int64_t>(Cursor, (Start + (Hi - Lo) + 63) / 64 * 64);
      Out.BytesUsed = std::max<int64_t>(Out.BytesUsed, Start + (Hi - Lo));
      C = E;
    }
  }
  return Out;
}

/// LS and NO_DIV turn stores into loads. A store that the next iteration
/// reloads (a[i] = f(a[i-1])) would take the chain through memory with it:
/// instead, the pair goes to one scratch cell, stored in iteration i and
/// loaded in i+1, as in REF (distance 1, same bytes: the values are even the
/// same). Longer distances stay a bound (reported by the verifier).
std::map<unsigned, int64_t> VariantBuilder::forwardingCells() const {
  std::map<unsigned, int64_t> Cell;
  unsigned N = Ref.Instrs.size();
  int64_t Next = 0;
  auto Plain = [&](unsigned I) {
    unsigned B = S.Bits[I];
    return (B & SubsetPureMem) && !(B & (SubsetCtrl | SubsetGather));
  };
  for (unsigned St = 0; St < N; ++St) {
    if (!Plain(St) || !(S.Bits[St] & SubsetStore) || Cell.count(St))
      continue;
    for (unsigned Ld = 0; Ld < N; ++Ld) {
      if (!Plain(Ld) || !(S.Bits[Ld] & SubsetLoad) ||
          (S.Bits[Ld] & SubsetStore) || Cell.count(Ld) ||
          K.memWidth(Ref.Instrs[Ld]) != K.memWidth(Ref.Instrs[St]))
        continue;
      int MS = K.memOperandIndex(Ref.Instrs[St].Opcode);
      int ML = K.memOperandIndex(Ref.Instrs[Ld].Opcode);
      const Operand *A = &Ref.Instrs[St].Ops[MS], *B = &Ref.Instrs[Ld].Ops[ML];
      bool OneArray = A[0] == B[0] && A[1] == B[1] && A[2] == B[2] &&
                      A[4] == B[4] && A[3].Kind == Operand::Immediate &&
                      B[3].Kind == Operand::Immediate;
      if (!OneArray)
        continue;
      ArrayDistance AD = arrayDistance(K, Ref, RD, St, Ld);
      if (!AD.Known || !AD.Step || AD.Delta + AD.Step != 0 || Ld > St)
        continue;
      Cell[St] = Cell[Ld] = Next;
      Next += 64;
      break;
    }
  }
  return Cell;
}

std::set<unsigned>
VariantBuilder::maskedPairs(const std::map<unsigned, int64_t> &Cell) const {
  std::set<unsigned> Out;
  unsigned N = Ref.Instrs.size();
  auto Plain = [&](unsigned I) {
    unsigned B = S.Bits[I];
    return (B & SubsetPureMem) && !(B & (SubsetCtrl | SubsetGather)) &&
           !Cell.count(I) && Ref.Instrs[I].Object;
  };
  for (unsigned St = 0; St < N; ++St) {
    if (!Plain(St) || !(S.Bits[St] & SubsetStore))
      continue;
    for (unsigned Ld = 0; Ld < N; ++Ld) {
      if (!Plain(Ld) || !(S.Bits[Ld] & SubsetLoad) ||
          (S.Bits[Ld] & SubsetStore) ||
          Ref.Instrs[Ld].Object != Ref.Instrs[St].Object)
        continue;
      // Same registers and known steps: the exact analysis knows whether
      // they meet (a cell took them if they do).
      const Operand
          *A = &Ref.Instrs[St].Ops[K.memOperandIndex(Ref.Instrs[St].Opcode)],
          *B = &Ref.Instrs[Ld].Ops[K.memOperandIndex(Ref.Instrs[Ld].Opcode)];
      bool SameRegs = A[0] == B[0] && A[1] == B[1] && A[2] == B[2] &&
                      A[4] == B[4] && A[3].Kind == B[3].Kind;
      if (SameRegs && arrayDistance(K, Ref, RD, St, Ld).Known)
        continue;
      Out.insert(St);
      Out.insert(Ld);
    }
  }
  return Out;
}
