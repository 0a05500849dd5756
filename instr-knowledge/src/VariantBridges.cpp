//===- VariantBridges.cpp - What a variant's fates need around them -------===//
//
// Part of decan. Phases 2 and 3 of VariantBuilder::run (VariantBuilder.h),
// once phase 1 (Variants.cpp) decided what each instruction becomes: the
// instructions that feed a division that stays one, the bridges for values
// of deleted instructions that kept ones still read, and the padding that
// keeps each changed instruction (or the loop) at REF's length.
//
//===----------------------------------------------------------------------===//

#include "Dataflow.h"
#include "VariantBuilder.h"
#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/abi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
using namespace decan;

/// Phase 2a: the instructions that feed a division that stays one.
void VariantBuilder::findDivisionFeeds() {
  // Phase 2: values of deleted instructions that kept ones still read are
  // bridged (below); those that feed a div/sqrt and come from nowhere get a
  // normal number (thesis 6.5.3).
  {
    std::vector<unsigned> Work;
    for (unsigned I = 0; I < N; ++I)
      // Divisions that stay divisions (kept, or FP's register form).
      if ((S.Bits[I] & SubsetDiv) &&
          (Fates[I] == Fate::Keep || ((V == Variant::FP || isGroupRemoval(V)) &&
                                      Fates[I] == Fate::Replace)))
        Work.push_back(I);
    while (!Work.empty()) {
      unsigned I = Work.back();
      Work.pop_back();
      if (!DivFeed.insert(I).second)
        continue;
      if (Fates[I] == Fate::Delete && !(S.Bits[I] & SubsetDiv))
        continue;
      for (const RegRead *R : RD.readsOf(I))
        for (auto [D, C] : R->Defs)
          if (D != EntryDef)
            Work.push_back(D);
    }
  }
}

/// Phase 2b: values of deleted instructions that the variant still reads.
std::optional<VariantResult> VariantBuilder::bridgeDeletedValues() {
  // Registers of deleted instructions that the variant still reads get a
  // bridge: the deleted instruction's pass-through input (nothing to do when
  // it reads the register itself, else a register copy), or, when it has
  // none (a load, a conversion from another register file), a
  // dependency-free idiom: what it read is the variant's target.
  std::map<unsigned, std::vector<unsigned>> IdiomRegs;
  std::map<unsigned, std::vector<std::pair<unsigned, unsigned>>> Copies;
  std::set<std::pair<unsigned, unsigned>> Bridged;
  struct Reader {
    unsigned I;
    SmallVector<unsigned, 8> Reads; ///< registers its variant form reads
    bool Bridge;                    ///< reads for a bridge of I
  };
  std::vector<Reader> Work;
  for (unsigned I = 0; I < N; ++I) {
    if (Fates[I] == Fate::Delete)
      continue;
    Reader R{I, {}, false};
    if (Fates[I] == Fate::Keep)
      K.regsRead(Ref.Instrs[I], R.Reads);
    else
      for (const Instr &X : Repl[I])
        K.regsRead(X, R.Reads);
    Work.push_back(std::move(R));
  }
  while (!Work.empty()) {
    Reader Rd = Work.back();
    Work.pop_back();
    unsigned I = Rd.I;
    for (const RegRead *R : RD.readsOf(I)) {
      bool StillRead = false;
      for (unsigned X : Rd.Reads)
        StillRead |= K.regsOverlap(X, R->Reg);
      if (!StillRead)
        continue;
      for (auto [D, C] : R->Defs) {
        if (D == EntryDef || Fates[D] == Fate::Keep)
          continue;
        // Does D's variant form still write this unit?
        SmallVector<unsigned, 4> W;
        for (const Instr &X : Repl[D])
          K.regsWritten(X, W);
        bool Writes = false;
        for (unsigned X : W)
          for (MCRegUnit U : K.regInfo().regunits(X))
            Writes |= static_cast<unsigned>(U) == R->Unit;
        if (Writes)
          continue;
        unsigned Reg = 0;
        for (auto [WR, U] : RD.writesOf(D))
          if (U == R->Unit)
            Reg = WR;
        if (!Reg || !Bridged.insert({D, Reg}).second)
          continue;
        PassThrough P = K.passThrough(Ref.Instrs[D], Reg);
        if (P.Kind == PassThrough::Keep) {
          // D reads what it writes (tied, merged flags): its deletion
          // leaves the previous value, for any kind of register.
          Work.push_back({D, {Reg}, true});
          continue;
        }
        if (!K.isVector(Reg) && !K.isGPR(Reg))
          return fail(VariantStatus::Unsupported,
                      K.regName(Reg).str() + " written by " +
                          K.opcodeName(Ref.Instrs[D].Opcode).str() + " (#" +
                          std::to_string(D) + ", removed) is read by " +
                          K.opcodeName(Ref.Instrs[I].Opcode).str() + " (#" +
                          std::to_string(I) + ")",
                      DECAN_WHY_NO_BRIDGE);
        // A bridge into a div/sqrt passes the div-operand rule on.
        if (Rd.Bridge && DivFeed.count(I))
          DivFeed.insert(D);
        if (P.Kind == PassThrough::Copy) {
          Copies[D].push_back({Reg, P.Src});
          Work.push_back({D, {P.Src}, true});
        } else {
          IdiomRegs[D].push_back(Reg);
        }
      }
    }
  }
  for (unsigned D = 0; D < N; ++D) {
    if (!IdiomRegs.count(D) && !Copies.count(D))
      continue;
    std::vector<Instr> Bridges;
    const std::vector<unsigned> &Regs = IdiomRegs[D];
    for (unsigned Reg : Regs) {
      // One idiom per register: drop a narrower alias of a wider one.
      bool Covered = false;
      for (unsigned Other : Regs)
        if (Other != Reg && K.regsOverlap(Other, Reg) &&
            K.regBits(Other) > K.regBits(Reg))
          Covered = true;
      if (Covered)
        continue;
      bool Feeds = DivFeed.count(D);
      IdiomValue IV = !Feeds         ? IdiomValue::Zero
                      : K.isGPR(Reg) ? IdiomValue::NonZero
                                     : IdiomValue::Normal;
      std::vector<Instr> X = K.idiom(Reg, IV, flagsDeadAfter(D));
      if (X.empty())
        return fail(VariantStatus::Unsupported,
                    "no dependency-free idiom for " + K.regName(Reg).str(),
                    DECAN_WHY_NO_BRIDGE);
      Bridges.insert(Bridges.end(), X.begin(), X.end());
    }
    for (auto [Reg, Src] : Copies[D]) {
      std::vector<Instr> X = K.copy(Reg, Src);
      if (X.empty())
        return fail(VariantStatus::Unsupported,
                    "no register copy " + K.regName(Src).str() + " -> " +
                        K.regName(Reg).str() + " to bridge " +
                        K.opcodeName(Ref.Instrs[D].Opcode).str(),
                    DECAN_WHY_NO_BRIDGE);
      Bridges.insert(Bridges.end(), X.begin(), X.end());
    }
    for (Instr &Y : Bridges) {
      Y.Id = D;
      Y.Stand = true;
    }
    if (Fates[D] == Fate::Delete)
      Fates[D] = Fate::Replace;
    // After the replacement: it reads the registers as REF left them.
    Repl[D].insert(Repl[D].end(), Bridges.begin(), Bridges.end());
  }

  return std::nullopt;
}

