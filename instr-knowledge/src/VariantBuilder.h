//===- VariantBuilder.h - Builds one variant of one loop -------*- C++ -*-===//
//
// Part of decan. Private to instr-knowledge/src: the state buildVariant()
// works on. Its phases (run(), Variants.cpp) decide what each REF
// instruction becomes; its per-instruction rewrites (VariantRules.cpp) say
// how: a store as a load, a load-op in register form, an access redirected
// into the scratch area.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_SRC_VARIANTBUILDER_H
#define DECAN_INSTRKNOWLEDGE_SRC_VARIANTBUILDER_H

#include "decan/InstrKnowledge/Variants.h"

#include "Dataflow.h"
#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace decan {

/// Builds one variant of one loop: buildVariant()'s work, phase by phase
/// (run()).
class VariantBuilder {
public:
  VariantBuilder(const X86Knowledge &K, const LoopBody &Ref,
                 const LoopSubsets &S, Variant V, const VariantOptions &Opts,
                 bool DeadAcrossBackEdge = false)
      : K(K), Ref(Ref), S(S), V(V), Opts(Opts), RefFacts(bodyFacts(K, Ref)),
        RD(RefFacts->RD), DeadAcrossBackEdge(DeadAcrossBackEdge) {}

  VariantResult run();

private:
  /// What becomes of a REF instruction in the variant.
  enum class Fate { Keep, Delete, Replace };

  /// \name Phases (run()); a result returned means "unavailable".
  /// @{
  std::optional<VariantResult> checkLoop();
  std::optional<VariantResult> planScratch();
  std::optional<VariantResult> decideFates();
  void findDivisionFeeds();
  std::optional<VariantResult> bridgeDeletedValues();
  std::optional<VariantResult> padToRefLength();
  VariantResult assembleBody();
  /// @}
  /// Res with status \p St and reason \p Why, and REF's body.
  /// \p Code: why, for reports (default: from the status).
  VariantResult fail(VariantStatus St, std::string Why,
                     decan_variant_why Code = DECAN_WHY_NONE);
  /// GPRs dead right after instruction \p I (VariantRules.cpp).
  std::vector<unsigned> gprsDeadAfter(unsigned I) const;
  /// Store \p I becomes a load (a scatter cannot: the variant fails).
  std::optional<VariantResult> storeAsLoad(unsigned I, unsigned B, bool &OK,
                                           std::string &Why);
  /// Deletes \p I; with a memory operand (\p Mem) its load stays.
  void deleteKeepingLoad(unsigned I, bool Mem, bool &OK, std::string &Why);
  /// An empty variant, with why in words (absent, or all in the control or
  /// address slice).
  VariantResult emptyBecause();

