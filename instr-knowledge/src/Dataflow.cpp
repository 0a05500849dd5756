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
#include <iterator>
#include <map>
#include <optional>

using namespace llvm;
using namespace decan;

ReachingDefs::ReachingDefs(const X86Knowledge &K, const LoopBody &L) : K(K) {
  const MCRegisterInfo &MRI = K.regInfo();
  unsigned N = L.Instrs.size();
  std::vector<std::vector<std::pair<unsigned, unsigned>>> ReadUnits(N);
  Writes.resize(N);
  for (unsigned I = 0; I < N; ++I) {
    SmallVector<unsigned, 8> Rs, Ws;
    K.regsRead(L.Instrs[I], Rs);
    K.regsWritten(L.Instrs[I], Ws);
    for (unsigned R : Rs)
      for (MCRegUnit U : MRI.regunits(R))
        ReadUnits[I].push_back({R, static_cast<unsigned>(U)});
    for (unsigned R : Ws)
      for (MCRegUnit U : MRI.regunits(R)) {
        Writes[I].push_back({R, static_cast<unsigned>(U)});
        WrittenUnits.insert(static_cast<unsigned>(U));
      }
  }
  // Bit-vector reaching definitions. Bits: one "from before the loop" per
  // written unit, then one per (instruction, unit) definition in this
  // iteration, then the same definitions from a previous iteration (the
  // two definition ranges 64-bit aligned, so carrying a state around the
  // back edge moves whole words). Units the loop never writes always see
  // their value from before it.
  std::vector<int> Dense(MRI.getNumRegUnits(), -1);
  unsigned NU = 0;
  for (unsigned U : WrittenUnits)
    Dense[U] = NU++;
  std::vector<std::vector<unsigned>> DefsOfUnit(NU); // def numbers
  std::vector<unsigned> DefInstr;
  std::vector<std::vector<std::pair<unsigned, unsigned>>> DefsAt(N);
  for (unsigned I = 0; I < N; ++I)
    for (auto [R, U] : Writes[I]) {
      unsigned D = Dense[U];
      // An instruction writing a unit twice (two names of one register)
      // defines it once.
      if (!DefsOfUnit[D].empty() && DefInstr[DefsOfUnit[D].back()] == I)
        continue;
      DefsOfUnit[D].push_back(DefInstr.size());
      DefsAt[I].push_back({D, unsigned(DefInstr.size())});
      DefInstr.push_back(I);
    }
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
      for (auto [D, X] : DefsAt[I]) {
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
  auto Transfer = [&](unsigned B, BitVector &S) {
    S.reset(KillMask[B]);
    S |= Gen[B];
  };
  std::vector<BitVector> Out(NB, BitVector(Bits));
  std::vector<std::vector<unsigned>> Preds(NB);
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
  auto In = [&](unsigned B) {
    BitVector S(Bits);
    if (B == 0) {
      // From before the loop, and around the back edges (carried).
      S.set(0, NU);
      for (unsigned P : Preds[0]) {
        BitVector C = Out[P];
        for (unsigned X = 0; X < ND; ++X)
          if (C.test(Cur + X))
            C.set(Carried + X);
        C.reset(Cur, Cur + ND);
        S |= C;
      }
      return S;
    }
    for (unsigned P : Preds[B]) {
      S |= Out[P];
      S |= AbsentOut[P];
    }
    return S;
  };
  for (unsigned Iter = 0; Iter < 4 * NB + 4; ++Iter) {
    bool Changed = false;
    for (unsigned B = 0; B < NB; ++B) {
      BitVector S = In(B);
      Transfer(B, S);
      if (S != Out[B]) {
        Out[B] = std::move(S);
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  for (unsigned B = 0; B < NB; ++B) {
    BitVector S = In(B);
    for (unsigned I = L.Blocks[B].Begin; I < L.Blocks[B].End; ++I) {
      for (auto [R, U] : ReadUnits[I]) {
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
      for (auto [D, X] : DefsAt[I]) {
        Kill(S, D);
        S.set(Cur + X);
      }
    }
  }
  ReadIdx.resize(N);
  for (unsigned R = 0; R < Reads.size(); ++R)
    ReadIdx[Reads[R].Instr].push_back(R);
}

std::vector<const RegRead *> ReachingDefs::readsOf(unsigned I) const {
  std::vector<const RegRead *> Out;
  if (I < ReadIdx.size())
    for (unsigned R : ReadIdx[I])
      Out.push_back(&Reads[R]);
  return Out;
}

bool ReachingDefs::regWrittenInLoop(unsigned Reg) const {
  if (!Reg)
    return false;
  for (MCRegUnit U : K.regInfo().regunits(Reg))
    if (unitWrittenInLoop(static_cast<unsigned>(U)))
      return true;
  return false;
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
          if (D != EntryDef && !A[D] && !K.regsOverlap(R->Reg, K.reg("EFLAGS")))
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
