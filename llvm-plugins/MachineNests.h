//===- MachineNests.h - decan: the machine loop of a nest copy --*- C++ -*-===//
//
// Part of decan. A nest's copies (-decan-nests, IRNests.h) hold an outer
// loop and its inner loops: the machine pass rewrites all of their
// instructions as one loop body, whose exit tests include every inner
// loop's (what may read a stored value must stay).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINENESTS_H
#define DECAN_LLVM_PLUGINS_MACHINENESTS_H

namespace llvm {
class MachineBasicBlock;
class MachineLoop;
class MachineLoopInfo;
} // namespace llvm

namespace decan {

/// The one outermost loop of a nest copy; \p Count: how many there are.
llvm::MachineLoop *outermostLoop(llvm::MachineLoopInfo &MLI, unsigned &Count);

/// Whether \p MBB of the nest \p L leaves the inner loop it belongs to (an
/// inner loop's exit test).
bool leavesInnerLoop(const llvm::MachineLoop &L,
                     const llvm::MachineBasicBlock &MBB);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINENESTS_H
