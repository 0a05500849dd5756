//===- MachineFunctionClone.cpp - Copy a finished machine function -------===//
//
// Part of decan. See MachineFunctionClone.h. What is copied follows
// llvm-reduce's cloneMF, for a function past frame finalization: the stack
// size and callee-saved information PEI computed, the CFI instructions'
// table, and no virtual registers.
//
//===----------------------------------------------------------------------===//

#include "MachineFunctionClone.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/CodeGen/MachineConstantPool.h"
#include "llvm/CodeGen/MachineFrameInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineJumpTableInfo.h"
#include "llvm/CodeGen/MachineMemOperand.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/PseudoSourceValueManager.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/MC/MCDwarf.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstring>

using namespace llvm;

using BlockMap = DenseMap<MachineBasicBlock *, MachineBasicBlock *>;

bool decan::canCloneMachineFunction(const MachineFunction &MF) {
  if (!MF.getLandingPads().empty() || MF.hasEHFunclets() || MF.hasEHScopes() ||
      MF.callsEHReturn() || MF.callsUnwindInit() ||
      MF.hasAnyCallSiteLandingPad() || !MF.getLongjmpTargets().empty() ||
      !MF.getEHContTargets().empty() || !MF.getCodeViewAnnotations().empty() ||
      MF.getWinEHFuncInfo() || MF.getFrameInfo().hasStackProtectorIndex() ||
      MF.getFrameInfo().hasFunctionContextIndex())
    return false;
  for (const MachineConstantPoolEntry &E : MF.getConstantPool()->getConstants())
    if (E.isMachineConstantPoolEntry())
      return false;
  for (const MachineBasicBlock &MBB : MF) {
    if (MBB.hasAddressTaken() || MBB.isEHPad() || MBB.isBeginSection() ||
        MBB.isEndSection() || MBB.isInlineAsmBrIndirectTarget())
      return false;
    for (const MachineInstr &MI : MBB.instrs()) {
      if (MI.getPreInstrSymbol() || MI.getPostInstrSymbol() || MI.isBundled())
        return false;
      for (const MachineMemOperand *MMO : MI.memoperands())
        if (const PseudoSourceValue *PSV = MMO->getPseudoValue())
          if (PSV->kind() >= PseudoSourceValue::TargetCustom)
            return false;
    }
  }
  return true;
}

static void cloneFrame(const MachineFrameInfo &Src, MachineFrameInfo &Dst,
                       const BlockMap &Blocks) {
  Dst.setFrameAddressIsTaken(Src.isFrameAddressTaken());
  Dst.setReturnAddressIsTaken(Src.isReturnAddressTaken());
  Dst.setHasStackMap(Src.hasStackMap());
  Dst.setHasPatchPoint(Src.hasPatchPoint());
  Dst.setUseLocalStackAllocationBlock(Src.getUseLocalStackAllocationBlock());
  Dst.setLocalFrameSize(Src.getLocalFrameSize());
  Dst.setLocalFrameMaxAlign(Src.getLocalFrameMaxAlign());
  Dst.setOffsetAdjustment(Src.getOffsetAdjustment());
  Dst.ensureMaxAlignment(Src.getMaxAlign());
  Dst.setAdjustsStack(Src.adjustsStack());
  Dst.setHasCalls(Src.hasCalls());
  Dst.setHasOpaqueSPAdjustment(Src.hasOpaqueSPAdjustment());
  Dst.setHasCopyImplyingStackAdjustment(Src.hasCopyImplyingStackAdjustment());
  Dst.setHasVAStart(Src.hasVAStart());
  Dst.setHasMustTailInVarArgFunc(Src.hasMustTailInVarArgFunc());
  Dst.setHasTailCall(Src.hasTailCall());
  if (Src.isMaxCallFrameSizeComputed())
    Dst.setMaxCallFrameSize(Src.getMaxCallFrameSize());
  Dst.setCVBytesOfCalleeSavedRegisters(Src.getCVBytesOfCalleeSavedRegisters());
  Dst.setStackSize(Src.getStackSize());
  Dst.setUnsafeStackSize(Src.getUnsafeStackSize());
  // Frame indices keep their numbers: fixed objects are created in front.
  int NumFixed = Src.getNumFixedObjects();
  for (int I = 0, E = Src.getNumObjects() - NumFixed; I != E; ++I) {
    int FI = Src.isVariableSizedObjectIndex(I)
                 ? Dst.CreateVariableSizedObject(Src.getObjectAlign(I),
                                                 Src.getObjectAllocation(I))
                 : Dst.CreateStackObject(
                       Src.getObjectSize(I), Src.getObjectAlign(I),
                       Src.isSpillSlotObjectIndex(I),
                       Src.getObjectAllocation(I), Src.getStackID(I));
    Dst.setObjectOffset(FI, Src.getObjectOffset(I));
  }
  for (int I = -1; I >= -NumFixed; --I)
    Dst.CreateFixedObject(Src.getObjectSize(I), Src.getObjectOffset(I),
                          Src.isImmutableObjectIndex(I),
                          Src.isAliasedObjectIndex(I));
  for (int I = -NumFixed, E = Src.getNumObjects() - NumFixed; I != E; ++I) {
    if (Src.isDeadObjectIndex(I)) {
      Dst.RemoveStackObject(I);
      continue;
    }
    Dst.setObjectSSPLayout(I, Src.getObjectSSPLayout(I));
    Dst.setIsCalleeSavedObjectIndex(I, Src.isCalleeSavedObjectIndex(I));
  }
  for (int64_t I = 0, E = Src.getLocalFrameObjectCount(); I < E; ++I)
    Dst.mapLocalFrameObject(Src.getLocalFrameObjectMap(I).first,
                            Src.getLocalFrameObjectMap(I).second);
  Dst.setCalleeSavedInfo(Src.getCalleeSavedInfo());
  Dst.setCalleeSavedInfoValid(Src.isCalleeSavedInfoValid());
  auto Points = [&](const SaveRestorePoints &P) {
    SaveRestorePoints Out;
    for (const auto &[MBB, CSI] : P)
      Out[Blocks.lookup(MBB)] = CSI;
    return Out;
  };
  Dst.setSavePoints(Points(Src.getSavePoints()));
  Dst.setRestorePoints(Points(Src.getRestorePoints()));
}

