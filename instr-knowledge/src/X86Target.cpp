//===- X86Target.cpp - The x86-64 MC layer, built once --------------------===//
//
// Part of decan. See decan/InstrKnowledge/X86Target.h.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/X86Target.h"

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCFixup.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;
using namespace decan;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

X86Target::X86Target() = default;
X86Target::~X86Target() = default;

Expected<std::unique_ptr<X86Target>> X86Target::create(StringRef CPU,
                                                       StringRef Features) {
  std::unique_ptr<X86Target> T(new X86Target());
  if (Error E = T->init(CPU, Features))
    return std::move(E);
  return std::move(T);
}

std::pair<std::string, std::string> X86Target::hostCPU() {
  std::string Features;
  for (const auto &[Name, On] : sys::getHostCPUFeatures())
    if (On)
      Features += (Features.empty() ? "+" : ",+") + Name.str();
  return {sys::getHostCPUName().str(), Features};
}

Error X86Target::init(StringRef CPU, StringRef Features) {
  // Registering twice is harmless: the registry keeps the first.
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86Disassembler();
  Triple TT("x86_64-unknown-linux-gnu");
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(TT, Err);
  if (!T)
    return fail("x86-64 target not available in LLVM: " + Err);
  MRI.reset(T->createMCRegInfo(TT));
  MCOpts = std::make_unique<MCTargetOptions>();
  MAI.reset(T->createMCAsmInfo(*MRI, TT, *MCOpts));
  MII.reset(T->createMCInstrInfo());
  STI.reset(
      T->createMCSubtargetInfo(TT, CPU.empty() ? "x86-64" : CPU, Features));
  if (!MRI || !MAI || !MII || !STI)
    return fail("cannot create the x86-64 MC layer");
  Ctx = std::make_unique<MCContext>(TT, MAI.get(), MRI.get(), STI.get());
  CE.reset(T->createMCCodeEmitter(*MII, *Ctx));
  Dis.reset(T->createMCDisassembler(*STI, *Ctx));
  Printer.reset(T->createMCInstPrinter(TT, /*AT&T*/ 0, *MAI, *MII, *MRI));
  MCIA.reset(T->createMCInstrAnalysis(MII.get()));
  if (!CE || !Dis || !Printer || !MCIA)
    return fail("cannot create the x86-64 encoder, disassembler or printer");
  Printer->setPrintBranchImmAsAddress(true);

  for (unsigned Op = 0, E = MII->getNumOpcodes(); Op < E; ++Op)
    OpcodeByName[MII->getName(Op)] = Op;
  for (unsigned R = 1, E = MRI->getNumRegs(); R < E; ++R)
    RegByName[MRI->getName(R)] = R;
  MemIdx.assign(MII->getNumOpcodes(), -1);
  for (unsigned Op = 0, E = MII->getNumOpcodes(); Op < E; ++Op) {
    const MCInstrDesc &D = MII->get(Op);
    for (unsigned I = 0; I < D.getNumOperands(); ++I)
      if (D.operands()[I].OperandType == MCOI::OPERAND_MEMORY) {
        MemIdx[Op] = I;
        break;
      }
  }

  RIP = reg("RIP");
  RSP = reg("RSP");
  EFLAGS = reg("EFLAGS");
  JMP_4 = opcode("JMP_4");
  JCC_4 = opcode("JCC_4");
  JMP_1 = opcode("JMP_1");
  JCC_1 = opcode("JCC_1");
  if (!RIP || !RSP || !EFLAGS || !JMP_4 || !JCC_4)
    return fail("LLVM's X86 tables lack RIP/RSP/EFLAGS/JMP_4/JCC_4");

  const char *Missing = nullptr;
  auto Op = [&](const char *N) {
    unsigned O = opcode(N);
    if (!O)
      Missing = N;
    return O;
  };
#define DECAN_DISPATCH_OPCODE(N) Ops.N = Op(#N);
  DECAN_DISPATCH_OPCODE(LEA64r)
  DECAN_DISPATCH_OPCODE(PUSHF64)
  DECAN_DISPATCH_OPCODE(POPF64)
  DECAN_DISPATCH_OPCODE(POP64rmm)
  DECAN_DISPATCH_OPCODE(PUSH64rmm)
  DECAN_DISPATCH_OPCODE(MOV64mr)
  DECAN_DISPATCH_OPCODE(MOV64rm)
  DECAN_DISPATCH_OPCODE(MOV32mr)
  DECAN_DISPATCH_OPCODE(MOV32mi)
  DECAN_DISPATCH_OPCODE(MOV64mi32)
  DECAN_DISPATCH_OPCODE(AND64ri32)
  DECAN_DISPATCH_OPCODE(ADD64ri32)
  DECAN_DISPATCH_OPCODE(MOV32ri)
  DECAN_DISPATCH_OPCODE(XOR32rr)
  DECAN_DISPATCH_OPCODE(XSAVE64)
  DECAN_DISPATCH_OPCODE(XRSTOR64)
  DECAN_DISPATCH_OPCODE(CALL64m)
  DECAN_DISPATCH_OPCODE(JMP64m)
  DECAN_DISPATCH_OPCODE(LFENCE)
  DECAN_DISPATCH_OPCODE(RDTSC)
  DECAN_DISPATCH_OPCODE(RDTSCP)
  DECAN_DISPATCH_OPCODE(CMP32mi)
  DECAN_DISPATCH_OPCODE(DEC32m)
  DECAN_DISPATCH_OPCODE(CMP32ri)
  DECAN_DISPATCH_OPCODE(TEST32rr)
  DECAN_DISPATCH_OPCODE(MOVSX64rr32)
  DECAN_DISPATCH_OPCODE(MOVSX64rm32)
  DECAN_DISPATCH_OPCODE(ADD64rr)
  DECAN_DISPATCH_OPCODE(SUB64rm)
  DECAN_DISPATCH_OPCODE(STMXCSR)
  DECAN_DISPATCH_OPCODE(LDMXCSR)
  DECAN_DISPATCH_OPCODE(MOV64rr)
  DECAN_DISPATCH_OPCODE(TEST64rr)
  DECAN_DISPATCH_OPCODE(CQO)
  DECAN_DISPATCH_OPCODE(IDIV64r)
  DECAN_DISPATCH_OPCODE(NEG64r)
  DECAN_DISPATCH_OPCODE(MOV64ri32)
  DECAN_DISPATCH_OPCODE(OR64rr)
  DECAN_DISPATCH_OPCODE(DEC64r)
  DECAN_DISPATCH_OPCODE(INC32m)
  DECAN_DISPATCH_OPCODE(RET64)
#undef DECAN_DISPATCH_OPCODE
  if (Missing)
    return fail(Twine("LLVM's X86 tables lack ") + Missing);
  return Error::success();
}

