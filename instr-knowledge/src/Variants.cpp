//===- Variants.cpp - The decan variant rules ----------------------------===//
//
// Part of decan. See decan/InstrKnowledge/Variants.h and docs/variants.md.
// buildVariant() and the phases of VariantBuilder::run(): the refusals,
// what each REF instruction becomes, the body and the dependence verifier.
// The bridges for deleted values and the NOP layout (phases 2-3) are in
// VariantBridges.cpp, the per-instruction rewrites in VariantRules.cpp,
// DL1's scratch layout in ScratchLayout.cpp.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Variants.h"

#include "Dataflow.h"
#include "VariantBuilder.h"
#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Verifier.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <algorithm>
#include <optional>
#include <set>

using namespace llvm;
using namespace decan;

const char *decan::variantName(Variant V) {
  return decan_variant_name(static_cast<unsigned>(V));
}

bool decan::keepsCall(Variant V, CallKind C) {
  switch (variantInfo(V).Calls) {
  case KeptCalls::All:
    return true;
  case KeptCalls::None:
    return false;
  case KeptCalls::Pure:
    return C == CallKind::Pure; // arithmetic, no memory
  case KeptCalls::ReadOnly:
    return C == CallKind::ReadOnly; // memory work that writes nothing
  case KeptCalls::NoWrite:
    // Everything but what they target; variants never write memory.
    return C == CallKind::ReadOnly || C == CallKind::Pure;
  }
  return false;
}

/// What a call may do; a call the front end said nothing about may write.
static CallKind callKind(const Instr &I) {
  return I.Call == CallKind::None ? CallKind::MayWrite : I.Call;
}

Expected<unsigned> decan::loopBytes(const X86Knowledge &K, const LoopBody &L) {
  unsigned Sum = 0;
  for (const Instr &I : L.Instrs) {
    Expected<unsigned> S = K.sizeOf(I);
    if (!S)
      return S.takeError();
    Sum += *S;
  }
  // The assembler relaxes a back branch whose target is more than 128
  // bytes away to its rel32 form (jcc: 2 -> 6 bytes, jmp: 2 -> 5).
  if (Sum > 126)
    for (const LoopBody::Block &B : L.Blocks) {
      if (std::find(B.Succs.begin(), B.Succs.end(), 0u) == B.Succs.end())
        continue;
      for (unsigned I = B.End; I > B.Begin; --I) {
        const Instr &Br = L.Instrs[I - 1];
        if (Br.Size)
          break; // decoded: the real length is known
        StringRef N = K.opcodeName(Br.Opcode);
        if (N == "JCC_1" || N == "JMP_1") {
          Sum += N == "JCC_1" ? 4 : 3;
          break;
        }
      }
    }
  return Sum;
}

/// The phases, in order; each one either leaves its result in the builder
/// or returns why the variant is unavailable.
VariantResult VariantBuilder::run() {
  Res.V = V;
  Res.Body = Ref;
  // REF is the real loop: always available, even when a byte size is
  // unknown (inline assembly); its size is then 0 ("unknown").
  Expected<unsigned> RB = loopBytes(K, Ref);
  if (RB)
    Res.RefBytes = Res.Bytes = *RB;
  else
    consumeError(RB.takeError());
  if (V == Variant::REF) {
    Res.Status = VariantStatus::OK;
    return Res;
  }
  N = Ref.Instrs.size();
  if (auto R = checkLoop())
    return *R;
  if (auto R = planScratch())
    return *R;
  if (auto R = decideFates())
    return *R;
  findDivisionFeeds();
  if (auto R = bridgeDeletedValues())
    return *R;
  if (auto R = padToRefLength())
    return *R;
  return assembleBody();
}

VariantResult VariantBuilder::fail(VariantStatus St, std::string Why,
                                   decan_variant_why Code) {
  Res.Status = St;
  Res.Reason = std::move(Why);
  Res.Why = Code != DECAN_WHY_NONE          ? Code
            : St == VariantStatus::Empty    ? DECAN_WHY_NOTHING
            : St == VariantStatus::Verifier ? DECAN_WHY_VERIFIER
                                            : DECAN_WHY_OTHER;
  Res.Body = Ref;
  Res.Bytes = Res.RefBytes;
  return Res;
}

