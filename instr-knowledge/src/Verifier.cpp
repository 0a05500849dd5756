//===- Verifier.cpp - No new dependence in a variant ----------------------===//
//
// Part of decan. See decan/InstrKnowledge/Verifier.h.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Verifier.h"

#include "Dataflow.h"
#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
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
                                                   const LoopBody &L,
                                                   const ReachingDefs &RD) {
  std::vector<DepEdge> Edges;
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

/// The dependence graph of the body \p F describes (computed once).
static const std::vector<DepEdge> &
graphOf(const X86Knowledge &K, const LoopBody &L, const BodyFacts &F) {
  if (!F.Graph)
    F.Graph = computeDependenceGraph(K, L, F.RD);
  return *F.Graph;
}

std::vector<DepEdge> decan::dependenceGraph(const X86Knowledge &K,
                                            const LoopBody &L) {
  // Each variant of a loop is checked against REF twice (no new, none
  // lost): the graph is kept with the body's other facts.
  return graphOf(K, L, *bodyFacts(K, L));
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
/// The edges of sorted graph \p G that leave \p From (contiguous: edges
/// sort by their source first).
ArrayRef<DepEdge> edgesFrom(const std::vector<DepEdge> &G, unsigned From) {
  auto Lo =
      std::lower_bound(G.begin(), G.end(), From,
                       [](const DepEdge &E, unsigned F) { return E.From < F; });
  auto Hi =
      std::upper_bound(Lo, G.end(), From,
                       [](unsigned F, const DepEdge &E) { return F < E.From; });
  return ArrayRef<DepEdge>(G).slice(Lo - G.begin(), Hi - Lo);
}

/// A (node, iterations) pair as one key.
uint64_t key(unsigned A, unsigned B) { return uint64_t(A) << 32 | B; }

/// Dependences between the instructions a body keeps, through the ones it
/// deleted: (from, to, carried iterations capped at 2).
class Reach {
public:
  void insert(unsigned From, unsigned To, unsigned C) {
    Set.insert(key(From, To) * 4 + C);
  }
  bool count(unsigned From, unsigned To, unsigned C) const {
    return Set.contains(key(From, To) * 4 + C);
  }

private:
  DenseSet<uint64_t> Set; // ids are below 2^30
};

/// Ids that \p L keeps, in ascending order: some instruction with that id
/// that is neither padding nor a stand-in for a deleted result.
std::vector<unsigned> keptIds(const LoopBody &L) {
  std::vector<unsigned> Ids;
  for (const Instr &I : L.Instrs)
    if (!I.Padding && !I.Stand && I.Id != NoId)
      Ids.push_back(I.Id);
  llvm::sort(Ids);
  Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
  return Ids;
}

bool isKept(const std::vector<unsigned> &Kept, unsigned Id) {
  return std::binary_search(Kept.begin(), Kept.end(), Id);
}

/// Everything reachable from kept ids through ids that are not kept (any
/// edge passes through those).
Reach reachThroughDeleted(const std::vector<DepEdge> &G,
                          const std::vector<unsigned> &Kept) {
  Reach R;
  DenseSet<uint64_t> Seen;
  std::vector<std::pair<unsigned, unsigned>> Work;
  for (unsigned A : Kept) {
    Seen.clear();
    Work.assign(1, {A, 0});
    while (!Work.empty()) {
      auto [N, C] = Work.back();
      Work.pop_back();
      if (N == EntryId)
        continue;
      for (const DepEdge &E : edgesFrom(G, N)) {
        unsigned C2 = std::min(2u, C + E.Carried);
        if (isKept(Kept, E.To)) {
          R.insert(A, E.To, C2);
          continue;
        }
        if (Seen.insert(key(E.To, C2)).second)
          Work.push_back({E.To, C2});
      }
    }
  }
  return R;
}

/// Instructions of \p L by id (padding left out): built once per check,
/// not searched per edge.
class InstrsById {
public:
  explicit InstrsById(const LoopBody &L) {
    for (const Instr &I : L.Instrs) {
      if (I.Padding)
        continue;
      if (I.Id >= L.Instrs.size() + 64) { // NoId, or an id of no REF
        Other[I.Id].push_back(&I);
        continue;
      }
      if (I.Id >= ById.size())
        ById.resize(I.Id + 1);
      ById[I.Id].push_back(&I);
    }
  }
  ArrayRef<const Instr *> operator()(unsigned Id) const {
    if (Id < ById.size())
      return ById[Id];
    auto It = Other.find(Id);
    return It == Other.end() ? ArrayRef<const Instr *>() : It->second;
  }

private:
  std::vector<SmallVector<const Instr *, 1>> ById;
  std::map<unsigned, SmallVector<const Instr *, 1>> Other;
};

bool touchesUnit(const X86Knowledge &K, ArrayRef<const Instr *> Is,
                 unsigned Unit, bool Write) {
  for (const Instr *I : Is) {
    SmallVector<unsigned, 8> Regs;
    if (Write)
      K.regsWritten(*I, Regs);
    else
      K.regsRead(*I, Regs);
    for (unsigned R : Regs)
      if (is_contained(K.unitsOf(R), Unit))
        return true;
  }
  return false;
}
} // namespace

Error decan::verifyNoNewDependences(const X86Knowledge &K, const LoopBody &Ref,
                                    const LoopBody &Variant) {
  std::shared_ptr<const BodyFacts> RefFacts = bodyFacts(K, Ref),
                                   VarFacts = bodyFacts(K, Variant);
  const std::vector<DepEdge> &R = graphOf(K, Ref, *RefFacts);
  const std::vector<DepEdge> &V = graphOf(K, Variant, *VarFacts);
  // REF's dependences, direct or through what the variant deleted, bridged
  // or changed (a division turned into a load keeps its id, but its result
  // now passes through): every such path is a dependence REF has.
  // (Sorted id lists: ids may be NoId, which a DenseSet cannot hold.)
  std::vector<unsigned> Unchanged;
  for (const Instr &I : Variant.Instrs)
    if (I.Unchanged && !I.Padding)
      Unchanged.push_back(I.Id);
  llvm::sort(Unchanged);
  std::vector<unsigned> Inner;
  for (const Instr &I : Ref.Instrs)
    if (!std::binary_search(Unchanged.begin(), Unchanged.end(), I.Id))
      Inner.push_back(I.Id);
  llvm::sort(Inner);
  DenseSet<uint64_t> Seen;
  std::vector<std::pair<unsigned, unsigned>> Work;
  auto RefHas = [&](const DepEdge &E) {
    if (std::binary_search(R.begin(), R.end(), E))
      return true;
    // A path E.From -> (deleted or bridged ids) -> E.To, as carried.
    Seen.clear();
    Work.assign(1, {E.From, 0});
    while (!Work.empty()) {
      auto [N, C] = Work.back();
      Work.pop_back();
      if (N == EntryId)
        continue;
      for (const DepEdge &XE : edgesFrom(R, N)) {
        const DepEdge *X = &XE;
        unsigned C2 = C + X->Carried;
        if (C2 > 1)
          continue;
        if (X->To == E.To && C2 == (unsigned)E.Carried &&
            (X->Resource == MemResource) == (E.Resource == MemResource))
          return true;
        if (std::binary_search(Inner.begin(), Inner.end(), X->To) &&
            Seen.insert(key(X->To, C2)).second)
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
                               ArrayRef<const Instr *> BV, unsigned Unit) {
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
  std::shared_ptr<const BodyFacts> RefFacts = bodyFacts(K, Ref),
                                   VarFacts = bodyFacts(K, Variant);
  const std::vector<DepEdge> &R = graphOf(K, Ref, *RefFacts);
  const std::vector<DepEdge> &V = graphOf(K, Variant, *VarFacts);
  std::vector<unsigned> Kept = keptIds(Variant);
  Reach Have = reachThroughDeleted(V, Kept);
  InstrsById VariantById(Variant);
  std::map<unsigned, const Instr *> RefById;
  for (const Instr &I : Ref.Instrs)
    RefById[I.Id] = &I;
  // Does deleted instruction D pass a value that arrives on unit In on to
  // its readers of unit Out?
  auto Passes = [&](unsigned D, unsigned In, unsigned OutUnit) {
    const Instr &I = *RefById[D];
    SmallVector<unsigned, 4> Ws;
    K.regsWritten(I, Ws);
    for (unsigned W : Ws) {
      if (!is_contained(K.unitsOf(W), OutUnit))
        continue;
      PassThrough P = K.passThrough(I, W);
      unsigned Src = P.Kind == PassThrough::Keep   ? W
                     : P.Kind == PassThrough::Copy ? P.Src
                                                   : 0;
      if (!Src)
        continue;
      if (is_contained(K.unitsOf(Src), In))
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
  const std::vector<bool> &Affine = RefFacts->affine(K, Ref);
  std::map<unsigned, unsigned> RefIndex;
  for (unsigned I = 0; I < Ref.Instrs.size(); ++I)
    RefIndex[Ref.Instrs[I].Id] = I;
  auto Dropped = [&](unsigned B, ArrayRef<const Instr *> BV, unsigned Unit,
                     unsigned From) {
    const Instr &RB = *RefById[B];
    int M = K.memOperandIndex(RB.Opcode);
    bool Addr = false;
    if (M >= 0 && (K.classify(RB.Opcode) & (SubsetLoad | SubsetStore)))
      for (int J : {M, M + 2})
        if ((unsigned)J < RB.Ops.size() && RB.Ops[J].isReg() &&
            RB.Ops[J].Reg) // no base or index: register 0 has no units
          Addr |= is_contained(K.unitsOf(RB.Ops[J].Reg), Unit);
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
  DenseSet<std::tuple<unsigned, unsigned, unsigned>> Seen;
  std::vector<const DepEdge *> Work;
  std::vector<unsigned> Carry;
  for (unsigned A : Kept) {
    ArrayRef<const Instr *> AV = VariantById(A);
    for (const DepEdge &E0Ref : edgesFrom(R, A)) {
      const DepEdge *E0 = &E0Ref;
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
      Seen.clear();
      Work.assign(1, E0);
      Carry.assign(1, (unsigned)E0->Carried);
      while (!Work.empty()) {
        const DepEdge *E = Work.back();
        unsigned C = Carry.back();
        Work.pop_back();
        Carry.pop_back();
        if (isKept(Kept, E->To)) {
          ArrayRef<const Instr *> BV = VariantById(E->To);
          if (redirectedArgument(K, *RefById[E->To], BV, E->Resource))
            continue;
          if (!touchesUnit(K, BV, E->Resource, /*Write=*/false) &&
              Dropped(E->To, BV, E->Resource, E->From))
            continue;
          if (Have.count(A, E->To, C))
            continue;
          DepEdge Lost{A, E->To, E->Resource, C > 0};
          return createStringError(inconvertibleErrorCode(),
                                   "lost dependence " + describeEdge(K, Lost) +
                                       (C > 1 ? " (2+ iterations)" : ""));
        }
        if (!RefById.count(E->To))
          continue;
        for (const DepEdge &XE : edgesFrom(R, E->To)) {
          const DepEdge *X = &XE;
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
