//===- MachineLoopTop.cpp - decan: where each copy's loop starts ---------===//
//
// Part of decan. See MachineLoopTop.h.
//
//===----------------------------------------------------------------------===//

#include "MachineLoopTop.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;

/// Makes \p Pred, the block before \p Top in layout, end in a jump to
/// \p Top where it falls through into it. False where its branch cannot be
/// analysed.
static bool jumpToTop(MachineBasicBlock &Pred, MachineBasicBlock &Top) {
  if (!Pred.canFallThrough())
    return true; // Ends in a jump or a return: the padding never runs.
  const TargetInstrInfo &TII = *Pred.getParent()->getSubtarget().getInstrInfo();
  MachineBasicBlock *TBB = nullptr, *FBB = nullptr;
  SmallVector<MachineOperand, 4> Cond;
  if (TII.analyzeBranch(Pred, TBB, FBB, Cond))
    return false;
  DebugLoc DL = Pred.findBranchDebugLoc();
  if (!TBB) { // No branch at all.
    TII.insertBranch(Pred, &Top, nullptr, {}, DL);
    return true;
  }
  // A conditional branch, falling through into the top otherwise.
  TII.removeBranch(Pred);
  TII.insertBranch(Pred, TBB, &Top, Cond, DL);
  return true;
}

void decan::alignLoopTop(MachineFunction &MF, const MachineLoop &L) {
  const Align LoopAlign(LoopTopAlign);
  for (MachineBasicBlock &MBB : MF) {
    if (!L.contains(&MBB))
      continue;
    MBB.setAlignment(LoopAlign);
    MBB.setMaxBytesForAlignment(0);
    // The padding jumped over: the function may start anywhere. Otherwise
    // it is aligned as the top, and the padding runs alike in every copy.
    MachineBasicBlock *Pred =
        &MBB == &MF.front() ? nullptr : &*std::prev(MBB.getIterator());
    if (Pred && jumpToTop(*Pred, MBB))
      MF.setAlignment(Align(1));
    else
      MF.ensureAlignment(LoopAlign);
    return;
  }
}