/// Phase 3: lengths (LayoutMode).
std::optional<VariantResult> VariantBuilder::padToRefLength() {
  // Phase 3: lengths. Aware layout pads each changed instruction to its REF
  // length; a replacement longer than the original borrows padding bytes
  // of other changed instructions so the loop keeps its size.
  Pad.assign(N, 0);
  bool Changed = false;
  for (unsigned I = 0; I < N; ++I) {
    if (Fates[I] == Fate::Keep)
      continue;
    Changed = true;
    Expected<unsigned> Target = K.sizeOf(Ref.Instrs[I]);
    if (!Target)
      return fail(VariantStatus::Unsupported, toString(Target.takeError()));
    int Produced = 0;
    for (const Instr &X : Repl[I]) {
      Expected<unsigned> Sz = K.sizeOf(X);
      if (!Sz)
        return fail(VariantStatus::Unsupported, toString(Sz.takeError()),
                    DECAN_WHY_NO_FORM);
      Produced += *Sz;
    }
    switch (Opts.Layout) {
    case LayoutMode::Aware:
      Pad[I] = (int)*Target - Produced;
      break;
    case LayoutMode::Nop1:
      Pad[I] = Repl[I].empty() ? 1 : 0;
      break;
    case LayoutMode::Unaware:
      Pad[I] = 0;
      break;
    }
  }
  if (!Changed)
    return emptyBecause();
  if (Opts.Layout == LayoutMode::Aware) {
    for (unsigned I = 0; I < N; ++I)
      if (Pad[I] < 0) {
        Growth += -Pad[I];
        Pad[I] = 0;
      }
    // Borrow from the largest pads first, keeping one byte where an
    // instruction vanished (its NOP keeps the front-end slot), then to 0.
    for (int Floor : {1, 0})
      for (bool Progress = true; Growth > 0 && Progress;) {
        Progress = false;
        int Best = -1;
        for (unsigned I = 0; I < N; ++I)
          if (Pad[I] > Floor && (Best < 0 || Pad[I] > Pad[Best]))
            Best = I;
        if (Best >= 0) {
          int Take = std::min(Growth, Pad[Best] - Floor);
          Pad[Best] -= Take;
          Growth -= Take;
          Progress = Take > 0;
        }
      }
  }

  return std::nullopt;
}
