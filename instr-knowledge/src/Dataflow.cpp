//===- Dataflow.cpp - Reaching definitions in a loop body -----------------===//
//
// Part of decan. See Dataflow.h.
//
//===----------------------------------------------------------------------===//

#include "Dataflow.h"

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <optional>

using namespace llvm;
using namespace decan;

ReachingDefs::ReachingDefs(const X86Knowledge &K, const LoopBody &L) : K(K) {
  unsigned N = L.Instrs.size();
  WrittenUnits.resize(K.regInfo().getNumRegUnits());
  // (register, unit) pairs each instruction reads and writes, flat.
  std::vector<std::pair<unsigned, unsigned>> ReadList;
  std::vector<unsigned> ReadListBegin(N + 1);
  WriteBegin.assign(N + 1, 0);
  SmallVector<unsigned, 16> Rs;
  for (unsigned I = 0; I < N; ++I) {
    ReadListBegin[I] = ReadList.size();
    WriteBegin[I] = WriteList.size();
    Rs.clear();
    K.regsRead(L.Instrs[I], Rs);
    for (unsigned R : Rs)
      for (unsigned U : K.unitsOf(R))
        ReadList.push_back({R, U});
    Rs.clear();
    K.regsWritten(L.Instrs[I], Rs);
    for (unsigned R : Rs)
      for (unsigned U : K.unitsOf(R)) {
        WriteList.push_back({R, U});
        WrittenUnits.set(U);
      }
  }
  ReadListBegin[N] = ReadList.size();
  WriteBegin[N] = WriteList.size();
  // Bit-vector reaching definitions. Bits: one "from before the loop" per
  // written unit, then one per (instruction, unit) definition in this
  // iteration, then the same definitions from a previous iteration (the
  // two definition ranges 64-bit aligned, so carrying a state around the
  // back edge moves whole words). Units the loop never writes always see
  // their value from before it.
  std::vector<int> Dense(WrittenUnits.size(), -1);
  unsigned NU = 0;
  for (unsigned U : WrittenUnits.set_bits())
    Dense[U] = NU++;
  std::vector<SmallVector<unsigned, 4>> DefsOfUnit(NU); // def numbers
  std::vector<unsigned> DefInstr;
  // Per instruction, its (dense unit, def number) pairs, flat.
  std::vector<std::pair<unsigned, unsigned>> DefList;
  std::vector<unsigned> DefBegin(N + 1);
  for (unsigned I = 0; I < N; ++I) {
    DefBegin[I] = DefList.size();
    for (auto [R, U] : writesOf(I)) {
      unsigned D = Dense[U];
      // An instruction writing a unit twice (two names of one register)
      // defines it once.
      if (!DefsOfUnit[D].empty() && DefInstr[DefsOfUnit[D].back()] == I)
        continue;
      DefsOfUnit[D].push_back(DefInstr.size());
      DefList.push_back({D, unsigned(DefInstr.size())});
      DefInstr.push_back(I);
    }
  }
  DefBegin[N] = DefList.size();
  auto DefsAt = [&](unsigned I) {
    return ArrayRef(DefList).slice(DefBegin[I], DefBegin[I + 1] - DefBegin[I]);
  };
  unsigned ND = DefInstr.size();
  unsigned Cur = alignTo(NU, 64), Carried = Cur + alignTo(ND, 64);
  unsigned Bits = Carried + alignTo(ND, 64);
  auto Kill = [&](BitVector &S, unsigned D) {
    S.reset(D);
    for (unsigned X : DefsOfUnit[D]) {
      S.reset(Cur + X);
      S.reset(Carried + X);
    }
  };
  unsigned NB = L.Blocks.size();
  // Per block: the definitions it leaves (Gen) and every bit of the units
  // it writes (KillMask); a unit it does not write passes through.
  std::vector<BitVector> Gen(NB, BitVector(Bits)),
      KillMask(NB, BitVector(Bits));
  for (unsigned B = 0; B < NB; ++B)
    for (unsigned I = L.Blocks[B].Begin; I < L.Blocks[B].End; ++I)
      for (auto [D, X] : DefsAt(I)) {
        Kill(Gen[B], D);
        Gen[B].set(Cur + X);
        if (!KillMask[B].test(D)) {
          KillMask[B].set(D);
          for (unsigned Y : DefsOfUnit[D]) {
            KillMask[B].set(Cur + Y);
            KillMask[B].set(Carried + Y);
          }
        }
      }
  std::vector<BitVector> Out(NB, BitVector(Bits));
  std::vector<SmallVector<unsigned, 2>> Preds(NB);
  for (unsigned B = 0; B < NB; ++B)
    for (unsigned S : L.Blocks[B].Succs)
      if (S < NB)
        Preds[S].push_back(B);
  // Whether a unit has any definition at a block's end does not depend on
  // the iteration: every unit does after the header and after any block
  // with a predecessor (a unit no predecessor defines gets "from before
  // the loop"); a block without one has only the units it writes. Absent
  // units of a predecessor reach as "from before the loop".
  std::vector<BitVector> AbsentOut(NB, BitVector(Bits));
  for (unsigned B = 0; B < NB; ++B)
    if (B != 0 && Preds[B].empty())
      for (unsigned D = 0; D < NU; ++D)
        if (!KillMask[B].test(D))
          AbsentOut[B].set(D);
  BitVector C(Bits);
  auto In = [&](unsigned B, BitVector &S) {
    S.reset();
    if (B == 0) {
      // From before the loop, and around the back edges (carried).
      S.set(0, NU);
      for (unsigned P : Preds[0]) {
        C = Out[P];
        for (unsigned X = 0; X < ND; ++X)
          if (C.test(Cur + X))
            C.set(Carried + X);
        C.reset(Cur, Cur + ND);
        S |= C;
      }
      return;
    }
    for (unsigned P : Preds[B]) {
      S |= Out[P];
      S |= AbsentOut[P];
    }
  };
  BitVector S(Bits);
  for (unsigned Iter = 0; Iter < 4 * NB + 4; ++Iter) {
    bool Changed = false;
    for (unsigned B = 0; B < NB; ++B) {
      In(B, S);
      S.reset(KillMask[B]);
      S |= Gen[B];
      if (S != Out[B]) {
        std::swap(Out[B], S);
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  ReadBegin.assign(N, 0);
  ReadEnd.assign(N, 0);
  Reads.reserve(ReadList.size());
  for (unsigned B = 0; B < NB; ++B) {
    In(B, S);
    for (unsigned I = L.Blocks[B].Begin; I < L.Blocks[B].End; ++I) {
      ReadBegin[I] = Reads.size();
      for (unsigned J = ReadListBegin[I]; J < ReadListBegin[I + 1]; ++J) {
        auto [R, U] = ReadList[J];
        RegRead RR{I, R, U, {}};
        int D = Dense[U];
        if (D >= 0) {
          for (unsigned X : DefsOfUnit[D]) {
            if (S.test(Cur + X))
              RR.Defs.push_back({DefInstr[X], false});
            if (S.test(Carried + X))
              RR.Defs.push_back({DefInstr[X], true});
          }
          if (S.test(D))
            RR.Defs.push_back({EntryDef, false});
        }
        if (RR.Defs.empty())
          RR.Defs.push_back({EntryDef, false});
        Reads.push_back(std::move(RR));
      }
      ReadEnd[I] = Reads.size();
      for (auto [D, X] : DefsAt(I)) {
        Kill(S, D);
        S.set(Cur + X);
      }
    }
  }
}

bool ReachingDefs::regWrittenInLoop(unsigned Reg) const {
  for (unsigned U : K.unitsOf(Reg))
    if (unitWrittenInLoop(U))
      return true;
  return false;
}

namespace {
bool sameInstr(const Instr &A, const Instr &B) {
  return A.Opcode == B.Opcode && A.Ops == B.Ops && A.Id == B.Id &&
         A.MemWidth == B.MemWidth && A.Size == B.Size && A.Object == B.Object &&
         A.Call == B.Call && A.ImplicitUses == B.ImplicitUses &&
         A.ImplicitDefs == B.ImplicitDefs && A.Unchanged == B.Unchanged &&
         A.Padding == B.Padding && A.Stand == B.Stand;
}

bool sameBody(const LoopBody &A, const LoopBody &B) {
  if (A.Instrs.size() != B.Instrs.size() ||
      A.Blocks.size() != B.Blocks.size() || A.FreeRegs != B.FreeRegs ||
      A.LiveOuts != B.LiveOuts || A.ExitMayReadStored != B.ExitMayReadStored)
    return false;
  for (size_t I = 0; I < A.Blocks.size(); ++I)
    if (A.Blocks[I].Begin != B.Blocks[I].Begin ||
        A.Blocks[I].End != B.Blocks[I].End ||
        A.Blocks[I].Succs != B.Blocks[I].Succs ||
        A.Blocks[I].Exiting != B.Blocks[I].Exiting)
      return false;
  for (size_t I = 0; I < A.Instrs.size(); ++I)
    if (!sameInstr(A.Instrs[I], B.Instrs[I]))
      return false;
  return true;
}
} // namespace

std::shared_ptr<const BodyFacts> decan::bodyFacts(const X86Knowledge &K,
                                                  const LoopBody &L) {
  // REF stays in use while its variants come and go: least recently used
  // out first.
  struct Entry {
    const X86Knowledge *K = nullptr;
    LoopBody Body;
    std::shared_ptr<const BodyFacts> Facts;
    uint64_t Used = 0;
  };
  static thread_local std::array<Entry, 6> Cache;
  static thread_local uint64_t Clock = 0;
  Entry *Victim = &Cache[0];
  for (Entry &E : Cache) {
    if (E.Facts && E.K == &K && sameBody(E.Body, L)) {
      E.Used = ++Clock;
      return E.Facts;
    }
    if (E.Used < Victim->Used)
      Victim = &E;
  }
  Victim->K = &K;
  Victim->Body = L;
  Victim->Facts = std::make_shared<const BodyFacts>(K, L);
  Victim->Used = ++Clock;
  return Victim->Facts;
}

const std::vector<bool> &BodyFacts::affine(const X86Knowledge &K,
                                           const LoopBody &L) const {
  if (!Affine)
    Affine = affineDefs(K, L, RD);
  return *Affine;
}

std::vector<bool> decan::affineDefs(const X86Knowledge &K, const LoopBody &L,
                                    const ReachingDefs &RD) {
  unsigned N = L.Instrs.size();
  std::vector<bool> A(N, true);
  for (unsigned I = 0; I < N; ++I) {
    unsigned B = K.classify(L.Instrs[I].Opcode);
    if (B &
        (SubsetLoad | SubsetFP | SubsetDiv | SubsetUnsupported | SubsetCall))
      A[I] = false;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned I = 0; I < N; ++I) {
      if (!A[I])
        continue;
      for (const RegRead *R : RD.readsOf(I))
        for (auto [D, C] : R->Defs)
          if (D != EntryDef && !A[D] && !K.regsOverlap(R->Reg, K.EFLAGS))
            A[I] = false;
      Changed |= !A[I];
    }
  }
  return A;
}

bool decan::affineAt(const X86Knowledge &K, const ReachingDefs &RD,
                     const std::vector<bool> &Affine, unsigned I,
                     unsigned Reg) {
  if (!Reg)
    return true;
  for (const RegRead *R : RD.readsOf(I))
    if (K.regsOverlap(R->Reg, Reg))
      for (auto [D, C] : R->Defs)
        if (D != EntryDef && !Affine[D])
          return false;
  return true;
}

ArrayDistance decan::arrayDistance(const X86Knowledge &K, const LoopBody &L,
                                   const ReachingDefs &RD, unsigned Store,
                                   unsigned Load) {
  ArrayDistance Out;
  // Per-iteration step of a register: 0 when the loop never writes it, the
  // constant of its one induction update, none otherwise.
  auto StepOf = [&](unsigned Reg) -> std::optional<int64_t> {
    if (!Reg || !RD.regWrittenInLoop(Reg))
      return 0;
    std::optional<int64_t> Step;
    for (unsigned I = 0; I < L.Instrs.size(); ++I)
      for (auto [R, U] : RD.writesOf(I))
        if (K.regsOverlap(R, Reg)) {
          int64_t St = K.inductionStep(L.Instrs[I], R);
          if (Step || !St)
            return std::nullopt;
          Step = St;
          break;
        }
    return Step;
  };
  // Updates of Reg that come before instruction I in the iteration.
  auto UpdatesBefore = [&](unsigned Reg, unsigned I) {
    int64_t N = 0;
    for (unsigned J = 0; Reg && J < I; ++J)
      for (auto [R, U] : RD.writesOf(J))
        if (K.regsOverlap(R, Reg)) {
          ++N;
          break;
        }
    return N;
  };
  const Instr &S = L.Instrs[Store], &Ld = L.Instrs[Load];
  int MS = K.memOperandIndex(S.Opcode), ML = K.memOperandIndex(Ld.Opcode);
  if (MS < 0 || ML < 0)
    return Out;
  const Operand *A = &S.Ops[MS], *B = &Ld.Ops[ML];
  unsigned Base = A[0].Reg, Index = A[2].Reg;
  int64_t Scale = A[1].isImm() ? A[1].Imm : 1;
  std::optional<int64_t> SB = StepOf(Base), SX = StepOf(Index);
  if (!SB || !SX)
    return Out;
  Out.Known = true;
  Out.Step = *SB + Scale * *SX;
  Out.Delta =
      (B[3].Imm - A[3].Imm) +
      *SB * (UpdatesBefore(Base, Load) - UpdatesBefore(Base, Store)) +
      Scale * *SX * (UpdatesBefore(Index, Load) - UpdatesBefore(Index, Store));
  return Out;
}

namespace {
/// How far a register has moved, in its own units, since the iteration
/// began: before each instruction (none where no path of the iteration
/// reaches it), and over a whole iteration.
struct RegMotion {
  std::vector<std::optional<int64_t>> Before;
  int64_t Step = 0;
};
} // namespace

/// The motion of \p Reg when every write of it is a constant step and all
/// paths of an iteration agree where they meet and at the back edges.
static std::optional<RegMotion> regMotion(const X86Knowledge &K,
                                          const LoopBody &L,
                                          const ReachingDefs &RD,
                                          unsigned Reg) {
  RegMotion M;
  if (!Reg || !RD.regWrittenInLoop(Reg)) {
    M.Before.assign(L.Instrs.size(), 0);
    return M;
  }
  M.Before.assign(L.Instrs.size(), std::nullopt);
  // Edges to the header are back edges; the others form a DAG, so each
  // block is entered once, every other in-edge only checked.
  std::vector<std::optional<int64_t>> Entry(L.Blocks.size());
  std::optional<int64_t> Step;
  std::vector<unsigned> Work{0};
  Entry[0] = 0;
  while (!Work.empty()) {
    const LoopBody::Block &B = L.Blocks[Work.back()];
    int64_t Off = *Entry[Work.back()];
    Work.pop_back();
    for (unsigned I = B.Begin; I < B.End; ++I) {
      M.Before[I] = Off;
      for (auto [R, U] : RD.writesOf(I))
        if (K.regsOverlap(R, Reg)) {
          int64_t St = K.inductionStep(L.Instrs[I], R);
          if (!St)
            return std::nullopt;
          Off += St;
          break;
        }
    }
    for (unsigned S : B.Succs) {
      std::optional<int64_t> &At = S == 0 ? Step : Entry[S];
      if (At && *At != Off)
        return std::nullopt;
      if (!At && S)
        Work.push_back(S);
      At = Off;
    }
  }
  if (!Step)
    return std::nullopt;
  M.Step = *Step;
  return M;
}

static std::optional<int64_t> strideOfRead(const X86Knowledge &K,
                                           const LoopBody &L,
                                           const ReachingDefs &RD, unsigned I,
                                           unsigned Reg, unsigned Depth);

/// How much the value \p Def writes to \p Reg changes from one iteration
/// to the next: an induction's step, or an affine combination (mov, lea,
/// add, sub, shl, imul by a constant) of registers that change so.
static std::optional<int64_t> strideOfDef(const X86Knowledge &K,
                                          const LoopBody &L,
                                          const ReachingDefs &RD, unsigned Def,
                                          unsigned Reg, unsigned Depth) {
  const Instr &I = L.Instrs[Def];
  if (K.inductionStep(I, Reg)) {
    std::optional<RegMotion> M = regMotion(K, L, RD, Reg);
    return M ? std::optional<int64_t>(M->Step) : std::nullopt;
  }
  if (Depth > 8)
    return std::nullopt;
  auto Of = [&](unsigned Op) -> std::optional<int64_t> {
    if (Op >= I.Ops.size() || !I.Ops[Op].isReg())
      return std::nullopt;
    return strideOfRead(K, L, RD, Def, I.Ops[Op].Reg, Depth + 1);
  };
  auto Imm = [&](unsigned Op) -> std::optional<int64_t> {
    if (Op >= I.Ops.size() || !I.Ops[Op].isImm())
      return std::nullopt;
    return I.Ops[Op].Imm;
  };
  StringRef N = K.opcodeName(I.Opcode);
  std::optional<int64_t> A, B, C;
  if (N == "MOV64rr" || N == "MOV32rr")
    return Of(1);
  if ((N == "LEA64r" || N == "LEA64_32r") && (A = Of(1)) && (B = Imm(2)) &&
      (C = Of(3)) && Imm(4) && I.Ops[5].isReg() && !I.Ops[5].Reg)
    return *A + *B * *C;
  if ((N == "ADD64rr" || N == "ADD32rr") && (A = Of(1)) && (B = Of(2)))
    return *A + *B;
  if ((N == "SUB64rr" || N == "SUB32rr") && (A = Of(1)) && (B = Of(2)))
    return *A - *B;
  if ((N == "SHL64ri" || N == "SHL32ri") && (A = Of(1)) && (B = Imm(2)) &&
      *B >= 0 && *B < 32)
    return *A * (int64_t(1) << *B);
  if ((N == "IMUL64rri32" || N == "IMUL64rri8" || N == "IMUL32rri" ||
       N == "IMUL32rri8") &&
      (A = Of(1)) && (B = Imm(2)))
    return *A * *B;
  return std::nullopt;
}

/// The stride of \p Reg as instruction \p I reads it: 0 when the loop
/// never writes it, an induction's step, or that of its one definition.
static std::optional<int64_t> strideOfRead(const X86Knowledge &K,
                                           const LoopBody &L,
                                           const ReachingDefs &RD, unsigned I,
                                           unsigned Reg, unsigned Depth) {
  if (!Reg || !RD.regWrittenInLoop(Reg))
    return 0;
  if (std::optional<RegMotion> M = regMotion(K, L, RD, Reg))
    return M->Step;
  std::optional<unsigned> Def;
  for (const RegRead *R : RD.readsOf(I))
    if (K.regsOverlap(R->Reg, Reg))
      for (auto [D, C] : R->Defs) {
        if (D == EntryDef || (Def && *Def != D))
          return std::nullopt;
        Def = D;
      }
  if (!Def)
    return std::nullopt;
  for (auto [R, U] : RD.writesOf(*Def))
    if (K.regsOverlap(R, Reg))
      return strideOfDef(K, L, RD, *Def, R, Depth);
  return std::nullopt;
}

/// For an address register \p Reg that \p Store and \p Load both read:
/// how far its value at the load is from its value at the store in the
/// same iteration, and how much it moves per iteration.
static std::optional<std::pair<int64_t, int64_t>>
registerDistance(const X86Knowledge &K, const LoopBody &L,
                 const ReachingDefs &RD, unsigned Reg, unsigned Store,
                 unsigned Load) {
  if (std::optional<RegMotion> M = regMotion(K, L, RD, Reg)) {
    if (!M->Before[Store] || !M->Before[Load])
      return std::nullopt;
    return std::pair(*M->Before[Load] - *M->Before[Store], M->Step);
  }
  // Recomputed in the loop (`lea (%rdi,%rsi,4), %rsi` from an induction):
  // the same definition must reach both, from the same or the previous
  // iteration.
  auto DefAt = [&](unsigned I) -> std::optional<std::pair<unsigned, bool>> {
    std::optional<std::pair<unsigned, bool>> Out;
    for (const RegRead *R : RD.readsOf(I))
      if (K.regsOverlap(R->Reg, Reg))
        for (auto DC : R->Defs) {
          if (DC.first == EntryDef || (Out && *Out != DC))
            return std::nullopt;
          Out = DC;
        }
    return Out;
  };
  auto DS = DefAt(Store), DL = DefAt(Load);
  if (!DS || !DL || DS->first != DL->first)
    return std::nullopt;
  std::optional<int64_t> Stride = strideOfRead(K, L, RD, Load, Reg, 0);
  if (!Stride)
    return std::nullopt;
  return std::pair((int64_t(DS->second) - int64_t(DL->second)) * *Stride,
                   *Stride);
}

/// True when instruction \p To may run after \p From in one iteration.
static bool mayFollowInIteration(const LoopBody &L, unsigned From,
                                 unsigned To) {
  auto BlockOf = [&](unsigned I) {
    for (unsigned B = 0; B < L.Blocks.size(); ++B)
      if (I >= L.Blocks[B].Begin && I < L.Blocks[B].End)
        return B;
    return 0u;
  };
  unsigned BF = BlockOf(From), BT = BlockOf(To);
  if (BF == BT && From < To)
    return true;
  std::vector<bool> Seen(L.Blocks.size());
  std::vector<unsigned> Work{BF};
  while (!Work.empty()) {
    unsigned B = Work.back();
    Work.pop_back();
    for (unsigned S : L.Blocks[B].Succs)
      if (S && !Seen[S]) {
        if (S == BT)
          return true;
        Seen[S] = true;
        Work.push_back(S);
      }
  }
  return false;
}

bool decan::neverReadsStored(const X86Knowledge &K, const LoopBody &L,
                             const ReachingDefs &RD, unsigned Store,
                             unsigned Load) {
  const Instr &S = L.Instrs[Store], &Ld = L.Instrs[Load];
  int MS = K.memOperandIndex(S.Opcode), ML = K.memOperandIndex(Ld.Opcode);
  if (MS < 0 || ML < 0)
    return false;
  const Operand *A = &S.Ops[MS], *B = &Ld.Ops[ML];
  // One array through the same registers; displacements as numbers (a
  // RIP-relative one counts from each instruction's own address).
  for (int J : {0, 1, 2, 4})
    if (!(A[J] == B[J]))
      return false;
  if (!A[0].isReg() || !A[2].isReg() || !A[3].isImm() || !B[3].isImm() ||
      A[0].Reg == K.RIP)
    return false;
  int64_t Ws = K.memWidth(S), Wl = K.memWidth(Ld);
  auto DB = registerDistance(K, L, RD, A[0].Reg, Store, Load),
       DX = registerDistance(K, L, RD, A[2].Reg, Store, Load);
  if (!Ws || !Wl || !DB || !DX)
    return false;
  int64_t Scale = A[1].isImm() ? A[1].Imm : 1;
  int64_t Step = DB->second + Scale * DX->second;
  // Where the load's first byte is, in the iteration of the store and in
  // each later one, from the store's first byte.
  int64_t D = (B[3].Imm - A[3].Imm) + DB->first + Scale * DX->first;
  auto Overlaps = [&](int64_t X) { return X < Ws && X + Wl > 0; };
  if (Overlaps(D) && mayFollowInIteration(L, Store, Load))
    return false;
  if (Step == 0)
    return !Overlaps(D);
  // Once past the stored bytes in the direction it moves, the load never
  // comes back; one that first has to cross them reads them.
  for (int64_t X = D + Step, N = 0; N < 4096; X += Step, ++N) {
    if (Overlaps(X))
      return false;
    if ((Step > 0 && X >= Ws) || (Step < 0 && X + Wl <= 0))
      return true;
  }
  return false;
}