/// An empty variant, and why in words: what it removes or redirects is
/// absent, or all of it feeds the exit test or an address (the loop's work
/// is its control: pointer chasing, a search).
VariantResult VariantBuilder::emptyBecause() {
  unsigned Memory = 0, Arith = 0, Control = 0;
  for (unsigned I = 0; I < N; ++I) {
    unsigned B = S.Bits[I];
    if (B & SubsetNop)
      continue;
    if (B & (SubsetLoad | SubsetStore))
      ++Memory;
    else if (B & (SubsetFP | SubsetOther | SubsetDiv))
      ++Arith;
    Control += !!(B & SubsetCtrl);
  }
  switch (V) {
  case Variant::FP:
  case Variant::DL1:
    if (!Memory)
      return fail(VariantStatus::Empty, "no memory access",
                  DECAN_WHY_NO_MEMORY);
    return fail(VariantStatus::Empty,
                "every memory access feeds the exit test or an address",
                DECAN_WHY_MEMORY_FEEDS_CONTROL);
  case Variant::LS:
    if (Arith)
      return fail(VariantStatus::Empty,
                  "all arithmetic feeds the exit test or an address",
                  DECAN_WHY_ARITH_FEEDS_CONTROL);
    break;
  case Variant::CTRL:
    if (Control)
      return fail(VariantStatus::Empty, "every instruction feeds the exit test",
                  DECAN_WHY_ALL_CONTROL);
    break;
  default:
    break;
  }
  return fail(VariantStatus::Empty, "nothing to transform");
}

