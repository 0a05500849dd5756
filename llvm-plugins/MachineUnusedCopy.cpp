//===- MachineUnusedCopy.cpp - decan: a variant copy no run can use ------===//
//
// Part of decan. See MachineUnusedCopy.h: the copy of a variant the runtime
// never runs becomes `jmp <loop>.REF` (5 bytes instead of a whole loop with
// its probes, prologue and epilogue).
//
//===----------------------------------------------------------------------===//

#include "MachineUnusedCopy.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/MachineJumpTableInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;

/// The opcode of X86's direct 64-bit tail jump; the X86 enum is private to
/// LLVM's target, its name is not.
static std::optional<unsigned> tailJumpOpcode(const TargetInstrInfo &TII) {
  for (unsigned Op = 0, N = TII.getNumOpcodes(); Op < N; ++Op)
    if (TII.getName(Op) == "TAILJMPd64")
      return Op;
  return std::nullopt;
}

bool decan::replaceWithJumpTo(MachineFunction &MF, const Function &Ref) {
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  static std::optional<unsigned> TailJump = tailJumpOpcode(TII);
  if (!TailJump)
    return false;
  // Nothing of the old body may outlive it: call-site records, jump tables.
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB)
      if (MI.isCandidateForAdditionalCallInfo())
        MF.eraseAdditionalCallInfo(&MI);
  if (MachineJumpTableInfo *JTI = MF.getJumpTableInfo())
    for (unsigned I = 0, N = JTI->getJumpTables().size(); I < N; ++I)
      JTI->RemoveJumpTable(I);
  for (MachineBasicBlock &MBB : MF)
    while (!MBB.succ_empty())
      MBB.removeSuccessor(MBB.succ_begin());
  while (MF.size() > 1)
    MF.erase(std::prev(MF.end()));
  MachineBasicBlock &Entry = MF.front();
  Entry.clear();
  Entry.clearLiveIns();
  BuildMI(Entry, Entry.end(), DebugLoc(), TII.get(*TailJump))
      .addGlobalAddress(&Ref);
  MF.RenumberBlocks();
  // Only the copies that run keep their loop at the start of a line
  // (MachineVariants.cpp): the jump may share the previous copy's padding.
  MF.setAlignment(Align(1));
  return true;
}
