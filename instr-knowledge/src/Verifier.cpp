//===- Verifier.cpp - No new dependence in a variant ----------------------===//
//
// Part of decan. See decan/InstrKnowledge/Verifier.h.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Verifier.h"

#include "Dataflow.h"
#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <algorithm>
#include <tuple>

using namespace llvm;
using namespace decan;

bool DepEdge::operator<(const DepEdge &O) const {
  return std::tie(From, To, Resource, Carried) <
         std::tie(O.From, O.To, O.Resource, O.Carried);
}
bool DepEdge::operator==(const DepEdge &O) const {
  return std::tie(From, To, Resource, Carried) ==
         std::tie(O.From, O.To, O.Resource, O.Carried);
}

namespace {
/// A memory access of the loop: where and how wide.
struct Access {
  unsigned Index; ///< instruction index
  bool Store;
  bool Scratch; ///< DL1 scratch (Off is exact)
  int64_t Off;
  unsigned Width;
  const Operand *Mem; ///< the five memory operands
};
} // namespace

static bool sameAddress(const Operand *A, const Operand *B) {
  for (int J = 0; J < 5; ++J) {
    if (A[J].Kind != B[J].Kind)
      return false;
    if (A[J].Kind == Operand::Symbol) {
      // Opaque symbols are equal only with the same nonzero key.
      if (!A[J].SymKey || A[J].SymKey != B[J].SymKey || A[J].Imm != B[J].Imm)
        return false;
      continue;
    }
    if (!(A[J] == B[J]))
      return false;
  }
  return true;
}

std::vector<DepEdge> decan::dependenceGraph(const X86Knowledge &K,
                                            const LoopBody &L) {
  std::vector<DepEdge> Edges;
  ReachingDefs RD(K, L);
  auto IdOf = [&](unsigned D) {
    return D == EntryDef ? EntryId : L.Instrs[D].Id;
  };
  for (const RegRead &R : RD.reads()) {
    const Instr &To = L.Instrs[R.Instr];
    if (To.Padding)
      continue;
    for (auto [D, C] : R.Defs) {
      DepEdge E{IdOf(D), To.Id, R.Unit, C};
      if (D != EntryDef && L.Instrs[D].Padding)
        continue;
      if (E.From == E.To && !E.Carried)
        continue; // inside one replaced instruction (idiom + operation)
      Edges.push_back(E);
    }
  }
  // Memory: store -> load (forwarding), same iteration or carried.
  std::vector<Access> Acc;
  for (unsigned I = 0; I < L.Instrs.size(); ++I) {
    const Instr &In = L.Instrs[I];
    if (In.Padding)
      continue;
    unsigned Bits = K.classify(In.Opcode);
    int M = K.memOperandIndex(In.Opcode);
    if (M < 0 || !(Bits & (SubsetLoad | SubsetStore)) ||
        (unsigned)M + 5 > In.Ops.size())
      continue;
    const Operand *Mem = &In.Ops[M];
    bool Scratch = Mem[3].Kind == Operand::Scratch;
    unsigned W = std::max(K.memWidth(In), 1u);
    if (Bits & SubsetLoad)
      Acc.push_back({I, false, Scratch, Mem[3].Imm, W, Mem});
    if (Bits & SubsetStore)
      Acc.push_back({I, true, Scratch, Mem[3].Imm, W, Mem});
  }
  auto WrittenBetween = [&](unsigned Reg, unsigned From, unsigned To) {
    for (unsigned I = From + 1; I < To; ++I)
      for (auto [R, U] : RD.writesOf(I))
        if (K.regsOverlap(R, Reg))
          return true;
    return false;
  };
  for (const Access &S : Acc) {
    if (!S.Store)
      continue;
    for (const Access &Ld : Acc) {
      if (Ld.Store)
        continue;
      bool Same = false, Carried = false;
      if (S.Scratch && Ld.Scratch) {
        bool Overlap = S.Off < Ld.Off + (int64_t)Ld.Width &&
                       Ld.Off < S.Off + (int64_t)S.Width;
        Same = Overlap && S.Index < Ld.Index;
        Carried = Overlap;
      } else if (!S.Scratch && !Ld.Scratch && sameAddress(S.Mem, Ld.Mem)) {
        unsigned Base = S.Mem[0].Reg, Index = S.Mem[2].Reg;
        bool Invariant =
            !RD.regWrittenInLoop(Base) && !RD.regWrittenInLoop(Index);
        Carried = Invariant;
        Same = S.Index < Ld.Index &&
               (Invariant || (!WrittenBetween(Base, S.Index, Ld.Index) &&
                              !WrittenBetween(Index, S.Index, Ld.Index)));
      }
      if (Same)
        Edges.push_back(
            {L.Instrs[S.Index].Id, L.Instrs[Ld.Index].Id, MemResource, false});
      if (Carried)
        Edges.push_back(
            {L.Instrs[S.Index].Id, L.Instrs[Ld.Index].Id, MemResource, true});
    }
  }
  std::sort(Edges.begin(), Edges.end());
  Edges.erase(std::unique(Edges.begin(), Edges.end()), Edges.end());
  return Edges;
}

std::string decan::describeEdge(const X86Knowledge &K, const DepEdge &E) {
  std::string Res;
  if (E.Resource == MemResource) {
    Res = "memory";
  } else {
    // Name the first register that owns this unit.
    const MCRegisterInfo &MRI = K.regInfo();
    for (MCRegUnitRootIterator R(static_cast<MCRegUnit>(E.Resource), &MRI);
         R.isValid(); ++R) {
      Res = MRI.getName(*R);
      break;
    }
  }
  auto Name = [](unsigned Id) {
    return Id == EntryId ? std::string("loop entry") : "#" + std::to_string(Id);
  };
  return "RAW " + Res + " from " + Name(E.From) + " to " + Name(E.To) +
         (E.Carried ? " (loop-carried)" : " (same iteration)");
}

Error decan::verifyNoNewDependences(const X86Knowledge &K, const LoopBody &Ref,
                                    const LoopBody &Variant) {
  std::vector<DepEdge> R = dependenceGraph(K, Ref);
  std::vector<DepEdge> V = dependenceGraph(K, Variant);
  for (const DepEdge &E : V) {
    if (std::binary_search(R.begin(), R.end(), E))
      continue;
    // A value from before the loop that REF overwrote first is no new
    // constraint: it is available when the loop starts.
    if (E.From == EntryId)
      continue;
    return createStringError(inconvertibleErrorCode(),
                             "new dependence " + describeEdge(K, E));
  }
  return Error::success();
}