/// Refusals that do not depend on a rule: unsupported instructions, an
/// unknown size, nothing to do, integer divisions a variant could make trap.
std::optional<VariantResult> VariantBuilder::checkLoop() {
  for (unsigned I = 0; I < N; ++I)
    if (S.Bits[I] & SubsetUnsupported)
      return fail(VariantStatus::Unsupported,
                  "unsupported instruction " +
                      K.opcodeName(Ref.Instrs[I].Opcode).str() + " in the loop",
                  DECAN_WHY_INSTRUCTION);
  if (!Res.RefBytes)
    return fail(VariantStatus::Unsupported, "loop size unknown");
  // Variants never write program memory. Where the operands show that an
  // exit reads what the loop stores, every variant would see other values
  // and take other iterations: refused. Where nothing proves it either way
  // (another pointer, a call that may write), a capped copy is safe to
  // run: it ends, and a sample whose trip count differs from REF's on the
  // same input is dropped (Pairing.cpp, TripsDiffer).
  if (S.CtrlReadsStoredMemory ||
      (S.CtrlMayReadStoredMemory && !Opts.ExitCapped))
    return fail(VariantStatus::Unsupported,
                decan_variant_why_text(DECAN_WHY_EXIT_READS_STORED),
                DECAN_WHY_EXIT_READS_STORED);
  // A call the exit depends on stays in every variant: only one that
  // writes no memory may.
  for (unsigned I = 0; I < N; ++I)
    if ((S.Bits[I] & SubsetCall) && (S.Bits[I] & SubsetCtrl) &&
        !keepsCall(Variant::NO_DIV, callKind(Ref.Instrs[I])))
      return fail(VariantStatus::Unsupported,
                  decan_variant_why_text(DECAN_WHY_EXIT_DEPENDS_ON_CALL),
                  DECAN_WHY_EXIT_DEPENDS_ON_CALL);
  if (S.CtrlReadsCallWrittenMemory && !Opts.ExitCapped)
    return fail(VariantStatus::Unsupported,
                decan_variant_why_text(DECAN_WHY_EXIT_READS_CALL_WRITTEN),
                DECAN_WHY_EXIT_READS_CALL_WRITTEN);
  bool AnyMem = false;
  for (unsigned I = 0; I < N; ++I)
    AnyMem |=
        (S.Bits[I] & (SubsetLoad | SubsetStore)) && !(S.Bits[I] & SubsetCtrl);
  if (V == Variant::NO_DIV && S.NumDiv == 0)
    return fail(VariantStatus::Empty, "no division or square root",
                DECAN_WHY_NO_DIV);
  if (V == Variant::NO_CALL && S.NumCall == 0)
    return fail(VariantStatus::Empty, "no call", DECAN_WHY_NO_CALL);
  if ((V == Variant::S2L || V == Variant::NO_STORE) && S.NumStore == 0)
    return fail(VariantStatus::Empty, "no store", DECAN_WHY_NO_STORE);
  if (V == Variant::NO_RED && S.NumRed == 0)
    return fail(VariantStatus::Empty, "no reduction chain", DECAN_WHY_NO_RED);
  if (int G = variantGroup(V); G >= 0) {
    if (S.NumGroups < 2 || (unsigned)G >= S.NumGroups)
      return fail(VariantStatus::Empty,
                  S.NumGroups < 2 ? "fewer than two memory groups (DL1 and "
                                    "LS measure the one there is)"
                                  : "no memory group " + std::to_string(G),
                  DECAN_WHY_NO_GROUP);
    // Removing loads whose values address other accesses would move those
    // accesses too: not the group's cost alone.
    if (isGroupRemoval(V))
      for (unsigned I = 0; I < N; ++I)
        if (S.Group[I] == G && (S.Bits[I] & SubsetAddr) &&
            (S.Bits[I] & SubsetLoad))
          return fail(VariantStatus::Unsupported,
                      "group " + S.GroupNames[G] +
                          " holds addresses or indexes of other accesses",
                      DECAN_WHY_GROUP_HOLDS_ADDRESSES);
  }
  if (V == Variant::PREFETCH && !AnyMem)
    return fail(VariantStatus::Empty, "no memory access to repeat",
                DECAN_WHY_NO_MEMORY);
  bool MemoryCalls = false;
  for (unsigned I = 0; I < N; ++I)
    if ((S.Bits[I] & SubsetCall) && Ref.Instrs[I].Call == CallKind::Memory) {
      MemoryCalls = true;
      if (V == Variant::DL1 && memoryCallRedirectable(I))
        ++MemoryCallsRedirectable;
    }
  if (V == Variant::DL1 && !AnyMem && MemoryCalls && !MemoryCallsRedirectable)
    return fail(VariantStatus::Unsupported,
                "the loop's memory work is memcpy/memset/memmove that DL1 "
                "cannot redirect to the scratch area (an unknown callee's "
                "arguments, or its result is read)",
                DECAN_WHY_MEMORY_CALLS);
  if (V == Variant::DL1 && !AnyMem && !MemoryCallsRedirectable)
    return emptyBecause();
  // Integer division traps on a zero divisor or an overflowing quotient.
  // FP (deleted loads) and DL1 (loads from the zero-filled scratch area)
  // change loaded values, so an integer division fed by a load the variant
  // changes could kill the program: refuse instead.
  if (V == Variant::FP || V == Variant::DL1 || variantGroup(V) >= 0)
    for (unsigned I = 0; I < N; ++I) {
      if (!(S.Bits[I] & SubsetDiv) || (S.Bits[I] & SubsetFP) ||
          (S.Bits[I] & SubsetCtrl))
        continue;
      std::vector<unsigned> Work{I};
      std::set<unsigned> Seen;
      while (!Work.empty()) {
        unsigned X = Work.back();
        Work.pop_back();
        if (!Seen.insert(X).second)
          continue;
        if ((S.Bits[X] & SubsetLoad) && !(S.Bits[X] & SubsetCtrl))
          return fail(VariantStatus::Unsupported,
                      "integer division " +
                          K.opcodeName(Ref.Instrs[I].Opcode).str() +
                          " of values loaded in the loop: changed values "
                          "could trap",
                      DECAN_WHY_TRAP);
        for (const RegRead *R : RD.readsOf(X))
          for (auto [D, C] : R->Defs)
            if (D != EntryDef)
              Work.push_back(D);
      }
    }
  return std::nullopt;
}

