//===- MemoryWidth.cpp - Bytes a memory operand accesses ------------------===//
//
// Part of decan. X86Knowledge::memWidth. LLVM keeps the size of an X86
// memory operand in its operand class (i8mem ... i512mem, f32mem, f64mem;
// for an EVEX broadcast the element's class), and the MC layer shows it in
// one place only: the Intel-syntax printer's "dword ptr". MCOperandInfo
// says OPERAND_MEMORY and no more; TSFlags' disp8 scale (CD8) exists for
// EVEX forms alone. So the first question about an opcode with a memory
// operand prints one instance of it, in Intel syntax, and keeps the size it
// names (printing all ~30 000 opcodes up front cost every compile). The
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
  MemOperandBytes.reset(new std::atomic<uint8_t>[MII->getNumOpcodes()]);
  for (unsigned Op = 0, E = MII->getNumOpcodes(); Op < E; ++Op)
    MemOperandBytes[Op].store(NotPrinted, std::memory_order_relaxed);
  IntelPrinter.reset(T.createMCInstPrinter(STI->getTargetTriple(), /*Intel*/ 1,
                                           *MAI, *MII, *MRI));
  VmovwStore = opcode("VMOVZPWILo2PWIZmr");
}

unsigned X86Knowledge::memOperandBytes(unsigned Op) const {
  uint8_t Bytes = MemOperandBytes[Op].load(std::memory_order_relaxed);
  if (Bytes == NotPrinted) {
    Bytes = printedMemOperandBytes(Op);
    MemOperandBytes[Op].store(Bytes, std::memory_order_relaxed);
  }
  return Bytes;
}

/// The size keyword Intel syntax prints for one instance of \p Op: [rax],
/// the first register of each register operand's class, zero immediates.
uint8_t X86Knowledge::printedMemOperandBytes(unsigned Op) const {
  // LLVM 22 gives vmovw's store form an i32mem operand; it writes 2 bytes
  // (the instruction's EVEX disp8 scale says so too).
  if (Op == VmovwStore)
    return 2;
  auto FirstReg = [&](int16_t RC) -> MCRegister {
    return RC >= 0 && MRI->getRegClass(RC).getNumRegs()
               ? MRI->getRegClass(RC).getRegister(0)
               : MCRegister();
  };
  const MCInstrDesc &D = MII->get(Op);
  int M = memOperandIndex(Op);
  if (!IntelPrinter || M < 0 || D.isPseudo() ||
      unsigned(M) + 5 > D.getNumOperands())
    return 0;
  ArrayRef<MCOperandInfo> Info = D.operands();
  bool FiveMemoryOperands = true;
  for (int J = M; J < M + 5; ++J)
    FiveMemoryOperands &= Info[J].OperandType == MCOI::OPERAND_MEMORY;
  // A vector index (gathers, scatters): the operand names one element.
  if (!FiveMemoryOperands || isVector(FirstReg(Info[M + 2].RegClass)))
    return 0;
  MCInst MI;
  MI.setOpcode(Op);
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
  std::string Text;
  raw_string_ostream OS(Text);
  std::lock_guard<std::mutex> Lock(IntelMutex);
  IntelPrinter->printInst(&MI, 0, "", *STI, OS);
  return bytesOfSizeKeyword(Text);
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
  if (I.Opcode < MII->getNumOpcodes())
    if (unsigned Bytes = memOperandBytes(I.Opcode))
      return Bytes;
  return memWidthFromName(I);
}