  /// \p IntoFree: load into a free register even when \p I has a
  /// destination (a deleted division keeps its destination's chain).
  bool asLoad(unsigned I, std::vector<Instr> &Out, std::string &Why,
              bool IntoFree = false);
  bool regForm(unsigned I, std::vector<Instr> &Out, std::string &Why);
  bool fmaAsMultiply(unsigned I, std::vector<Instr> &Out);
  /// DL1's rule for access \p I (subset bits \p B); a result: unavailable.
  std::optional<VariantResult> redirect(unsigned I, unsigned B, bool &OK);
  bool
  addressesInPlaceAccess(unsigned I,
                         llvm::function_ref<bool(unsigned)> Redirected) const;
  /// Appends `prefetcht0` of \p I's address to \p Out (PREFETCH).
  bool addPrefetch(unsigned I, std::vector<Instr> &Out, std::string &Why);
  bool toScratch(unsigned I, int64_t Off, std::vector<Instr> &Out);
  /// Scratch cells (offsets) for store/load pairs one iteration apart.
  std::map<unsigned, int64_t> forwardingCells() const;
  /// Stores and loads of one object through other registers (a[i] and
  /// a[i - d]) that no cell takes: they go through one masked window.
  std::set<unsigned> maskedPairs(const std::map<unsigned, int64_t> &Cell) const;
  /// `lea addr, %t ; and $Mask, %t ; lea scratch+Off(%rip), %b` + the
  /// access at (%b,%t): the address folded into the window, so accesses
  /// that meet in REF meet there too.
  bool toScratchWindow(unsigned I, int64_t Off, int64_t Mask,
                       std::vector<Instr> &Out);
  /// `lea scratch+Off(%rip), %free` + the access through that base, the
  /// original index, scale and displacement: the address keeps its chain.
  bool toScratchIndexed(unsigned I, int64_t Off, std::vector<Instr> &Out,
                        llvm::function_ref<bool(unsigned)> Gone,
                        int64_t Mask = 0);
  Instr mk(unsigned I, unsigned Opcode) const {
    Instr N;
    N.Opcode = Opcode;
    N.Id = I;
    N.Unchanged = false;
    return N;
  }
  unsigned sized(unsigned Reg, unsigned Bytes) const;
  /// A GPR the variant may overwrite at instruction \p I: the base register
  /// of \p I's memory operand when the loop never writes it, it is not live
  /// out and every instruction that reads it uses it only as the base of a
  /// memory operand that \p Gone says the variant removes or redirects;
  /// else a free register; 0 when none. Both front ends see the same base,
  /// so they pick the same register even where the plugin has no free one.
  unsigned clobberableGPR(unsigned I,
                          llvm::function_ref<bool(unsigned)> Gone) const;
  /// True when the flags written at instruction \p I would be overwritten
  /// before any read, in its block (instructions with a memory operand do
  /// not count as writers: variants may delete them).
  bool flagsDeadAfter(unsigned I) const;
  bool flagsFreeBefore(unsigned I) const;
  Instr maskInto(unsigned I, unsigned T, int64_t Mask) const;
  Instr scratchBase(unsigned I, unsigned Reg, int64_t Off) const;
  /// DL1: whether memcpy/memset/memmove call \p I can move into the scratch
  /// area: the front end knows its pointer arguments and nothing in the
  /// loop reads its result (RAX, the destination).
  bool memoryCallRedirectable(unsigned I) const;
  /// DL1: the call \p I with its destination (and source) pointing into
  /// the second half of the scratch area and its length clamped to
  /// memoryCallBytes(): lea, lea, mov, cmp, cmova (R11 and the flags: the
  /// call clobbers both, and neither is an argument), the call unchanged.
  void redirectMemoryCall(unsigned I, std::vector<Instr> &Out) const;
  /// DL1: the most bytes a redirected memory call reads or writes.
  unsigned memoryCallBytes() const { return Opts.ScratchSize / 4; }

  const X86Knowledge &K;
  const LoopBody &Ref;
  const LoopSubsets &S;
  Variant V;
  const VariantOptions &Opts;
  std::shared_ptr<const BodyFacts> RefFacts; ///< shared by REF's variants
  const ReachingDefs &RD;
  /// A store with no free register loads into a GPR dead across the back
  /// edge before its data register (buildVariant's second try).
  bool DeadAcrossBackEdge;

  // What the phases leave for the next ones.
  VariantResult Res;
  unsigned N = 0;       ///< REF instructions
  ScratchLayout SL;     ///< DL1
  unsigned InPlace = 0; ///< DL1: accesses left in place (data addresses)
  std::map<unsigned, int64_t> Cell;     ///< LS, NO_DIV: forwarding cells
  std::set<unsigned> Window;            ///< LS, NO_DIV: masked window accesses
  std::vector<Fate> Fates;              ///< per REF instruction
  std::vector<std::vector<Instr>> Repl; ///< Fate::Replace: the replacement
  std::set<unsigned> DivFeed;           ///< feeds a division that stays
  std::vector<int> Pad;                 ///< NOP bytes after each change
  int Growth = 0;            ///< bytes the loop grew by (replacements too long)
  bool CallsDeleted = false; ///< some call of the loop is deleted
  /// DL1: memory calls redirected into the scratch area (its first half is
  /// then left to the other accesses).
  unsigned MemoryCallsRedirectable = 0, MemoryCallsRedirected = 0;
};
} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_SRC_VARIANTBUILDER_H