/// DL1's scratch layout; LS and NO_DIV's scratch cells and window for
/// stores the next iteration reloads.
std::optional<VariantResult> VariantBuilder::planScratch() {
  if (V == Variant::DL1 || isGroupDL1(V)) {
    // Redirected memory calls take the second half of the area.
    Expected<ScratchLayout> L = layoutScratch(
        K, Ref, S,
        MemoryCallsRedirectable ? Opts.ScratchSize / 2 : Opts.ScratchSize);
    if (!L)
      return fail(VariantStatus::Unsupported, toString(L.takeError()),
                  DECAN_WHY_SCRATCH_SIZE);
    SL = std::move(*L);
  }

  if ((V == Variant::LS || V == Variant::NO_DIV || V == Variant::NO_CALL ||
       V == Variant::S2L || V == Variant::NO_RED || V == Variant::PREFETCH) &&
      Opts.ScratchInAllVariants) {
    Cell = forwardingCells();
    Window = maskedPairs(Cell);
  }
  return std::nullopt;
}

/// Phase 1: what each instruction becomes (kept, deleted, replaced by what).
std::optional<VariantResult> VariantBuilder::decideFates() {
  Fates.assign(N, Fate::Keep);
  Repl.assign(N, {});
  for (unsigned I = 0; I < N; ++I) {
    unsigned B = S.Bits[I];
    if (B & (SubsetCtrl | SubsetBranch | SubsetNop))
      continue;
    // Calls: kept or deleted by what they may do (keepsCall); a deleted
    // call's results are bridged like any deleted instruction's.
    if (B & SubsetCall) {
      // DL1 makes a memcpy/memset/memmove's accesses L1 hits, as it does
      // the loop's own: destination and source into the scratch area.
      if (V == Variant::DL1 && Ref.Instrs[I].Call == CallKind::Memory &&
          memoryCallRedirectable(I)) {
        Fates[I] = Fate::Replace;
        redirectMemoryCall(I, Repl[I]);
        ++MemoryCallsRedirected;
        continue;
      }
      if (!keepsCall(V, callKind(Ref.Instrs[I]))) {
        Fates[I] = Fate::Delete;
        CallsDeleted = true;
      }
      continue;
    }
    bool Mem = B & (SubsetLoad | SubsetStore);
    std::string Why;
    bool OK = true;
    if (Cell.count(I)) {
      Fates[I] = Fate::Replace;
      toScratch(I, Cell[I], Repl[I]);
      continue;
    }
    // The window: a quarter of the area, in its second half (cells use
    // the first lines).
    if (Window.count(I) && toScratchWindow(I, Opts.ScratchSize / 2,
                                           Opts.ScratchSize / 4 - 1, Repl[I])) {
      Fates[I] = Fate::Replace;
      continue;
    }
    if (int G = variantGroup(V); G >= 0) {
      if (Mem && S.Group[I] == G) {
        if (isGroupDL1(V)) {
          if (auto R = redirect(I, B, OK))
            return R;
        } else if (B & (SubsetPureMem | SubsetStore)) {
          Fates[I] = Fate::Delete; // FP's rule, for one group
        } else {
          Fates[I] = Fate::Replace;
          OK = regForm(I, Repl[I], Why);
        }
      } else if (B & SubsetStore) {
        if (auto R = storeAsLoad(I, B, OK, Why))
          return R;
      }
      if (!OK)
        return fail(VariantStatus::Unsupported, Why, DECAN_WHY_NO_FORM);
      continue;
    }
    switch (V) {
    case Variant::REF:
      break;
    case Variant::LS:
      if (Mem) {
        if (B & SubsetGather) {
          if (B & SubsetStore)
            return fail(VariantStatus::Unsupported,
                        "scatter " + K.opcodeName(Ref.Instrs[I].Opcode).str() +
                            " has no load form",
                        DECAN_WHY_GATHER_SCATTER);
        } else if ((B & SubsetPureMem) && !(B & SubsetStore)) {
        } else if ((B & SubsetAddr) && !(B & SubsetStore)) {
          // Its arithmetic computes an address (crc = t[crc ^ p[i]] ^ ...):
          // part of the address slice, which LS keeps.
        } else {
          Fates[I] = Fate::Replace;
          OK = asLoad(I, Repl[I], Why);
        }
      } else if (!(B & SubsetAddr)) {
        Fates[I] = Fate::Delete;
      }
      break;
    case Variant::FP:
      if (Mem) {
        if ((B & (SubsetPureMem | SubsetStore))) {
          Fates[I] = Fate::Delete;
        } else {
          Fates[I] = Fate::Replace;
          OK = regForm(I, Repl[I], Why);
        }
      }
      break;
    case Variant::NO_CALL: // everything but the calls, as in NO_DIV
    case Variant::S2L:     // stores become loads of the same address
      if (B & SubsetStore)
        if (auto R = storeAsLoad(I, B, OK, Why))
          return R;
      break;
    case Variant::NO_STORE:
      if (B & SubsetStore) {
        if (B & SubsetGather)
          return fail(VariantStatus::Unsupported, "scatter in the loop",
                      DECAN_WHY_GATHER_SCATTER);
        // A plain store goes; a read-modify-write keeps its read.
        if ((B & SubsetPureMem) && !(B & SubsetLoad)) {
          Fates[I] = Fate::Delete;
        } else {
          Fates[I] = Fate::Replace;
          OK = asLoad(I, Repl[I], Why);
        }
      }
      break;
    case Variant::NO_RED:
      if (B & SubsetRed) {
        if (fmaAsMultiply(I, Repl[I])) {
          Fates[I] = Fate::Replace;
        } else {
          // A load folded into the update stays; the accumulator keeps
          // its value.
          deleteKeepingLoad(I, Mem, OK, Why);
        }
      } else if (B & SubsetStore) {
        if (auto R = storeAsLoad(I, B, OK, Why))
          return R;
      }
      break;
    case Variant::PREFETCH:
      if (Mem && !(B & SubsetGather)) {
        Fates[I] = Fate::Replace;
        if (B & SubsetStore) {
          OK = asLoad(I, Repl[I], Why);
        } else {
          Repl[I] = {Ref.Instrs[I]};
          Repl[I][0].Id = I;
        }
        if (OK)
          OK = addPrefetch(I, Repl[I], Why);
      } else if ((B & SubsetStore) && (B & SubsetGather)) {
        return fail(VariantStatus::Unsupported, "scatter in the loop",
                    DECAN_WHY_GATHER_SCATTER);
      }
      break;
    case Variant::NO_DIV:
      if (B & SubsetDiv) {
        // The division's result is bridged like a deleted one's.
        deleteKeepingLoad(I, Mem, OK, Why);
      } else if (B & SubsetStore) {
        if (auto R = storeAsLoad(I, B, OK, Why))
          return R;
      }
      break;
    case Variant::DL1:
      if (Mem)
        if (auto R = redirect(I, B, OK))
          return R;
      break;
    case Variant::CTRL:
      Fates[I] = Fate::Delete;
      break;
    default: // GROUPING, above
      break;
    }
    if (!OK)
      return fail(VariantStatus::Unsupported, Why, DECAN_WHY_NO_FORM);
  }

  return std::nullopt;
}

