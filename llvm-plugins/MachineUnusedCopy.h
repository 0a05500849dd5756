//===- MachineUnusedCopy.h - decan: a variant copy no run can use --------===//
//
// Part of decan. A variant whose rules failed (empty, unsupported, rejected
// by the verifier) is never chosen by the runtime, whose plan skips every
// variant whose status is not OK (runtime/src/State.cpp). Its copy is then
// only bytes: the machine pass turns it into a jump to the loop's REF copy,
// which has the same signature and does what the copy did before its rules
// (the copies are clones of REF).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINEUNUSEDCOPY_H
#define DECAN_LLVM_PLUGINS_MACHINEUNUSEDCOPY_H

namespace llvm {
class Function;
class MachineFunction;
} // namespace llvm

namespace decan {

/// Replaces the body of \p MF (after prologue/epilogue insertion) with a
/// single tail jump to \p Ref. False, and \p MF unchanged, where the
/// target has no direct tail jump.
bool replaceWithJumpTo(llvm::MachineFunction &MF, const llvm::Function &Ref);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINEUNUSEDCOPY_H
