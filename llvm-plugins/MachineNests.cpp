//===- MachineNests.cpp - decan: the machine loop of a nest copy ----------===//
//
// Part of decan. See MachineNests.h.
//
//===----------------------------------------------------------------------===//

#include "MachineNests.h"

#include "llvm/CodeGen/MachineLoopInfo.h"

using namespace llvm;
using namespace decan;

MachineLoop *decan::outermostLoop(MachineLoopInfo &MLI, unsigned &Count) {
  Count = std::distance(MLI.begin(), MLI.end());
  return Count ? *MLI.begin() : nullptr;
}

bool decan::leavesInnerLoop(const MachineLoop &L,
                            const MachineBasicBlock &MBB) {
  for (const MachineLoop *Inner : L.getLoopsInPreorder())
    if (Inner != &L && Inner->contains(&MBB))
      for (const MachineBasicBlock *S : MBB.successors())
        if (!Inner->contains(S))
          return true;
  return false;
}