/// The rule of every variant whose stores become loads of the same address
/// and width (S2L, NO_CALL, NO_DIV, NO_RED, the groups' others): a scatter
/// has no such load.
std::optional<VariantResult> VariantBuilder::storeAsLoad(unsigned I, unsigned B,
                                                         bool &OK,
                                                         std::string &Why) {
  if (B & SubsetGather)
    return fail(VariantStatus::Unsupported, "scatter in the loop",
                DECAN_WHY_GATHER_SCATTER);
  Fates[I] = Fate::Replace;
  OK = asLoad(I, Repl[I], Why);
  return std::nullopt;
}

/// Deletes instruction \p I (a division, a reduction update); with a
/// memory operand its load stays, same address and width, into a free
/// register: the variant removes the work, not the memory access.
void VariantBuilder::deleteKeepingLoad(unsigned I, bool Mem, bool &OK,
                                       std::string &Why) {
  if (!Mem) {
    Fates[I] = Fate::Delete;
    return;
  }
  Fates[I] = Fate::Replace;
  OK = asLoad(I, Repl[I], Why, /*IntoFree=*/true);
}

/// Whether load \p I's value reaches (through arithmetic) a base or index
/// register of an access DL1 leaves at its own address.
bool VariantBuilder::addressesInPlaceAccess(
    unsigned I, function_ref<bool(unsigned)> Redirected) const {
  int G = variantGroup(V);
  for (unsigned J = 0; J < N; ++J) {
    int M = K.memOperandIndex(Ref.Instrs[J].Opcode);
    if (M < 0 || J == I)
      continue;
    if ((SL.How[J] == ScratchLayout::Redirect && (G < 0 || S.Group[J] == G)) ||
        Redirected(J))
      continue;
    const Instr &X = Ref.Instrs[J];
    SmallVector<unsigned, 2> AddrRegs;
    for (int O : {M, M + 2})
      if (X.Ops[O].isReg() && X.Ops[O].Reg)
        AddrRegs.push_back(X.Ops[O].Reg);
    // Definitions reaching J's address registers, back through non-loads.
    std::set<unsigned> Seen;
    SmallVector<unsigned, 8> Work;
    for (const RegRead *R : RD.readsOf(J))
      for (unsigned A : AddrRegs)
        if (K.regsOverlap(R->Reg, A))
          for (auto [D, C] : R->Defs)
            if (D != EntryDef)
              Work.push_back(D);
    while (!Work.empty()) {
      unsigned D = Work.pop_back_val();
      if (!Seen.insert(D).second)
        continue;
      if (D == I)
        return true;
      if (S.Bits[D] & SubsetLoad)
        continue;
      for (const RegRead *R : RD.readsOf(D))
        for (auto [D2, C] : R->Defs)
          if (D2 != EntryDef)
            Work.push_back(D2);
    }
  }
  return false;
}