/// The memory operands of \p MI, allocated in \p Dst, their pseudo source
/// values \p Dst's.
static SmallVector<MachineMemOperand *, 2>
cloneMemOperands(const MachineInstr &MI, MachineFunction &Dst) {
  PseudoSourceValueManager &PSVs = Dst.getPSVManager();
  SmallVector<MachineMemOperand *, 2> Out;
  for (const MachineMemOperand *MMO : MI.memoperands()) {
    MachinePointerInfo Ptr = MMO->getPointerInfo();
    if (const auto *PSV =
            dyn_cast_if_present<const PseudoSourceValue *>(Ptr.V)) {
      switch (PSV->kind()) {
      case PseudoSourceValue::Stack:
        Ptr.V = PSVs.getStack();
        break;
      case PseudoSourceValue::GOT:
        Ptr.V = PSVs.getGOT();
        break;
      case PseudoSourceValue::JumpTable:
        Ptr.V = PSVs.getJumpTable();
        break;
      case PseudoSourceValue::ConstantPool:
        Ptr.V = PSVs.getConstantPool();
        break;
      case PseudoSourceValue::FixedStack:
        Ptr.V = PSVs.getFixedStack(
            cast<FixedStackPseudoSourceValue>(PSV)->getFrameIndex());
        break;
      case PseudoSourceValue::GlobalValueCallEntry:
        Ptr.V = PSVs.getGlobalValueCallEntry(
            cast<GlobalValuePseudoSourceValue>(PSV)->getValue());
        break;
      case PseudoSourceValue::ExternalSymbolCallEntry:
        Ptr.V = PSVs.getExternalSymbolCallEntry(
            cast<ExternalSymbolPseudoSourceValue>(PSV)->getSymbol());
        break;
      default: // canCloneMachineFunction refused the function
        report_fatal_error("decan: cannot clone a target pseudo source value");
      }
    }
    Out.push_back(Dst.getMachineMemOperand(
        Ptr, MMO->getFlags(), MMO->getMemoryType(), MMO->getBaseAlign(),
        MMO->getAAInfo(), MMO->getRanges(), MMO->getSyncScopeID(),
        MMO->getSuccessOrdering(), MMO->getFailureOrdering()));
  }
  return Out;
}

