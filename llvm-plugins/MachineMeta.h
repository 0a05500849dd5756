//===- MachineMeta.h - The machine pass's outcome in the meta record -----===//
//
// Part of decan. Internal to the machine pass: writes what it found of one
// variant into the loop's meta record and descriptor (IRLoopTable.h).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINEMETA_H
#define DECAN_LLVM_PLUGINS_MACHINEMETA_H

#include "decan/InstrKnowledge/Variants.h"
#include "decan/abi.h"

#include "llvm/ADT/StringRef.h"

namespace llvm {
class Module;
} // namespace llvm

namespace decan {

struct LoopSubsets;

/// Rewrites the decan_machine_info of the loop's meta record (IRLoopTable.h),
/// and with \p Bound the bound_mask of the meta record and the descriptor.
bool writeMeta(llvm::Module &M, llvm::StringRef MetaName, Variant V,
               VariantStatus St, unsigned Bytes, const LoopSubsets *Counts,
               bool Bound = false, bool CallsDeleted = false,
               decan_variant_why Why = DECAN_WHY_NONE,
               unsigned MemoryCallBytes = 0, bool Capped = false);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINEMETA_H