/// DL1's rule for one access (DL1, and DL1_Gk for its group): into the
/// scratch area where the layout says, else left in place.
std::optional<VariantResult> VariantBuilder::redirect(unsigned I, unsigned B,
                                                      bool &OK) {
  if (B & SubsetGather)
    return fail(VariantStatus::Unsupported,
                "gather/scatter " + K.opcodeName(Ref.Instrs[I].Opcode).str() +
                    ": a vector index cannot address the scratch area",
                DECAN_WHY_GATHER_SCATTER);
  // Indexed accesses of the variant's own group(s) share scratch bases.
  int G = variantGroup(V);
  auto Redirected = [&](unsigned J) {
    return (SL.How[J] == ScratchLayout::Indexed ||
            SL.How[J] == ScratchLayout::Masked) &&
           (G < 0 || S.Group[J] == G);
  };
  // A load whose value addresses an access that stays in place (a pointer
  // the loop follows) keeps its own address: from the scratch area it would
  // load something that is not a pointer.
  if ((B & SubsetLoad) && (B & SubsetAddr) && !(B & SubsetStore) &&
      addressesInPlaceAccess(I, Redirected)) {
    ++InPlace;
    return std::nullopt;
  }
  if (SL.How[I] == ScratchLayout::Redirect) {
    Fates[I] = Fate::Replace;
    OK = toScratch(I, SL.Offset[I], Repl[I]);
  } else if ((SL.How[I] == ScratchLayout::Indexed ||
              SL.How[I] == ScratchLayout::Masked) &&
             toScratchIndexed(I, SL.Offset[I], Repl[I], Redirected,
                              SL.Mask[I])) {
    Fates[I] = Fate::Replace;
  } else if (B & SubsetStore) {
    // A store the layout leaves in place (an address computed from loaded
    // data: a hash row's tag; or a constant RIP-relative one, a global
    // already L1-resident) stays at its address with its chain, as such a
    // load does, but writes nothing: a read-modify-write keeps its read, a
    // plain store becomes a prefetch of its line (no register, no fault).
    std::string Why;
    Fates[I] = Fate::Replace;
    if (!((B & SubsetLoad) ? asLoad(I, Repl[I], Why)
                           : addPrefetch(I, Repl[I], Why)))
      return fail(VariantStatus::Unsupported,
                  "store " + K.opcodeName(Ref.Instrs[I].Opcode).str() +
                      " to an address computed from loaded data cannot "
                      "be redirected to the scratch area, nor left in "
                      "place without writing: " +
                      Why,
                  DECAN_WHY_STORE_ADDRESS_LOADED);
    ++InPlace;
  } else {
    ++InPlace; // its address chain stays, and so does its access
  }
  return std::nullopt;
}

