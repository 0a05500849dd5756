//===- MachineSharedCode.cpp - decan: code the copies of a loop share -----===//
//
// Part of decan. See MachineSharedCode.h.
//
//===----------------------------------------------------------------------===//

#include "MachineSharedCode.h"
#include "IROutline.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/CodeGen/MachineConstantPool.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Comdat.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/MC/MCContext.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;
using namespace decan;

/// An X86 opcode by name (the X86 enum is private to LLVM's target, its
/// names are not): the direct 64-bit tail jump, the shift and the or of
/// the end probe.
static std::optional<unsigned> opcodeNamed(const TargetInstrInfo &TII,
                                           StringRef Name) {
  for (unsigned Op = 0, N = TII.getNumOpcodes(); Op < N; ++Op)
    if (TII.getName(Op) == Name)
      return Op;
  return std::nullopt;
}

static std::optional<MCRegister> registerNamed(const TargetRegisterInfo &TRI,
                                               StringRef Name) {
  for (unsigned R = 1, N = TRI.getNumRegs(); R < N; ++R)
    if (Name == TRI.getName(R))
      return MCRegister(R);
  return std::nullopt;
}

/// \p MI as text that means the same in any copy of the loop, appended to
/// \p Out: constants by value. False where an operand only means something
/// inside its own function (a block where \p Blocks is false, a jump table,
/// a frame index, a block address).
static bool appendText(const MachineInstr &MI, bool Blocks, std::string &Out) {
  if (MI.isDebugInstr())
    return true;
  raw_string_ostream OS(Out);
  const MachineFunction &MF = *MI.getMF();
  const TargetSubtargetInfo &ST = MF.getSubtarget();
  // Opcode and operands only: the memory operands name IR values of the
  // function the code was first selected for.
  OS << ST.getInstrInfo()->getName(MI.getOpcode());
  for (const MachineOperand &MO : MI.operands()) {
    OS << ", ";
    MO.print(OS, ST.getRegisterInfo());
  }
  for (const MachineOperand &MO : MI.operands()) {
    if (MO.isJTI() || MO.isFI() || MO.isBlockAddress() || MO.isTargetIndex() ||
        (MO.isMBB() && !Blocks))
      return false;
    if (MO.isCPI()) {
      const MachineConstantPoolEntry &E =
          MF.getConstantPool()->getConstants()[MO.getIndex()];
      if (E.isMachineConstantPoolEntry())
        return false;
      OS << " [" << *E.Val.ConstVal << "]";
    }
  }
  OS << "\n";
  return true;
}

/// Where the copy's code goes: copies in different comdats or sections may
/// not reach each other's code.
static std::string placeOf(const Function &F) {
  std::string S = F.hasSection() ? F.getSection().str() : "";
  if (const Comdat *C = F.getComdat())
    S += "|comdat " + C->getName().str();
  return S + "\n";
}

const Function *SharedCopyCode::sameAsEarlierCopy(const MachineFunction &MF,
                                                  StringRef Stem) {
  std::string Text = placeOf(MF.getFunction());
  for (const MachineBasicBlock &MBB : MF) {
    raw_string_ostream(Text) << "bb." << MBB.getNumber() << " align "
                             << MBB.getAlignment().value() << "\n";
    for (const MachineInstr &MI : MBB)
      if (!appendText(MI, /*Blocks=*/true, Text))
        return nullptr;
  }
  auto &Earlier = Copies[Stem.str()];
  for (const auto &[T, F] : Earlier)
    if (T == Text)
      return F;
  Earlier.emplace_back(std::move(Text), &MF.getFunction());
  return nullptr;
}

/// The end probe (IROutline.cpp, probeAsm): `rdtscp; lfence; ...`.
static bool isEndProbe(const MachineInstr &MI) {
  if (!MI.isInlineAsm())
    return false;
  const MachineOperand &Asm = MI.getOperand(InlineAsm::MIOp_AsmString);
  return Asm.isSymbol() && StringRef(Asm.getSymbolName()).starts_with("rdtscp");
}