namespace {
/// Moves debug locations from one subprogram into another: the scope at
/// the end of each inlined-at chain is rebuilt under the new subprogram,
/// everything else (lines, inlined callees, atoms) kept.
class LocationMover {
public:
  LocationMover(const DISubprogram *From, DISubprogram *To, LLVMContext &Ctx)
      : From(From), To(To), Ctx(Ctx) {}

  DebugLoc move(const DebugLoc &DL) {
    if (!DL || !To || From == To)
      return DL;
    return DebugLoc(move(DL.get()));
  }

private:
  DILocation *move(DILocation *Loc) {
    if (!Loc)
      return nullptr;
    if (MDNode *Done = Cache.lookup(Loc))
      return cast<DILocation>(Done);
    DILocation *InlinedAt = move(Loc->getInlinedAt());
    DILocalScope *Scope = Loc->getScope();
    if (!Loc->getInlinedAt() && Scope->getSubprogram() == From)
      Scope = Scope == From ? To
                            : DILocalScope::cloneScopeForSubprogram(*Scope, *To,
                                                                    Ctx, Cache);
    DILocation *New = DILocation::get(Ctx, Loc->getLine(), Loc->getColumn(),
                                      Scope, InlinedAt, Loc->isImplicitCode(),
                                      Loc->getAtomGroup(), Loc->getAtomRank());
    Cache[Loc] = New;
    return New;
  }

  const DISubprogram *From;
  DISubprogram *To;
  LLVMContext &Ctx;
  DenseMap<const MDNode *, MDNode *> Cache;
};
} // namespace

/// \p CFIBase: where \p Src's CFI table starts in \p Dst's.
static void cloneInstructions(const MachineFunction &Src, MachineFunction &Dst,
                              const BlockMap &Blocks, unsigned CFIBase) {
  const TargetRegisterInfo &TRI = *Dst.getSubtarget().getRegisterInfo();
  const TargetInstrInfo &TII = *Dst.getSubtarget().getInstrInfo();
  MachineRegisterInfo &MRI = Dst.getRegInfo();
  DenseSet<const uint32_t *> SharedMasks(TRI.getRegMasks().begin(),
                                         TRI.getRegMasks().end());
  LocationMover Locs(Src.getFunction().getSubprogram(),
                     Dst.getFunction().getSubprogram(),
                     Dst.getFunction().getContext());
  for (const MachineBasicBlock &SrcMBB : Src) {
    MachineBasicBlock *MBB = Blocks.lookup(&SrcMBB);
    for (const MachineInstr &SrcMI : SrcMBB) {
      // Variable locations stay with REF: the copies keep line tables.
      if (SrcMI.isDebugInstr())
        continue;
      MachineInstr *MI = Dst.CreateMachineInstr(TII.get(SrcMI.getOpcode()),
                                                Locs.move(SrcMI.getDebugLoc()),
                                                /*NoImplicit=*/true);
      MI->setFlags(SrcMI.getFlags());
      MI->setAsmPrinterFlag(SrcMI.getAsmPrinterFlags());
      MBB->push_back(MI);
      for (const MachineOperand &SrcMO : SrcMI.operands()) {
        MachineOperand MO(SrcMO);
        MO.clearParent();
        if (MO.isMBB()) {
          MO.setMBB(Blocks.lookup(MO.getMBB()));
        } else if (MO.isCFIIndex()) {
          MO = MachineOperand::CreateCFIIndex(MO.getCFIIndex() + CFIBase);
        } else if (MO.isRegMask()) {
          MRI.addPhysRegsUsedFromRegMask(MO.getRegMask());
          if (!SharedMasks.count(MO.getRegMask())) {
            uint32_t *Mask = Dst.allocateRegMask();
            std::memcpy(Mask, SrcMO.getRegMask(),
                        sizeof(*Mask) *
                            MachineOperand::getRegMaskSize(TRI.getNumRegs()));
            MO.setRegMask(Mask);
          }
        }
        MI->addOperand(Dst, MO);
      }
      MI->setMemRefs(Dst, cloneMemOperands(SrcMI, Dst));
      if (MDNode *N = SrcMI.getHeapAllocMarker())
        MI->setHeapAllocMarker(Dst, N);
      if (MDNode *N = SrcMI.getPCSections())
        MI->setPCSections(Dst, N);
      if (MDNode *N = SrcMI.getMMRAMetadata())
        MI->setMMRAMetadata(Dst, N);
      if (uint32_t Type = SrcMI.getCFIType())
        MI->setCFIType(Dst, Type);
    }
  }
}

