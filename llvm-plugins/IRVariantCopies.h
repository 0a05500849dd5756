//===- IRVariantCopies.h - decan: the variant copies of one loop ---------===//
//
// Part of decan. Step 4 of the outline pass, after the REF copy: a clone of
// REF per variant asked (-decan-build-variants) that some machine code could
// make usable. Two kinds are unusable whatever the machine code: NO_DIV of a
// loop without a division or square root (empty), and every variant of a
// loop whose exit test may read what the loop stores (refused: a variant
// writes no program memory). They get no copy -- each would cost code and
// compile time -- and
// their entry in the variant table is REF's, never chosen (variant_mask
// still names them: asked, and the rules said no). The REF copy names them
// in an attribute; the machine pass records what the rules say of each from
// REF's machine loop, the record their copy would have had
// (MachineUnusedCopy.h).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRVARIANTCOPIES_H
#define DECAN_LLVM_PLUGINS_IRVARIANTCOPIES_H

#include "decan/abi.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"

#include <cstdint>

namespace llvm {
class Function;
class Loop;
class ScalarEvolution;
} // namespace llvm

namespace decan {

struct ExitMemory;
struct OutlinePlan;

/// Attribute of a REF copy: the mask (decimal, a bit per enum
/// decan_variant) of the variants asked but not built.
inline constexpr const char *NotBuiltAttr = "decan-not-built";

/// What LoopAccessAnalysis sees of dependences \p L may carry through
/// memory, for the copies' "decan-memdep" attribute: "" none, "adjacent"
/// (a[i] from a[i-1] only) or "other" (IRVariantCopies.cpp).
llvm::StringRef carriedMemory(llvm::Loop &L, llvm::FunctionAnalysisManager &FAM,
                              llvm::Function &F, llvm::ScalarEvolution &SE);

/// The variant table of the loop of \p P in \p F (REF first): \p Ref or
/// its clones. \p MemDep and \p EM: what the machine rules learn from the
/// IR's analyses (the copies' "decan-memdep" and "decan-exit-alias").
llvm::SmallVector<llvm::Function *, DECAN_NUM_VARIANTS>
buildVariantCopies(llvm::Function &F, const OutlinePlan &P, llvm::Function &Ref,
                   llvm::StringRef MemDep, const ExitMemory &EM);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRVARIANTCOPIES_H