/// Splits the end probe \p Probe after `rdtscp; lfence`: its `shlq $32,
/// %rdx; orq %rdx, %rax` become machine instructions after it, the same
/// bytes, outside the timed window and in the tail the copies share.
static void splitEndProbe(MachineInstr &Probe) {
  MachineOperand &Asm = Probe.getOperand(InlineAsm::MIOp_AsmString);
  if (StringRef(Asm.getSymbolName()) != EndProbeAsm)
    return;
  const TargetSubtargetInfo &ST = Probe.getMF()->getSubtarget();
  const TargetInstrInfo &TII = *ST.getInstrInfo();
  const TargetRegisterInfo &TRI = *ST.getRegisterInfo();
  static std::optional<unsigned> Shl = opcodeNamed(TII, "SHL64ri"),
                                 Or = opcodeNamed(TII, "OR64rr");
  std::optional<MCRegister> RAX = registerNamed(TRI, "RAX"),
                            RDX = registerNamed(TRI, "RDX");
  if (!Shl || !Or || !RAX || !RDX)
    return;
  // The asm's clobber of %dx is now the high half the shift reads: all of
  // %rdx, which rdtscp writes.
  for (MachineOperand &MO : Probe.operands())
    if (MO.isReg() && MO.isDef() && MO.getReg().isPhysical() &&
        TRI.isSubRegisterEq(*RDX, MO.getReg())) {
      MO.setReg(*RDX);
      MO.setIsDead(false);
    }
  Asm.ChangeToES("rdtscp\n\tlfence");
  MachineBasicBlock &MBB = *Probe.getParent();
  auto After = std::next(Probe.getIterator());
  DebugLoc DL = Probe.getDebugLoc();
  BuildMI(MBB, After, DL, TII.get(*Shl), *RDX).addReg(*RDX).addImm(32);
  BuildMI(MBB, After, DL, TII.get(*Or), *RAX)
      .addReg(*RAX)
      .addReg(*RDX, RegState::Kill);
  for (MachineInstr &MI : make_range(std::next(Probe.getIterator()), After))
    for (MachineOperand &MO : MI.implicit_operands())
      if (MO.isDef())
        MO.setIsDead(); // EFLAGS, which the asm clobbered too
}

/// Whether a branch before or in \p MBB goes past it: a shorter \p MBB would
/// change that branch's displacement, maybe its length, in a loop that
/// branches to a later exit over it.
static bool isJumpedOver(const MachineBasicBlock &MBB) {
  SmallPtrSet<const MachineBasicBlock *, 16> Later;
  for (const MachineBasicBlock &L :
       make_range(std::next(MBB.getIterator()), MBB.getParent()->end()))
    Later.insert(&L);
  for (const MachineBasicBlock *L : Later)
    for (const MachineBasicBlock *Pred : L->predecessors())
      if (!Later.contains(Pred))
        return true;
  return false;
}

unsigned SharedCopyCode::shareExitTails(MachineFunction &MF, StringRef Stem) {
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  static std::optional<unsigned> TailJump = opcodeNamed(TII, "TAILJMPd64");
  if (!TailJump)
    return 0;
  auto &Earlier = Tails[Stem.str()];
  unsigned Shared = 0;
  for (MachineBasicBlock &MBB : MF) {
    auto Probe = llvm::find_if(MBB, isEndProbe);
    // A tail that ends the function in its block, a return the last.
    if (Probe == MBB.end())
      continue;
    splitEndProbe(*Probe);
    if (!MBB.succ_empty() || isJumpedOver(MBB))
      continue;
    auto First = std::next(Probe);
    while (First != MBB.end() && First->isDebugInstr())
      ++First;
    MachineBasicBlock::iterator Last = MBB.getLastNonDebugInstr();
    // A lone return is shorter than a jump to one.
    if (First == MBB.end() || Last == MBB.end() || !Last->isReturn() ||
        First == Last)
      continue;
    std::string Text = placeOf(MF.getFunction());
    bool Comparable = true;
    for (auto I = First; I != MBB.end() && Comparable; ++I)
      Comparable = appendText(*I, /*Blocks=*/false, Text);
    if (!Comparable)
      continue;
    auto Same =
        llvm::find_if(Earlier, [&](const auto &E) { return E.first == Text; });
    if (Same == Earlier.end()) {
      MCSymbol *Label = MF.getContext().createTempSymbol("decan_tail");
      First->setPreInstrSymbol(MF, Label);
      Earlier.emplace_back(std::move(Text), Label);
      continue;
    }
    for (MachineInstr &MI : llvm::make_early_inc_range(
             llvm::make_range(std::next(Probe), MBB.end()))) {
      if (MI.isCandidateForAdditionalCallInfo())
        MF.eraseAdditionalCallInfo(&MI);
      MI.eraseFromParent();
    }
    BuildMI(MBB, MBB.end(), DebugLoc(), TII.get(*TailJump))
        .addSym(Same->second);
    ++Shared;
  }
  return Shared;
}
