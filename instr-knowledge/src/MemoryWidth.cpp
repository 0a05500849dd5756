//===- MemoryWidth.cpp - Bytes a memory operand accesses ------------------===//
//
// Part of decan. X86Knowledge::memWidth. LLVM keeps the size of an X86
// memory operand in its operand class (i8mem ... i512mem, f32mem, f64mem;
// for an EVEX broadcast the element's class), and the MC layer shows it in
// one place only: the Intel-syntax printer's "dword ptr". MCOperandInfo
// says OPERAND_MEMORY and no more; TSFlags' disp8 scale (CD8) exists for
// EVEX forms alone. So create() prints one instance of every opcode with a
// memory operand, in Intel syntax, and keeps the size it names. The
// opcode's name is read only where LLVM names no size: opaque operands
// (xsave, fxsave, far pointers) and vector-indexed ones (gathers and
// scatters, whose operand names one element: decan counts them all).
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan;

/// Bytes an Intel-syntax size keyword names ("dword" in "dword ptr"); 0 for
/// an unsized operand.
static unsigned bytesOfSizeKeyword(StringRef Printed) {
  size_t Ptr = Printed.find(" ptr ");
  if (Ptr == StringRef::npos)
    return 0;
  // The word before " ptr": after a space, or the tab after the mnemonic.
  StringRef Before = Printed.take_front(Ptr);
  StringRef Word = Before.substr(Before.find_last_of(" \t") + 1);
  return StringSwitch<unsigned>(Word)
      .Case("byte", 1)
      .Case("word", 2)
      .Case("dword", 4)
      .Case("qword", 8)
      .Case("tbyte", 10)
      .Case("xmmword", 16)
      .Case("ymmword", 32)
      .Case("zmmword", 64)
      .Default(0);
}

void X86Knowledge::initMemoryOperandBytes(const Target &T) {
  MemOperandBytes.assign(MII->getNumOpcodes(), 0);
  std::unique_ptr<MCInstPrinter> Intel(T.createMCInstPrinter(
      STI->getTargetTriple(), /*Intel*/ 1, *MAI, *MII, *MRI));
  if (!Intel)
    return;
  auto FirstReg = [&](int16_t RC) -> MCRegister {
    return RC >= 0 && MRI->getRegClass(RC).getNumRegs()
               ? MRI->getRegClass(RC).getRegister(0)
               : MCRegister();
  };
  std::string Text;
  for (unsigned Op = 0, E = MII->getNumOpcodes(); Op < E; ++Op) {
    const MCInstrDesc &D = MII->get(Op);
    int M = memOperandIndex(Op);
    if (M < 0 || D.isPseudo() || unsigned(M) + 5 > D.getNumOperands())
      continue;
    ArrayRef<MCOperandInfo> Info = D.operands();
    bool FiveMemoryOperands = true;
    for (int J = M; J < M + 5; ++J)
      FiveMemoryOperands &= Info[J].OperandType == MCOI::OPERAND_MEMORY;
    // A vector index (gathers, scatters): the operand names one element.
    if (!FiveMemoryOperands || isVector(FirstReg(Info[M + 2].RegClass)))
      continue;
    MCInst MI;
    MI.setOpcode(Op);
    // One instance: [rax], the first register of each register operand's
    // class, zero immediates.
    for (unsigned J = 0; J < D.getNumOperands(); ++J) {
      if (J == unsigned(M)) // base
        MI.addOperand(MCOperand::createReg(GR64->getRegister(0)));
      else if (J == unsigned(M) + 1) // scale
        MI.addOperand(MCOperand::createImm(1));
      else if (J == unsigned(M) + 3) // displacement
        MI.addOperand(MCOperand::createImm(0));
      else if (J > unsigned(M) && J < unsigned(M) + 5) // index, segment
        MI.addOperand(MCOperand::createReg(MCRegister()));
      else if (Info[J].OperandType == MCOI::OPERAND_REGISTER)
        MI.addOperand(MCOperand::createReg(FirstReg(Info[J].RegClass)));
      else
        MI.addOperand(MCOperand::createImm(0));
    }
    Text.clear();
    raw_string_ostream OS(Text);
    Intel->printInst(&MI, 0, "", *STI, OS);
    MemOperandBytes[Op] = bytesOfSizeKeyword(Text);
  }
  // LLVM 22 gives vmovw's store form an i32mem operand; it writes 2 bytes
  // (the instruction's EVEX disp8 scale says so too).
  if (unsigned Op = opcode("VMOVZPWILo2PWIZmr"))
    MemOperandBytes[Op] = 2;
}

/// Where LLVM names no size: the widest vector register among the explicit
/// operands but a gather's index (a gather or scatter moves that many
/// bytes, an element at a time), else the operand size a name carries
/// (FARJMP64m, FXSAVE64), else 0 (unknown).
unsigned X86Knowledge::memWidthFromName(const Instr &I) const {
  int M = memOperandIndex(I.Opcode);
  unsigned VBits = 0;
  for (unsigned J = 0; J < I.Ops.size(); ++J)
    if (I.Ops[J].isReg() && isVector(I.Ops[J].Reg) && J != unsigned(M) + 2)
      VBits = std::max(VBits, regBits(I.Ops[J].Reg));
  if (VBits)
    return VBits / 8;
  unsigned Bits = 0;
  opcodeName(I.Opcode)
      .drop_until([](char C) { return isDigit(C); })
      .consumeInteger(10, Bits);
  if (Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64)
    return Bits / 8;
  return 0;
}

unsigned X86Knowledge::memWidth(const Instr &I) const {
  if (I.MemWidth)
    return I.MemWidth;
  if (memOperandIndex(I.Opcode) < 0)
    return 0;
  if (I.Opcode < MemOperandBytes.size() && MemOperandBytes[I.Opcode])
    return MemOperandBytes[I.Opcode];
  return memWidthFromName(I);
}
