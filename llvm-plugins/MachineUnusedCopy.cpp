//===- MachineUnusedCopy.cpp - decan: variant copies no run uses ---------===//
//
// Part of decan. See MachineUnusedCopy.h: the copy of a variant the runtime
// never runs becomes `jmp <loop>.REF` (5 bytes instead of a whole loop with
// its probes, prologue and epilogue); the variants never built get their
// record from REF's loop.
//
//===----------------------------------------------------------------------===//

#include "MachineUnusedCopy.h"
#include "IRVariantCopies.h"
#include "MachineMeta.h"

#include "decan/abi_names.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineOptimizationRemarkEmitter.h"
#include "llvm/IR/Module.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/MachineJumpTableInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace decan;

#define DEBUG_TYPE "decan"

/// The opcode of X86's direct 64-bit tail jump; the X86 enum is private to
/// LLVM's target, its name is not.
static std::optional<unsigned> tailJumpOpcode(const TargetInstrInfo &TII) {
  for (unsigned Op = 0, N = TII.getNumOpcodes(); Op < N; ++Op)
    if (TII.getName(Op) == "TAILJMPd64")
      return Op;
  return std::nullopt;
}

bool decan::jumpToCopy(MachineFunction &MF, const Function &Ref) {
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

void decan::dropUnusedCopy(MachineFunction &MF, Variant V, StringRef Stem) {
  if (V == Variant::REF)
    return;
  if (const Function *Ref = MF.getFunction().getParent()->getFunction(
          (Stem + "." + variantName(Variant::REF)).str()))
    jumpToCopy(MF, *Ref);
}

void decan::recordUnbuilt(MachineFunction &MF, StringRef Stem,
                          const LoopSubsets *Counts,
                          MachineOptimizationRemarkEmitter &ORE,
                          const MachineBasicBlock *MBB, DebugLoc Loc,
                          function_ref<VariantResult(Variant)> Analyse) {
  const Function &F = MF.getFunction();
  unsigned Unbuilt = 0;
  if (!to_integer(F.getFnAttribute(NotBuiltAttr).getValueAsString(), Unbuilt))
    return;
  Module &M = *const_cast<Module *>(F.getParent());
  StringRef LoopId = F.getFnAttribute("decan-loop").getValueAsString();
  for (unsigned I = 0; I < DECAN_NUM_VARIANTS; ++I) {
    if (!(Unbuilt >> I & 1))
      continue;
    VariantResult R = Analyse(static_cast<Variant>(I));
    if (R.Status == VariantStatus::OK) {
      R.Status = VariantStatus::Unsupported;
      R.Why = DECAN_WHY_OTHER;
      R.Reason = "no copy built: the IR showed it unusable, the machine loop "
                 "allows it";
    }
    writeMeta(M, (Stem + ".meta").str(), static_cast<Variant>(I), R.Status,
              R.RefBytes, Counts, false, false, R.Why);
    ORE.emit([&] {
      return MachineOptimizationRemarkMissed(DEBUG_TYPE, "VariantUnavailable",
                                             Loc, MBB)
             << "variant " << decan_variant_name(I) << " of " << LoopId
             << " unavailable ("
             << decan_variant_status_text(static_cast<uint32_t>(R.Status))
             << "): " << R.Reason;
    });
  }
}

void decan::recordUnbuiltAs(MachineFunction &MF, StringRef Stem,
                            MachineOptimizationRemarkEmitter &ORE,
                            const MachineBasicBlock *MBB, DebugLoc Loc,
                            VariantStatus St, StringRef Reason) {
  recordUnbuilt(MF, Stem, nullptr, ORE, MBB, Loc, [&](Variant U) {
    VariantResult R;
    R.V = U;
    R.Status = St;
    R.Reason = Reason.str();
    return R;
  });
}