/// Returns where \p Src's CFI table starts in \p Dst's: a reset function
/// keeps the table of its prologue.
static unsigned cloneTables(const MachineFunction &Src, MachineFunction &Dst,
                            const BlockMap &Blocks) {
  for (const MachineConstantPoolEntry &E :
       Src.getConstantPool()->getConstants()) {
    unsigned Index = Dst.getConstantPool()->getConstantPoolIndex(E.Val.ConstVal,
                                                                 E.getAlign());
    if (Index + 1 != Dst.getConstantPool()->getConstants().size())
      report_fatal_error("decan: a constant pool entry changed its index");
  }
  if (const MachineJumpTableInfo *JTI = Src.getJumpTableInfo()) {
    MachineJumpTableInfo *Out =
        Dst.getOrCreateJumpTableInfo(JTI->getEntryKind());
    for (const MachineJumpTableEntry &E : JTI->getJumpTables()) {
      std::vector<MachineBasicBlock *> Targets;
      for (MachineBasicBlock *MBB : E.MBBs)
        Targets.push_back(Blocks.lookup(MBB));
      Out->createJumpTableIndex(Targets);
    }
  }
  unsigned CFIBase = Dst.getFrameInstructions().size();
  for (const MCCFIInstruction &CFI : Src.getFrameInstructions())
    (void)Dst.addFrameInst(CFI);
  return CFIBase;
}

void decan::cloneMachineFunction(const MachineFunction &Src,
                                 MachineFunction &Dst) {
  BlockMap Blocks;
  for (const MachineBasicBlock &SrcMBB : Src) {
    MachineBasicBlock *MBB =
        Dst.CreateMachineBasicBlock(SrcMBB.getBasicBlock());
    Blocks[const_cast<MachineBasicBlock *>(&SrcMBB)] = MBB;
    MBB->setAlignment(SrcMBB.getAlignment());
    MBB->setMaxBytesForAlignment(SrcMBB.getMaxBytesForAlignment());
    if (SrcMBB.hasLabelMustBeEmitted())
      MBB->setLabelMustBeEmitted();
    MBB->setSectionID(SrcMBB.getSectionID());
    if (std::optional<uint64_t> W = SrcMBB.getIrrLoopHeaderWeight())
      MBB->setIrrLoopHeaderWeight(*W);
    Dst.push_back(MBB);
  }
  for (const MachineBasicBlock &SrcMBB : Src) {
    MachineBasicBlock *MBB = Blocks.lookup(&SrcMBB);
    for (auto It = SrcMBB.succ_begin(); It != SrcMBB.succ_end(); ++It)
      MBB->addSuccessor(Blocks.lookup(*It), SrcMBB.getSuccProbability(It));
    for (const auto &LI : SrcMBB.liveins_dbg())
      MBB->addLiveIn(LI);
  }
  cloneFrame(Src.getFrameInfo(), Dst.getFrameInfo(), Blocks);
  MachineRegisterInfo &MRI = Dst.getRegInfo();
  const MachineRegisterInfo &SrcMRI = Src.getRegInfo();
  for (const auto &[Phys, Virt] : SrcMRI.liveins())
    MRI.addLiveIn(Phys, Virt);
  // A calling convention may have taken registers out of the saved set.
  if (SrcMRI.isUpdatedCSRsInitialized()) {
    SmallVector<MCPhysReg, 32> Saved;
    for (const MCPhysReg *R = SrcMRI.getCalleeSavedRegs(); R && *R; ++R)
      Saved.push_back(*R);
    MRI.setCalleeSavedRegs(Saved);
  }
  unsigned CFIBase = cloneTables(Src, Dst, Blocks);
  cloneInstructions(Src, Dst, Blocks, CFIBase);
  Dst.setAlignment(Src.getAlignment());
  Dst.setExposesReturnsTwice(Src.exposesReturnsTwice());
  Dst.setHasInlineAsm(Src.hasInlineAsm());
  Dst.setHasWinCFI(Src.hasWinCFI());
  Dst.setUseDebugInstrRef(Src.useDebugInstrRef());
  Dst.getProperties().reset().set(Src.getProperties());
  if (!Dst.cloneInfoFrom(Src, Blocks))
    report_fatal_error("decan: the target cannot clone its function info");
  MRI.freezeReservedRegs();
}