unsigned X86Target::opcode(StringRef Name) const {
  auto It = OpcodeByName.find(Name);
  return It == OpcodeByName.end() ? 0 : It->second;
}

unsigned X86Target::reg(StringRef Name) const {
  auto It = RegByName.find(Name);
  return It == RegByName.end() ? 0 : It->second;
}

StringRef X86Target::opcodeName(unsigned Opcode) const {
  return MII->getName(Opcode);
}

StringRef X86Target::regName(unsigned Reg) const {
  return Reg ? StringRef(MRI->getName(Reg)) : StringRef("noreg");
}

int X86Target::memOperandIndex(unsigned Opcode) const {
  return Opcode < MemIdx.size() ? MemIdx[Opcode] : -1;
}

int X86Target::addressOperandIndex(const MCInst &Inst) const {
  int M = memOperandIndex(Inst.getOpcode());
  if (M >= 0)
    return unsigned(M) + 5 <= Inst.getNumOperands() ? M : -1;
  // LEA's address operand is not typed as memory in X86's tables.
  if (opcodeName(Inst.getOpcode()).starts_with("LEA") &&
      Inst.getNumOperands() >= 6)
    return 1;
  return -1;
}

uint64_t X86Target::decode(ArrayRef<uint8_t> Bytes, uint64_t Address,
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

bool X86Target::highByteNeedsRex(const MCInst &Inst) const {
  // LLVM's encoder aborts the process (report_fatal_error) on %ah-%dh in an
  // instruction that needs a REX prefix (an extended register, %sil-like
  // byte registers or REX.W). The instruction with %al-%dl in their place
  // needs a REX prefix exactly when the original would.
  static const char *const High[] = {"AH", "BH", "CH", "DH"};
  static const char *const Low[] = {"AL", "BL", "CL", "DL"};
  MCInst LowInst = Inst;
  bool Any = false;
  for (MCOperand &Op : LowInst)
    for (unsigned K = 0; K < 4; ++K)
      if (Op.isReg() && Op.getReg() == reg(High[K])) {
        Op.setReg(reg(Low[K]));
        Any = true;
      }
  if (!Any)
    return false;
  SmallVector<char, 16> Bytes;
  SmallVector<MCFixup, 4> Fixups;
  CE->encodeInstruction(LowInst, Bytes, Fixups, *STI);
  for (char C : Bytes) {
    uint8_t B = uint8_t(C);
    bool Legacy = B == 0x66 || B == 0x67 || B == 0xf0 || B == 0xf2 ||
                  B == 0xf3 || B == 0x2e || B == 0x36 || B == 0x3e ||
                  B == 0x26 || B == 0x64 || B == 0x65;
    if (!Legacy)
      return (B & 0xf0) == 0x40;
  }
  return false;
}

Error X86Target::encode(const MCInst &Inst, SmallVectorImpl<char> &Out) const {
  if (highByteNeedsRex(Inst))
    return fail("cannot encode '" + print(Inst, 0) +
                "': %ah-%dh with a register that needs a REX prefix");
  SmallVector<MCFixup, 4> Fixups;
  size_t Before = Out.size();
  CE->encodeInstruction(Inst, Out, Fixups, *STI);
  if (!Fixups.empty() || Out.size() == Before)
    return fail("cannot encode '" + print(Inst, 0) + "'");
  return Error::success();
}

unsigned X86Target::encodedSize(const MCInst &Inst) const {
  SmallVector<char, 16> Buf;
  if (Error E = encode(Inst, Buf)) {
    consumeError(std::move(E));
    return 0;
  }
  return Buf.size();
}

std::string X86Target::print(const MCInst &Inst, uint64_t Address) const {
  std::string S;
  raw_string_ostream OS(S);
  Printer->printInst(&Inst, Address, "", *STI, OS);
  return StringRef(S).trim().str();
}

//===----------------------------------------------------------------------===//
// Instruction builders
//===----------------------------------------------------------------------===//

static MCOperand R(unsigned Reg) { return MCOperand::createReg(Reg); }
static MCOperand I(int64_t V) { return MCOperand::createImm(V); }

MCInst X86Target::createInst(unsigned Opcode) {
  MCInst MI;
  MI.setOpcode(Opcode);
  return MI;
}

void X86Target::addMem(MCInst &MI, unsigned Base, int64_t Disp, unsigned Index,
                       unsigned Scale) {
  MI.addOperand(R(Base));
  MI.addOperand(I(Scale));
  MI.addOperand(R(Index));
  MI.addOperand(I(Disp));
  MI.addOperand(R(0));
}

/// \p Opc with operands \p Before, the five memory operands, then \p After.
static MCInst memForm(unsigned Opc, ArrayRef<MCOperand> Before, unsigned Base,
                      int64_t Disp, ArrayRef<MCOperand> After = {},
                      unsigned Index = 0, unsigned Scale = 1) {
  MCInst MI = X86Target::createInst(Opc);
  for (const MCOperand &O : Before)
    MI.addOperand(O);
  X86Target::addMem(MI, Base, Disp, Index, Scale);
  for (const MCOperand &O : After)
    MI.addOperand(O);
  return MI;
}

/// \p Opc with operands \p Ops.
static MCInst form(unsigned Opc, ArrayRef<MCOperand> Ops) {
  MCInst MI = X86Target::createInst(Opc);
  for (const MCOperand &O : Ops)
    MI.addOperand(O);
  return MI;
}

MCInst X86Target::createLoad(unsigned Dst, unsigned Base, int64_t Disp) const {
  return memForm(Ops.MOV64rm, {R(Dst)}, Base, Disp);
}

MCInst X86Target::createStore(unsigned Base, int64_t Disp, unsigned Src,
                              bool Is32) const {
  return memForm(Is32 ? Ops.MOV32mr : Ops.MOV64mr, {}, Base, Disp, {R(Src)});
}

MCInst X86Target::createStoreImm(unsigned Base, int64_t Disp, int64_t Imm,
                                 bool Is32) const {
  return memForm(Is32 ? Ops.MOV32mi : Ops.MOV64mi32, {}, Base, Disp, {I(Imm)});
}

MCInst X86Target::createLea(unsigned Dst, unsigned Base, int64_t Disp) const {
  return memForm(Ops.LEA64r, {R(Dst)}, Base, Disp);
}

MCInst X86Target::createMove(unsigned Dst, unsigned Src) const {
  return form(Ops.MOV64rr, {R(Dst), R(Src)});
}

MCInst X86Target::createMoveImm32(unsigned Dst32, int64_t Imm) const {
  return form(Ops.MOV32ri, {R(Dst32), I(Imm)});
}

// Two-address forms (Dst = Dst op Src) list Dst twice.
MCInst X86Target::createAndImm(unsigned Reg, int64_t Imm) const {
  return form(Ops.AND64ri32, {R(Reg), R(Reg), I(Imm)});
}

MCInst X86Target::createAddImm(unsigned Reg, int64_t Imm) const {
  return form(Ops.ADD64ri32, {R(Reg), R(Reg), I(Imm)});
}

MCInst X86Target::createOr(unsigned Dst, unsigned Src) const {
  return form(Ops.OR64rr, {R(Dst), R(Dst), R(Src)});
}

MCInst X86Target::createAdd(unsigned Dst, unsigned Src) const {
  return form(Ops.ADD64rr, {R(Dst), R(Dst), R(Src)});
}

MCInst X86Target::createXor32(unsigned Dst32, unsigned Src32) const {
  return form(Ops.XOR32rr, {R(Dst32), R(Dst32), R(Src32)});
}

MCInst X86Target::createSubMem(unsigned Dst, unsigned Base,
                               int64_t Disp) const {
  return memForm(Ops.SUB64rm, {R(Dst), R(Dst)}, Base, Disp);
}

MCInst X86Target::createSignExtend32(unsigned Dst, unsigned Src32) const {
  return form(Ops.MOVSX64rr32, {R(Dst), R(Src32)});
}

MCInst X86Target::createNeg(unsigned Reg) const {
  return form(Ops.NEG64r, {R(Reg), R(Reg)});
}

MCInst X86Target::createDec(unsigned Reg) const {
  return form(Ops.DEC64r, {R(Reg), R(Reg)});
}

MCInst X86Target::createMoveImm(unsigned Dst, int64_t Imm) const {
  return form(Ops.MOV64ri32, {R(Dst), I(Imm)});
}

MCInst X86Target::createIDiv(unsigned Reg) const {
  return form(Ops.IDIV64r, {R(Reg)});
}

MCInst X86Target::createTestSelf(unsigned Reg) const {
  return form(Ops.TEST64rr, {R(Reg), R(Reg)});
}

MCInst X86Target::createMemOnly(unsigned Opcode, unsigned Base,
                                int64_t Disp) const {
  return memForm(Opcode, {}, Base, Disp);
}

MCInst X86Target::createPushMem(unsigned Base, int64_t Disp) const {
  return createMemOnly(Ops.PUSH64rmm, Base, Disp);
}

MCInst X86Target::createPopMem(unsigned Base, int64_t Disp) const {
  return createMemOnly(Ops.POP64rmm, Base, Disp);
}

MCInst X86Target::createCallMem(unsigned Base, int64_t Disp) const {
  return createMemOnly(Ops.CALL64m, Base, Disp);
}

MCInst X86Target::createJmpMem(unsigned Base, int64_t Disp) const {
  return createMemOnly(Ops.JMP64m, Base, Disp);
}

MCInst X86Target::createCmpMemImm32(unsigned Base, int64_t Disp,
                                    int64_t Imm) const {
  return memForm(Ops.CMP32mi, {}, Base, Disp, {I(Imm)});
}

MCInst X86Target::createDecMem32(unsigned Base, int64_t Disp) const {
  return memForm(Ops.DEC32m, {}, Base, Disp);
}

MCInst X86Target::createIncMem32(unsigned Base, int64_t Disp) const {
  return memForm(Ops.INC32m, {}, Base, Disp);
}

MCInst X86Target::createCmpImm32(unsigned Reg32, int64_t Imm) const {
  return form(Ops.CMP32ri, {R(Reg32), I(Imm)});
}

MCInst X86Target::createTestSelf32(unsigned Reg32) const {
  return form(Ops.TEST32rr, {R(Reg32), R(Reg32)});
}

MCInst X86Target::createSignExtendLoad32(unsigned Dst, unsigned Base,
                                         int64_t Disp, unsigned Index,
                                         unsigned Scale) const {
  return memForm(Ops.MOVSX64rm32, {R(Dst)}, Base, Disp, {}, Index, Scale);
}

MCInst X86Target::createBranch32(int CC) const {
  MCInst MI = createInst(CC < 0 ? JMP_4 : JCC_4);
  MI.addOperand(I(0));
  if (CC >= 0)
    MI.addOperand(I(CC));
  return MI;
}
