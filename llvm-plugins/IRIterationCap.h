//===- IRIterationCap.h - Variant copies that always end ---------*- C++
//-*-===//
//
// Part of decan. A variant deletes or redirects work; when a loop's exit test
// reads memory, what it reads may be what the deleted work wrote (a store
// through a pointer that aliases the exit's only at run time), and the copy
// would never end. Two defences (docs/variants.md, "Copies that could run
// forever"): every variant copy whose exit reads memory counts its
// iterations down from the descriptor's `iteration_cap` and leaves with
// DECAN_TRIPS_CAPPED when none are left, and alias analysis says whether an
// exit-feeding load may alias a store of the loop: the machine rules then
// build the variants only in capped copies with a trip count (issue 27).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRITERATIONCAP_H
#define DECAN_LLVM_PLUGINS_IRITERATIONCAP_H

namespace llvm {
class AAResults;
class Constant;
class Function;
class Loop;
class StructType;
} // namespace llvm

namespace decan {

/// What the exit tests of a loop read.
struct ExitMemory {
  /// A load or a call is in the backward slice of an exit condition: a
  /// variant's copy gets an iteration cap.
  bool Reads = false;
  /// One of those loads may alias a store of the loop: a variant, which
  /// never writes program memory, could change what the exit sees.
  bool MayReadStored = false;
};

/// What the exit tests of \p L read (of a nest: every loop's exit tests),
/// and whether a store of \p L may write it.
ExitMemory exitMemory(const llvm::Loop &L, llvm::AAResults &AA);

/// Attribute on a copy that carries a cap (read by the machine pass, which
/// records it in the loop's capped_mask).
inline constexpr const char *CappedAttr = "decan-capped";

/// Attribute on the capped copies of a loop without an induction variable
/// (no trip count reported): the machine rules build no variant whose exit
/// may read what it changes (VariantOptions::ExitCapped).
inline constexpr const char *TripsUnknownAttr = "decan-trips-unknown";

/// Adds the iteration cap to \p Copy, an outlined variant copy (IROutline:
/// entry block with the start probe, then the loop; cycles and trips are
/// its last two arguments): the cap is read from \p Desc (of type \p DescTy)
/// before the clock starts; each back edge counts one down, and the last
/// leaves through a block that stops the clock and reports
/// DECAN_TRIPS_CAPPED. A cap of 0 never runs out. Without \p TripsCounted
/// (no induction variable, or a nest: its trip count is its outer loop's)
/// the copy also carries TripsUnknownAttr. With \p EveryLoop (a nest) each
/// loop of the copy counts its own iterations down from the cap, starting
/// over at each entry.
void addIterationCap(llvm::Function &Copy, llvm::Constant *Desc,
                     llvm::StructType *DescTy, bool TripsCounted,
                     bool EveryLoop = false);

/// Whether addIterationCap adds caps (-decan-iteration-caps, default on).
bool iterationCapsEnabled();

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRITERATIONCAP_H
