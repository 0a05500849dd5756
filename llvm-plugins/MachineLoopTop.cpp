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

/// Puts the first block of \p L in layout at a line's start. \returns
/// whether the block before it jumps over the padding (false: the padding
/// runs, or the top is the function's entry).
static bool alignTop(MachineFunction &MF, const MachineLoop &L) {
  const Align LoopAlign(decan::LoopTopAlign);
  for (MachineBasicBlock &MBB : MF) {
    if (!L.contains(&MBB))
      continue;
    MBB.setAlignment(LoopAlign);
    MBB.setMaxBytesForAlignment(0);
    MachineBasicBlock *Pred =
        &MBB == &MF.front() ? nullptr : &*std::prev(MBB.getIterator());
    return Pred && jumpToTop(*Pred, MBB);
  }
  return false;
}

void decan::alignLoopTop(MachineFunction &MF, const MachineLoop &L) {
  // The padding jumped over: the function may start anywhere. Otherwise
  // it is aligned as the top, and the padding runs alike in every copy.
  if (alignTop(MF, L))
    MF.setAlignment(Align(1));
  else
    MF.ensureAlignment(Align(LoopTopAlign));
  // A nest's inner loops too: where layout put them differs between copies
  // (a longer DL1 body moves them), and an inner loop off a line's start
  // crosses windows its twin in REF does not (issue 26, item 2).
  for (const MachineLoop *Inner : L.getLoopsInPreorder())
    if (Inner != &L)
      alignTop(MF, *Inner);
}
