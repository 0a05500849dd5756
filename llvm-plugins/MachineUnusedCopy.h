//===- MachineUnusedCopy.h - decan: variant copies no run uses -----------===//
//
// Part of decan. The runtime never chooses a variant whose status is not OK
// (empty, unsupported, rejected by the verifier: runtime/src/State.cpp).
// Such a copy is only bytes: the machine pass turns it into a jump to the
// loop's REF copy, which has the same signature and does what the copy did
// before its rules (the copies are clones of REF). The variants the
// outliner did not build at all (IRVariantCopies.h) get, from REF's machine
// loop, the record and remark their copy would have had.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINEUNUSEDCOPY_H
#define DECAN_LLVM_PLUGINS_MACHINEUNUSEDCOPY_H

#include "decan/InstrKnowledge/Variants.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DebugLoc.h"

namespace llvm {
class Function;
class MachineBasicBlock;
class MachineFunction;
class MachineOptimizationRemarkEmitter;
} // namespace llvm

namespace decan {

struct LoopSubsets;

/// Replaces the body of \p MF, the copy of variant \p V of the loop whose
/// symbols start with \p Stem ("f.decan.L0"), after prologue/epilogue
/// insertion, with a single tail jump to the loop's REF copy. Nothing for
/// REF itself, or where the target has no direct tail jump.
void dropUnusedCopy(llvm::MachineFunction &MF, Variant V, llvm::StringRef Stem);

/// Replaces the body of \p MF after prologue/epilogue insertion with a
/// single tail jump to \p Copy, another copy of its loop (same signature).
/// False where the target has no direct tail jump.
bool jumpToCopy(llvm::MachineFunction &MF, const llvm::Function &Copy);

/// \p MF is a REF copy: for each variant its outliner did not build,
/// \p Analyse says what the rules make of REF's loop; the loop's meta record
/// and a remark at \p Loc say it as the copy's pass would have. (A variant
/// the rules would have built is recorded unsupported: the IR's forecast
/// was wrong, and the remark says so.)
void recordUnbuilt(llvm::MachineFunction &MF, llvm::StringRef Stem,
                   const LoopSubsets *Counts,
                   llvm::MachineOptimizationRemarkEmitter &ORE,
                   const llvm::MachineBasicBlock *MBB, llvm::DebugLoc Loc,
                   llvm::function_ref<VariantResult(Variant)> Analyse);

/// The same where REF's loop could not be read (no machine loop, no
/// instruction knowledge): each variant not built gets \p St and \p Reason,
/// as REF itself did and as its copy would have.
void recordUnbuiltAs(llvm::MachineFunction &MF, llvm::StringRef Stem,
                     llvm::MachineOptimizationRemarkEmitter &ORE,
                     const llvm::MachineBasicBlock *MBB, llvm::DebugLoc Loc,
                     VariantStatus St, llvm::StringRef Reason);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINEUNUSEDCOPY_H
