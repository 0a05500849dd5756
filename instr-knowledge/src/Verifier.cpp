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
#include <array>
#include <map>
#include <optional>
#include <set>
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

/// Same base, scale, index, segment and symbol: one array, whatever the
/// displacement (its byte offset, in Access::Off).
static bool sameArray(const Operand *A, const Operand *B) {
  for (int J : {0, 1, 2, 4})
    if (!(A[J] == B[J]))
      return false;
  if (A[3].Kind != B[3].Kind)
    return false;
  if (A[3].Kind == Operand::Symbol)
    return A[3].SymKey && A[3].SymKey == B[3].SymKey;
  return true;
}

static std::vector<DepEdge> computeDependenceGraph(const X86Knowledge &K,
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
      } else if (!S.Scratch && !Ld.Scratch && sameArray(S.Mem, Ld.Mem)) {
        // One array: the load of iteration i+k (k = 0: same iteration,
        // after the store) reads the stored bytes when its address,
        // moved by k steps, overlaps them.
        ArrayDistance AD = arrayDistance(K, L, RD, S.Index, Ld.Index);
        if (!AD.Known) {
          // An address the loop moves some other way: assume the worst.
          Carried = true;
          Same = S.Index < Ld.Index && sameAddress(S.Mem, Ld.Mem);
        } else {
          auto Overlaps = [&](int64_t Shift) {
            int64_t Lo = AD.Delta + Shift;
            return Lo < (int64_t)S.Width && -Lo < (int64_t)Ld.Width;
          };
          Same = S.Index < Ld.Index && Overlaps(0);
          // Steps of one iteration chain through any distance: the
          // first 64 iterations cover every realistic reuse distance.
          for (int64_t Kd = 1; Kd <= 64 && !Carried; ++Kd)
            Carried = AD.Step ? Overlaps(Kd * AD.Step) : Overlaps(0);
        }
      } else if (!S.Scratch && !Ld.Scratch && L.Instrs[S.Index].Object &&
                 L.Instrs[S.Index].Object == L.Instrs[Ld.Index].Object) {
        // One object through other registers (a[i] and a[i - d]): they may
        // meet, in this iteration or a later one.
        Same = S.Index < Ld.Index;
        Carried = true;
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

static bool sameInstr(const Instr &A, const Instr &B) {
  return A.Opcode == B.Opcode && A.Ops == B.Ops && A.Id == B.Id &&
         A.MemWidth == B.MemWidth && A.Size == B.Size && A.Object == B.Object &&
         A.Call == B.Call && A.ImplicitUses == B.ImplicitUses &&
         A.ImplicitDefs == B.ImplicitDefs && A.Unchanged == B.Unchanged &&
         A.Padding == B.Padding && A.Stand == B.Stand;
}

static bool sameBody(const LoopBody &A, const LoopBody &B) {
  if (A.Instrs.size() != B.Instrs.size() ||
      A.Blocks.size() != B.Blocks.size() || A.FreeRegs != B.FreeRegs ||
      A.LiveOuts != B.LiveOuts)
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

std::vector<DepEdge> decan::dependenceGraph(const X86Knowledge &K,
                                            const LoopBody &L) {
  // Each variant of a loop is checked against REF twice (no new, none
  // lost): the graphs of the last few bodies are kept, per thread, and
  // reused for an identical body (compared in full: O(n), the graph is
  // not).
  struct Entry {
    const X86Knowledge *K = nullptr;
    LoopBody Body;
    std::vector<DepEdge> Graph;
  };
  static thread_local std::array<Entry, 4> Cache;
  static thread_local unsigned Victim = 0;
  for (Entry &E : Cache)
    if (E.K == &K && sameBody(E.Body, L))
      return E.Graph;
  Entry &E = Cache[Victim++ % Cache.size()];
  E.K = &K;
  E.Body = L;
  E.Graph = computeDependenceGraph(K, L);
  return E.Graph;
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

namespace {
/// Dependences between the instructions a body keeps, through the ones it
/// deleted: (from, to, carried iterations capped at 2).
using Reach = std::set<std::tuple<unsigned, unsigned, unsigned>>;

/// Ids that \p L keeps: some instruction with that id that is neither
/// padding nor a stand-in for a deleted result.
std::set<unsigned> keptIds(const LoopBody &L) {
  std::set<unsigned> Ids;
  for (const Instr &I : L.Instrs)
    if (!I.Padding && !I.Stand && I.Id != NoId)
      Ids.insert(I.Id);
  return Ids;
}

/// Everything reachable from kept ids through ids that are not kept (any
/// edge passes through those).
Reach reachThroughDeleted(const std::vector<DepEdge> &G,
                          const std::set<unsigned> &Kept) {
  std::map<unsigned, std::vector<const DepEdge *>> Out;
  for (const DepEdge &E : G)
    if (E.From != EntryId)
      Out[E.From].push_back(&E);
  Reach R;
  for (unsigned A : Kept) {
    std::set<std::pair<unsigned, unsigned>> Seen;
    std::vector<std::pair<unsigned, unsigned>> Work{{A, 0}};
    while (!Work.empty()) {
      auto [N, C] = Work.back();
      Work.pop_back();
      for (const DepEdge *E : Out[N]) {
        unsigned C2 = std::min(2u, C + E->Carried);
        if (Kept.count(E->To)) {
          R.insert({A, E->To, C2});
          continue;
        }
        if (Seen.insert({E->To, C2}).second)
          Work.push_back({E->To, C2});
      }
    }
  }
  return R;
}

/// Instructions of \p L with id \p Id.
std::vector<const Instr *> withId(const LoopBody &L, unsigned Id) {
  std::vector<const Instr *> Out;
  for (const Instr &I : L.Instrs)
    if (I.Id == Id && !I.Padding)
      Out.push_back(&I);
  return Out;
}

bool touchesUnit(const X86Knowledge &K, const std::vector<const Instr *> &Is,
                 unsigned Unit, bool Write) {
  for (const Instr *I : Is) {
    SmallVector<unsigned, 8> Regs;
    if (Write)
      K.regsWritten(*I, Regs);
    else
      K.regsRead(*I, Regs);
    for (unsigned R : Regs)
      for (MCRegUnit U : K.regInfo().regunits(R))
        if (static_cast<unsigned>(U) == Unit)
          return true;
  }
  return false;
}
} // namespace

Error decan::verifyNoNewDependences(const X86Knowledge &K, const LoopBody &Ref,
                                    const LoopBody &Variant) {
  std::vector<DepEdge> R = dependenceGraph(K, Ref);
  std::vector<DepEdge> V = dependenceGraph(K, Variant);
  // REF's dependences, direct or through what the variant deleted, bridged
  // or changed (a division turned into a load keeps its id, but its result
  // now passes through): every such path is a dependence REF has.
  std::set<unsigned> Unchanged;
  for (const Instr &I : Variant.Instrs)
    if (I.Unchanged && !I.Padding)
      Unchanged.insert(I.Id);
  std::set<unsigned> Inner;
  for (const Instr &I : Ref.Instrs)
    if (!Unchanged.count(I.Id))
      Inner.insert(I.Id);
  std::map<unsigned, std::vector<const DepEdge *>> Out;
  for (const DepEdge &E : R)
    if (E.From != EntryId)
      Out[E.From].push_back(&E);
  auto RefHas = [&](const DepEdge &E) {
    if (std::binary_search(R.begin(), R.end(), E))
      return true;
    // A path E.From -> (deleted or bridged ids) -> E.To, as carried.
    std::set<std::pair<unsigned, unsigned>> Seen;
    std::vector<std::pair<unsigned, unsigned>> Work{{E.From, 0}};
    while (!Work.empty()) {
      auto [N, C] = Work.back();
      Work.pop_back();
      for (const DepEdge *X : Out[N]) {
        unsigned C2 = C + X->Carried;
        if (C2 > 1)
          continue;
        if (X->To == E.To && C2 == (unsigned)E.Carried &&
            (X->Resource == MemResource) == (E.Resource == MemResource))
          return true;
        if (Inner.count(X->To) && Seen.insert({X->To, C2}).second)
          Work.push_back({X->To, C2});
      }
    }
    return false;
  };
  for (const DepEdge &E : V) {
    // A value from before the loop that REF overwrote first is no new
    // constraint: it is available when the loop starts.
    if (E.From == EntryId || RefHas(E))
      continue;
    return createStringError(inconvertibleErrorCode(),
                             "new dependence " + describeEdge(K, E));
  }
  return Error::success();
}

/// DL1 points a memcpy/memset/memmove's pointer arguments into the scratch
/// area (a `lea` of it before the call, with the call's id): the call then
/// stops reading their values, which is the variant's target, as an access
/// still made drops its affine address.
static bool redirectedArgument(const X86Knowledge &K, const Instr &RefCall,
                               const std::vector<const Instr *> &BV,
                               unsigned Unit) {
  if (RefCall.Call != CallKind::Memory)
    return false;
  unsigned Lea = K.opcode("LEA64r");
  for (const Instr *X : BV)
    if (X->Opcode == Lea && X->Ops.size() == 6 &&
        X->Ops[4].Kind == Operand::Scratch && X->Ops[0].isReg())
      for (MCRegUnit U : K.regInfo().regunits(X->Ops[0].Reg))
        if (static_cast<unsigned>(U) == Unit)
          return true;
  return false;
}

Error decan::verifyKeptDependences(const X86Knowledge &K, const LoopBody &Ref,
                                   const LoopBody &Variant,
                                   std::vector<DepEdge> *LostMemory) {
  std::vector<DepEdge> R = dependenceGraph(K, Ref);
  std::vector<DepEdge> V = dependenceGraph(K, Variant);
  std::set<unsigned> Kept = keptIds(Variant);
  Reach Have = reachThroughDeleted(V, Kept);
  std::map<unsigned, const Instr *> RefById;
  for (const Instr &I : Ref.Instrs)
    RefById[I.Id] = &I;
  std::map<unsigned, std::vector<const DepEdge *>> Out;
  for (const DepEdge &E : R)
    if (E.From != EntryId)
      Out[E.From].push_back(&E);
  // Does deleted instruction D pass a value that arrives on unit In on to
  // its readers of unit Out?
  auto Passes = [&](unsigned D, unsigned In, unsigned OutUnit) {
    const Instr &I = *RefById[D];
    SmallVector<unsigned, 4> Ws;
    K.regsWritten(I, Ws);
    for (unsigned W : Ws) {
      bool Has = false;
      for (MCRegUnit U : K.regInfo().regunits(W))
        Has |= static_cast<unsigned>(U) == OutUnit;
      if (!Has)
        continue;
      PassThrough P = K.passThrough(I, W);
      unsigned Src = P.Kind == PassThrough::Keep   ? W
                     : P.Kind == PassThrough::Copy ? P.Src
                                                   : 0;
      if (!Src)
        continue;
      for (MCRegUnit U : K.regInfo().regunits(Src))
        if (static_cast<unsigned>(U) == In)
          return true;
    }
    return false;
  };
  // A kept instruction may stop reading an input only where that is the
  // variant's target: a load-op or store that became a pure load keeps
  // just its address; an access that left memory (FP) drops its address;
  // an access still made (DL1) drops only an affine address -- one built
  // from induction steps carries no chain, one from loaded data (a table
  // lookup) does.
  ReachingDefs RefRD(K, Ref);
  std::vector<bool> Affine = affineDefs(K, Ref, RefRD);
  std::map<unsigned, unsigned> RefIndex;
  for (unsigned I = 0; I < Ref.Instrs.size(); ++I)
    RefIndex[Ref.Instrs[I].Id] = I;
  auto Dropped = [&](unsigned B, const std::vector<const Instr *> &BV,
                     unsigned Unit, unsigned From) {
    const Instr &RB = *RefById[B];
    int M = K.memOperandIndex(RB.Opcode);
    bool Addr = false;
    if (M >= 0 && (K.classify(RB.Opcode) & (SubsetLoad | SubsetStore)))
      for (int J : {M, M + 2})
        if ((unsigned)J < RB.Ops.size() && RB.Ops[J].isReg() &&
            RB.Ops[J].Reg) // no base or index: register 0 has no units
          for (MCRegUnit U : K.regInfo().regunits(RB.Ops[J].Reg))
            Addr |= static_cast<unsigned>(U) == Unit;
    bool StillMem = false, PureLoad = false;
    for (const Instr *X : BV) {
      unsigned C = K.classify(X->Opcode);
      StillMem |= (C & (SubsetLoad | SubsetStore)) != 0;
      PureLoad |= (C & SubsetPureMem) && (C & SubsetLoad);
    }
    if (!Addr)
      return PureLoad;
    if (!StillMem)
      return true;
    auto It = RefIndex.find(From);
    return From == EntryId || (It != RefIndex.end() && Affine[It->second]);
  };
  for (unsigned A : Kept) {
    std::vector<const Instr *> AV = withId(Variant, A);
    for (const DepEdge *E0 : Out[A]) {
      if (E0->Resource == MemResource) {
        // A store the variant no longer makes: the load's chain through
        // memory is gone.
        if (LostMemory && !std::binary_search(V.begin(), V.end(), *E0))
          LostMemory->push_back(*E0);
        continue;
      }
      if (!touchesUnit(K, AV, E0->Resource, /*Write=*/true))
        continue; // the kept form no longer produces it (load-op -> load)
      // Follow the value through deleted instructions' pass-through input.
      std::set<std::tuple<unsigned, unsigned, unsigned>> Seen;
      std::vector<const DepEdge *> Work{E0};
      std::vector<unsigned> Carry{(unsigned)E0->Carried};
      while (!Work.empty()) {
        const DepEdge *E = Work.back();
        unsigned C = Carry.back();
        Work.pop_back();
        Carry.pop_back();
        if (Kept.count(E->To)) {
          std::vector<const Instr *> BV = withId(Variant, E->To);
          if (redirectedArgument(K, *RefById[E->To], BV, E->Resource))
            continue;
          if (!touchesUnit(K, BV, E->Resource, /*Write=*/false) &&
              Dropped(E->To, BV, E->Resource, E->From))
            continue;
          if (Have.count({A, E->To, C}))
            continue;
          DepEdge Lost{A, E->To, E->Resource, C > 0};
          return createStringError(inconvertibleErrorCode(),
                                   "lost dependence " + describeEdge(K, Lost) +
                                       (C > 1 ? " (2+ iterations)" : ""));
        }
        if (!RefById.count(E->To))
          continue;
        for (const DepEdge *X : Out[E->To]) {
          if (X->Resource == MemResource ||
              !Passes(E->To, E->Resource, X->Resource))
            continue;
          unsigned C2 = std::min(2u, C + X->Carried);
          if (Seen.insert({E->To, X->Resource, C2}).second) {
            Work.push_back(X);
            Carry.push_back(C2);
          }
        }
      }
    }
  }
  return Error::success();
}
