//===- Dataflow.cpp - Reaching definitions in a loop body -----------------===//
//
// Part of decan. See Dataflow.h.
//
//===----------------------------------------------------------------------===//

#include "Dataflow.h"

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/MC/MCRegisterInfo.h"

#include <map>
#include <optional>

using namespace llvm;
using namespace decan;

namespace {
using DefSet = std::set<std::pair<unsigned, bool>>;
using State = std::map<unsigned, DefSet>;
} // namespace

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
  unsigned NB = L.Blocks.size();
  std::vector<State> Out(NB);
  std::vector<std::vector<unsigned>> Preds(NB);
  for (unsigned B = 0; B < NB; ++B)
    for (unsigned S : L.Blocks[B].Succs)
      if (S < NB)
        Preds[S].push_back(B);
  auto Transfer = [&](unsigned B, State S, bool Record) {
    for (unsigned I = L.Blocks[B].Begin; I < L.Blocks[B].End; ++I) {
      if (Record)
        for (auto [R, U] : ReadUnits[I]) {
          RegRead RR{I, R, U, {}};
          auto It = S.find(U);
          if (It == S.end())
            RR.Defs.insert({EntryDef, false});
          else
            RR.Defs = It->second;
          Reads.push_back(std::move(RR));
        }
      for (auto [R, U] : Writes[I])
        S[U] = DefSet{{I, false}};
    }
    return S;
  };
  auto In = [&](unsigned B) {
    State S;
    if (B == 0) {
      for (unsigned U : WrittenUnits)
        S[U].insert({EntryDef, false});
      for (unsigned P : Preds[0])
        for (auto &[U, Ds] : Out[P])
          for (auto [D, C] : Ds)
            S[U].insert({D, D == EntryDef ? false : true});
      return S;
    }
    for (unsigned P : Preds[B])
      for (auto &[U, Ds] : Out[P])
        S[U].insert(Ds.begin(), Ds.end());
    // A unit no predecessor wrote reaches from the header: keep it absent
    // only when no predecessor had it at all.
    for (unsigned P : Preds[B])
      for (unsigned U : WrittenUnits)
        if (!Out[P].count(U))
          S[U].insert({EntryDef, false});
    return S;
  };
  for (unsigned Iter = 0; Iter < 4 * NB + 4; ++Iter) {
    bool Changed = false;
    for (unsigned B = 0; B < NB; ++B) {
      State S = Transfer(B, In(B), false);
      if (S != Out[B]) {
        Out[B] = std::move(S);
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  for (unsigned B = 0; B < NB; ++B)
    Transfer(B, In(B), true);
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
