//===- X86Context.cpp - The LLVM MC objects the rewriter works with -------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/X86Context.h"

#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;
using namespace decan::rewriter;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

Expected<std::unique_ptr<X86Context>> X86Context::create() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllDisassemblers();
  });
  auto C = std::unique_ptr<X86Context>(new X86Context());
  C->TheTriple = Triple("x86_64-unknown-linux-gnu");
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(C->TheTriple, Err);
  if (!T)
    return fail("x86-64 target not available in LLVM: " + Err);
  C->MRI.reset(T->createMCRegInfo(C->TheTriple));
  C->MAI.reset(T->createMCAsmInfo(*C->MRI, C->TheTriple, C->Options));
  C->MII.reset(T->createMCInstrInfo());
  C->STI.reset(T->createMCSubtargetInfo(C->TheTriple, "", ""));
  if (!C->MRI || !C->MAI || !C->MII || !C->STI)
    return fail("cannot create the x86-64 MC layer");
  C->Ctx = std::make_unique<MCContext>(C->TheTriple, C->MAI.get(), C->MRI.get(),
                                       C->STI.get());
  C->Dis.reset(T->createMCDisassembler(*C->STI, *C->Ctx));
  C->Emitter.reset(T->createMCCodeEmitter(*C->MII, *C->Ctx));
  C->Printer.reset(
      T->createMCInstPrinter(C->TheTriple, 0, *C->MAI, *C->MII, *C->MRI));
  C->Printer->setPrintBranchImmAsAddress(true);
  C->MIA.reset(T->createMCInstrAnalysis(C->MII.get()));
  if (!C->Dis || !C->Emitter || !C->Printer || !C->MIA)
    return fail("cannot create the x86-64 disassembler or encoder");
  for (unsigned I = 0, E = C->MII->getNumOpcodes(); I != E; ++I)
    C->Opcodes[C->MII->getName(I)] = I;
  for (unsigned I = 1, E = C->MRI->getNumRegs(); I != E; ++I)
    C->Registers[C->MRI->getName(I)] = I;
  C->RIP = C->reg("RIP");
  C->RSP = C->reg("RSP");
  C->EFLAGS = C->reg("EFLAGS");
  C->JMP_4 = C->opcode("JMP_4");
  C->JCC_4 = C->opcode("JCC_4");
  C->JMP_1 = C->opcode("JMP_1");
  C->JCC_1 = C->opcode("JCC_1");
  if (!C->RIP || !C->RSP || !C->EFLAGS || !C->JMP_4 || !C->JCC_4)
    return fail("LLVM's X86 tables lack RIP/RSP/EFLAGS/JMP_4/JCC_4");
  return std::move(C);
}

unsigned X86Context::opcode(StringRef Name) const {
  auto It = Opcodes.find(Name);
  return It == Opcodes.end() ? 0 : It->second;
}

unsigned X86Context::reg(StringRef Name) const {
  auto It = Registers.find(Name);
  return It == Registers.end() ? 0 : It->second;
}

uint64_t X86Context::decode(ArrayRef<uint8_t> Bytes, uint64_t Address,
                            MCInst &Inst) const {
  uint64_t Size = 0;
  Inst.clear();
  if (Bytes.empty())
    return 0;
  if (Dis->getInstruction(Inst, Size, Bytes, Address, nulls()) !=
      MCDisassembler::Success)
    return 0;
  return Size;
}

Error X86Context::encode(const MCInst &Inst, SmallVectorImpl<char> &Out) const {
  SmallVector<MCFixup, 4> Fixups;
  size_t Before = Out.size();
  Emitter->encodeInstruction(Inst, Out, Fixups, *STI);
  if (!Fixups.empty() || Out.size() == Before)
    return fail("cannot encode '" + print(Inst, 0) + "'");
  return Error::success();
}

unsigned X86Context::encodedSize(const MCInst &Inst) const {
  SmallVector<char, 16> Buf;
  if (Error E = encode(Inst, Buf)) {
    consumeError(std::move(E));
    return 0;
  }
  return Buf.size();
}

std::string X86Context::print(const MCInst &Inst, uint64_t Address) const {
  std::string S;
  raw_string_ostream OS(S);
  Printer->printInst(&Inst, Address, "", *STI, OS);
  StringRef T = StringRef(S).trim();
  return T.str();
}

int X86Context::memOperandIndex(const MCInst &Inst) const {
  const MCInstrDesc &D = MII->get(Inst.getOpcode());
  for (unsigned I = 0, E = D.getNumOperands(); I != E; ++I)
    if (D.operands()[I].OperandType == MCOI::OPERAND_MEMORY &&
        I + 5 <= Inst.getNumOperands())
      return I;
  // LEA's address operand is not typed as memory in X86's tables.
  if (MII->getName(Inst.getOpcode()).starts_with("LEA") &&
      Inst.getNumOperands() >= 6)
    return 1;
  return -1;
}