/// Phase 4: the body, then the dependence verifier.
VariantResult VariantBuilder::assembleBody() {
  // Phase 4: the body.
  LoopBody Out;
  Out.FreeRegs = Ref.FreeRegs;
  for (const LoopBody::Block &B : Ref.Blocks) {
    LoopBody::Block NB = B;
    NB.Begin = Out.Instrs.size();
    for (unsigned I = B.Begin; I < B.End; ++I) {
      if (Fates[I] == Fate::Keep) {
        Out.Instrs.push_back(Ref.Instrs[I]);
        Out.Instrs.back().Id = I;
        continue;
      }
      for (const Instr &X : Repl[I])
        Out.Instrs.push_back(X);
      for (Instr &P : K.nops(Pad[I]))
        Out.Instrs.push_back(P);
    }
    NB.End = Out.Instrs.size();
    Out.Blocks.push_back(NB);
  }
  for (Instr &I : Out.Instrs)
    if (I.Padding)
      I.Id = NoId;
  Expected<unsigned> VB = loopBytes(K, Out);
  if (!VB)
    return fail(VariantStatus::Unsupported, toString(VB.takeError()));
  if (Error E = verifyNoNewDependences(K, Ref, Out))
    return fail(VariantStatus::Verifier, toString(std::move(E)));
  std::vector<DepEdge> LostMem;
  if (Error E = verifyKeptDependences(K, Ref, Out, &LostMem))
    return fail(VariantStatus::Verifier, toString(std::move(E)));
  if (!LostMem.empty()) {
    Res.Bound = true;
    Res.BoundReason = "drops the " + describeEdge(K, LostMem.front()) +
                      " (stores are not kept): Sat is a lower bound";
  }
  Res.Body = std::move(Out);
  Res.Bytes = *VB;
  Res.Status = VariantStatus::OK;
  Res.CallsDeleted = CallsDeleted;
  Res.MemoryCallsRedirected = MemoryCallsRedirected;
  Res.MemoryCallBytes = memoryCallBytes();
  if (MemoryCallsRedirected)
    Res.Reason = std::to_string(MemoryCallsRedirected) +
                 " memcpy/memset/memmove call(s) redirected to the scratch "
                 "area, lengths above " +
                 std::to_string(memoryCallBytes()) + " bytes clamped to " +
                 std::to_string(memoryCallBytes());
  if (Growth > 0)
    Res.Reason += (Res.Reason.empty() ? "" : "; ") +
                  std::string("loop grew by ") + std::to_string(Growth) +
                  " bytes: replacements longer than what they replace";
  if (InPlace)
    Res.Reason += (Res.Reason.empty() ? "" : "; ") + std::to_string(InPlace) +
                  " access(es) at addresses computed from loaded data left in "
                  "place";
  if (SL.Wrapped)
    Res.Reason += (Res.Reason.empty() ? "" : "; ") +
                  std::string("more lines than the scratch area holds: some "
                              "share a line");
  return Res;
}

VariantResult decan::buildVariant(const X86Knowledge &K, const LoopBody &Ref,
                                  const LoopSubsets &S, Variant V,
                                  const VariantOptions &Opts) {
  LoopBody R = Ref;
  for (unsigned I = 0; I < R.Instrs.size(); ++I)
    R.Instrs[I].Id = I;
  VariantBuilder B(K, R, S, V, Opts);
  VariantResult Res = B.run();
  if (Res.Status != VariantStatus::Verifier)
    return Res;
  // A store turned into a load of its data register can add a dependence
  // where no register is free; once more with registers dead across the
  // back edge (the first choice stays where it passes: fewer changes).
  VariantBuilder Again(K, R, S, V, Opts, /*DeadAcrossBackEdge=*/true);
  VariantResult Second = Again.run();
  return Second.Status == VariantStatus::OK ? Second : Res;
}
