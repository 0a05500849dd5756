//===- Knowledge.cpp - Facts about x86-64 instructions (MC level) ---------===//
//
// Part of decan. See decan/InstrKnowledge/Knowledge.h.
// X86Knowledge's facts about instructions: operand roles, registers read and
// written, bridges, encoding sizes, using the register classes
// X86Knowledge::create() looks up once. Memory widths are in
// MemoryWidth.cpp, the instructions variants add (NOPs, idioms, pure loads)
// in Idioms.cpp.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCFixup.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;
using namespace decan;

X86Knowledge::~X86Knowledge() = default;

bool decan::mergesFlags(StringRef N) {
  if (N.starts_with("INC") || N.starts_with("DEC"))
    return true;
  if (N.starts_with("RO") || N.starts_with("RC")) // rol ror rcl rcr
    return true;
  bool Shift = N.starts_with("SHL") || N.starts_with("SHR") ||
               N.starts_with("SAR") || N.starts_with("SAL") ||
               N.starts_with("SHLD") || N.starts_with("SHRD");
  return Shift && N.ends_with("CL");
}

Expected<std::unique_ptr<X86Knowledge>>
X86Knowledge::create(StringRef CPU, StringRef Features) {
  std::unique_ptr<X86Knowledge> K(new X86Knowledge());
  if (Error E = K->init(CPU, Features))
    return std::move(E);
  Triple TT("x86_64-unknown-linux-gnu");
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(TT, Err);
  if (!T)
    return createStringError(inconvertibleErrorCode(),
                             "x86-64 target unavailable: " + Err);
  // Idioms per scheduling model: the subtarget's own, plus two reference
  // models whose tables cover the zero (x86-64-v4: legacy, VEX, EVEX) and
  // ones (znver3: pcmpeqd) idioms every current x86-64 core breaks; some
  // models (alderlake, sapphirerapids) carry no idiom table at all.
  K->IdiomModels.push_back(K->STI->getSchedModel().getProcessorID());
  for (const char *Ref : {"x86-64-v4", "znver3"})
    if (std::unique_ptr<MCSubtargetInfo> R{
            T->createMCSubtargetInfo(TT, Ref, "")})
      K->IdiomModels.push_back(R->getSchedModel().getProcessorID());
  const MCInstrInfo &MII = *K->MII;
  for (const MCRegisterClass &RC : K->MRI->regclasses()) {
    StringRef N = K->MRI->getRegClassName(&RC);
    if (N == "GR8")
      K->GR8 = &RC;
    else if (N == "GR16")
      K->GR16 = &RC;
    else if (N == "GR32")
      K->GR32 = &RC;
    else if (N == "GR64")
      K->GR64 = &RC;
    else if (N == "VR128X")
      K->VR128 = &RC;
    else if (N == "VR256X")
      K->VR256 = &RC;
    else if (N == "VR512")
      K->VR512 = &RC;
    else if (N == "VK16")
      K->VK = &RC;
    else if (N == "FR32X")
      K->FR32 = &RC;
    else if (N == "FR64X")
      K->FR64 = &RC;
  }
  if (!K->GR64 || !K->VR128 || !K->VR256 || !K->VR512 || !K->VK)
    return createStringError(inconvertibleErrorCode(),
                             "unexpected x86-64 register classes");
  K->Classes.reset(new std::atomic<unsigned>[MII.getNumOpcodes()]());
  const FeatureBitset &FB = K->STI->getFeatureBits();
  auto Has = [&](StringRef F) {
    for (const SubtargetFeatureKV &KV : K->STI->getAllProcessorFeatures())
      if (F == KV.Key)
        return FB.test(KV.Value);
    return false;
  };
  K->HasAVX = Has("avx");
  K->HasAVX512 = Has("avx512f");
  K->initRegisterTables();
  K->initMemoryOperandBytes(*T);
  return std::move(K);
}

void X86Knowledge::initRegisterTables() {
  for (unsigned N = 0; N < 32; ++N)
    XMM.push_back(reg(("XMM" + Twine(N)).str()));
  SSP = reg("SSP");
  for (const char *G : {"RDI", "RSI", "RDX", "RCX", "R8", "R9"})
    CallArgs.push_back(reg(G));
  for (unsigned N = 0; N < 8; ++N)
    CallArgs.push_back(XMM[N]);
  // Narrowest names: XMMn shares its register unit with YMMn and ZMMn, and a
  // bridge for a clobbered register must be a copy this subtarget has.
  for (const char *G :
       {"RAX", "RCX", "RDX", "RSI", "RDI", "R8", "R9", "R10", "R11", "EFLAGS"})
    CallClobbered.push_back(reg(G));
  for (unsigned N = 0; N < (HasAVX512 ? 32u : 16u); ++N)
    CallClobbered.push_back(XMM[N]);
  if (HasAVX512)
    for (unsigned N = 0; N < 8; ++N)
      CallClobbered.push_back(reg(("K" + Twine(N)).str()));
  for (unsigned N = 0; N < (HasAVX512 ? 32u : 16u); ++N)
    ScratchCands.push_back(XMM[N]);
  for (const char *G :
       {"RAX", "RCX", "RDX", "RSI", "RDI", "R8", "R9", "R10", "R11"})
    ScratchCands.push_back(reg(G));
  for (const char *G : {"RBX", "RBP", "R12", "R13", "R14", "R15"})
    CalleeSavedCands.push_back(reg(G));
  // Two registers alias when they share a register unit (what
  // MCRegisterInfo::regsOverlap walks the unit lists for).
  NumRegs = MRI->getNumRegs();
  AliasWords = (NumRegs + 63) / 64;
  Alias.assign(size_t(NumRegs) * AliasWords, 0);
  std::vector<std::vector<unsigned>> RegsOfUnit(MRI->getNumRegUnits());
  UnitBegin.assign(NumRegs + 1, 0);
  for (unsigned R = 1; R < NumRegs; ++R) {
    UnitBegin[R] = UnitList.size();
    for (MCRegUnit U : MRI->regunits(R)) {
      RegsOfUnit[static_cast<unsigned>(U)].push_back(R);
      UnitList.push_back(static_cast<unsigned>(U));
    }
  }
  UnitBegin[NumRegs] = UnitList.size();
  for (unsigned A = 1; A < NumRegs; ++A)
    for (MCRegUnit U : MRI->regunits(A))
      for (unsigned B : RegsOfUnit[static_cast<unsigned>(U)])
        Alias[size_t(A) * AliasWords + B / 64] |= uint64_t(1) << (B % 64);
}

Expected<std::unique_ptr<X86Knowledge>> X86Knowledge::createForHost() {
  auto [CPU, Features] = hostCPU();
  return create(CPU, Features);
}

unsigned X86Knowledge::classify(unsigned Opcode) const {
  if (Opcode >= MII->getNumOpcodes())
    return SubsetUnsupported;
  unsigned C = Classes[Opcode].load(std::memory_order_relaxed);
  if (!C) {
    C = classifyOpcode(*MII, Opcode, MRI.get()) | Classified;
    Classes[Opcode].store(C, std::memory_order_relaxed);
  }
  return C & ~Classified;
}

bool X86Knowledge::isGPR(unsigned R) const {
  return R && (GR64->contains(R) || GR32->contains(R) || GR16->contains(R) ||
               GR8->contains(R));
}
bool X86Knowledge::isVector(unsigned R) const {
  return R && (VR128->contains(R) || VR256->contains(R) || VR512->contains(R));
}
bool X86Knowledge::isMask(unsigned R) const { return R && VK->contains(R); }
unsigned X86Knowledge::regBits(unsigned R) const {
  if (!R)
    return 0;
  if (GR64->contains(R))
    return 64;
  if (GR32->contains(R))
    return 32;
  if (GR16->contains(R))
    return 16;
  if (GR8->contains(R))
    return 8;
  if (VR128->contains(R))
    return 128;
  if (VR256->contains(R))
    return 256;
  if (VR512->contains(R))
    return 512;
  if (VK->contains(R))
    return 64;
  return 0;
}
unsigned X86Knowledge::regNumber(unsigned R) const {
  return R ? MRI->getEncodingValue(R) : 0;
}
unsigned X86Knowledge::xmmOf(unsigned R) const {
  if (!isVector(R))
    return 0;
  unsigned N = regNumber(R);
  return N < XMM.size() ? XMM[N] : 0;
}
std::vector<unsigned> X86Knowledge::unusedRegs(const LoopBody &L,
                                               bool CalleeSaved) const {
  // Every register the loop names, read, written or as an operand; a
  // candidate is unused when it aliases none of them.
  std::vector<uint64_t> Used(AliasWords, 0);
  SmallVector<unsigned, 16> Rs;
  for (const Instr &I : L.Instrs) {
    Rs.clear();
    regsRead(I, Rs);
    regsWritten(I, Rs);
    for (const Operand &O : I.Ops)
      if (O.isReg())
        Rs.push_back(O.Reg);
    for (unsigned X : Rs)
      if (X && X < NumRegs)
        for (unsigned W = 0; W < AliasWords; ++W)
          Used[W] |= Alias[size_t(X) * AliasWords + W];
  }
  std::vector<unsigned> Out;
  auto Take = [&](ArrayRef<unsigned> Cands) {
    for (unsigned R : Cands)
      if (R && R < NumRegs && !(Used[R / 64] >> (R % 64) & 1))
        Out.push_back(R);
  };
  Take(ScratchCands);
  if (CalleeSaved)
    Take(CalleeSavedCands);
  return Out;
}

unsigned X86Knowledge::memAlignment(const Instr &I) const {
  if (memOperandIndex(I.Opcode) < 0)
    return 1;
  StringRef N = opcodeName(I.Opcode);
  unsigned W = memWidth(I);
  if (N.contains("MOVAP") || N.contains("MOVDQA") || N.contains("MOVNT"))
    return std::max(W, 1u);
  if (!N.starts_with("V") && W == 16 && !N.contains("MOVUP") &&
      !N.contains("MOVDQU") && !N.contains("LDDQU"))
    return 16;
  return 1;
}

bool X86Knowledge::isDependencyBreaking(const Instr &I) const {
  if (!MCIA || I.Ops.empty())
    return false;
  for (const Operand &O : I.Ops)
    if (!O.isReg())
      return false;
  MCInst MI = toMCInst(I);
  for (unsigned Model : IdiomModels) {
    APInt Mask;
    if (MCIA->isDependencyBreaking(MI, Mask, Model))
      return true;
  }
  return false;
}

void X86Knowledge::regsRead(const Instr &I,
                            SmallVectorImpl<unsigned> &Regs) const {
  if (I.Padding || (classify(I.Opcode) & SubsetNop))
    return;
  const MCInstrDesc &D = MII->get(I.Opcode);
  if (!isDependencyBreaking(I))
    for (unsigned J = D.getNumDefs(); J < I.Ops.size(); ++J)
      if (I.Ops[J].isReg() && I.Ops[J].Reg && I.Ops[J].Reg != RIP)
        Regs.push_back(I.Ops[J].Reg);
  for (MCPhysReg R : D.implicit_uses())
    if (R != RIP && R != SSP)
      Regs.push_back(R);
  Regs.append(I.ImplicitUses.begin(), I.ImplicitUses.end());
  if (I.ImplicitUses.empty() && (classify(I.Opcode) & SubsetCall))
    for (unsigned R : callArgumentRegs())
      Regs.push_back(R);
}

void X86Knowledge::regsWritten(const Instr &I,
                               SmallVectorImpl<unsigned> &Regs) const {
  if (I.Padding || (classify(I.Opcode) & SubsetNop))
    return;
  const MCInstrDesc &D = MII->get(I.Opcode);
  for (unsigned J = 0; J < D.getNumDefs() && J < I.Ops.size(); ++J)
    if (I.Ops[J].isReg() && I.Ops[J].Reg)
      Regs.push_back(I.Ops[J].Reg);
  for (MCPhysReg R : D.implicit_defs())
    if (R != SSP)
      Regs.push_back(R);
  Regs.append(I.ImplicitDefs.begin(), I.ImplicitDefs.end());
  if (I.ImplicitDefs.empty() && (classify(I.Opcode) & SubsetCall))
    for (unsigned R : callClobberedRegs())
      Regs.push_back(R);
}

unsigned decan::memoryCallPointers(StringRef N) {
  N.consume_front("__");
  N.consume_back("_chk");
  if (N == "memcpy" || N == "memmove")
    return 2;
  return N == "memset" ? 1 : 0;
}

CallKind decan::callKindOfSymbol(StringRef N) {
  if (N == "memcpy" || N == "memmove" || N == "memset" || N == "__memcpy_chk" ||
      N == "__memmove_chk" || N == "__memset_chk")
    return CallKind::Memory;
  static const StringRef Libm[] = {
      "sqrt",  "exp",  "exp2",  "exp10", "expm1", "log",   "log2", "log10",
      "log1p", "pow",  "sin",   "cos",   "tan",   "asin",  "acos", "atan",
      "atan2", "sinh", "cosh",  "tanh",  "fmod",  "ldexp", "cbrt", "hypot",
      "floor", "ceil", "trunc", "round", "rint",  "erf",   "erfc", "lgamma",
      "fma",   "fmin", "fmax",  "tgamma"};
  N.consume_front("__");
  N.consume_back("_finite");
  for (StringRef B : Libm)
    if (N == B || (N.size() == B.size() + 1 && N.starts_with(B) &&
                   (N.back() == 'f' || N.back() == 'l')))
      return CallKind::Pure;
  return CallKind::MayWrite;
}

PassThrough X86Knowledge::passThrough(const Instr &I, unsigned Written) const {
  PassThrough P;
  if (I.Padding || isDependencyBreaking(I))
    return P;
  const MCInstrDesc &D = MII->get(I.Opcode);
  int M = memOperandIndex(I.Opcode);
  SmallVector<unsigned, 4> Srcs;
  // A call passes on its arguments (sqrt(x): XMM0 -> XMM0 keeps its chain;
  // a pointer in RDI returned in RAX is a copy), never its target or the
  // stack pointer (which it keeps).
  bool Call = classify(I.Opcode) & SubsetCall;
  if (Call) {
    if (regsOverlap(Written, RSP)) {
      P.Kind = PassThrough::Keep;
      return P;
    }
    if (I.ImplicitUses.empty())
      for (unsigned R : callArgumentRegs())
        Srcs.push_back(R);
    for (unsigned R : I.ImplicitUses)
      if (!regsOverlap(R, RSP))
        Srcs.push_back(R);
  }
  for (unsigned J = D.getNumDefs(); !Call && J < I.Ops.size(); ++J) {
    if (M >= 0 && J >= (unsigned)M && J < (unsigned)M + 5)
      continue; // address registers
    if (I.Ops[J].isReg() && I.Ops[J].Reg && !isMask(I.Ops[J].Reg))
      Srcs.push_back(I.Ops[J].Reg);
  }
  for (MCPhysReg R : D.implicit_uses())
    if (isGPR(R) && !Call)
      Srcs.push_back(R);
  if (mergesFlags(opcodeName(I.Opcode)))
    Srcs.push_back(EFLAGS);
  for (unsigned R : Srcs)
    if (regsOverlap(R, Written)) {
      P.Kind = PassThrough::Keep;
      return P;
    }
  bool Vec = isVector(Written);
  if (!Vec && !isGPR(Written))
    return P;
  // Unary scalar ops in three-operand form (vsqrtsd %xmm2, %xmm1, %xmm0):
  // the first source only supplies the upper lanes; the value comes from
  // the last one.
  StringRef N = opcodeName(I.Opcode);
  bool Unary = N.starts_with("VSQRTS") || N.starts_with("VRSQRT") ||
               N.starts_with("VRCP");
  for (unsigned K = 0; K < Srcs.size(); ++K) {
    unsigned R = Srcs[Unary ? Srcs.size() - 1 - K : K];
    if (Vec ? isVector(R) : isGPR(R)) {
      P.Kind = PassThrough::Copy;
      P.Src = R;
      return P;
    }
  }
  return P;
}

std::vector<Instr> X86Knowledge::copy(unsigned Dst, unsigned Src) const {
  std::vector<Instr> Out;
  auto Mk = [&](StringRef Name, unsigned D, unsigned S) {
    Instr I;
    I.Opcode = opcode(Name);
    I.Ops = {Operand::reg(D), Operand::reg(S)};
    I.Unchanged = false;
    if (I.Opcode)
      Out.push_back(I);
  };
  if (isVector(Dst) && isVector(Src)) {
    unsigned Bits = regBits(Dst);
    StringRef P = Bits == 128 ? "XMM" : Bits == 256 ? "YMM" : "ZMM";
    unsigned S = reg((P + Twine(regNumber(Src))).str());
    bool EVEX = Bits == 512 || regNumber(Dst) >= 16 || regNumber(S) >= 16;
    if (EVEX && !HasAVX512)
      return Out;
    if (EVEX)
      Mk(Bits == 128   ? "VMOVAPSZ128rr"
         : Bits == 256 ? "VMOVAPSZ256rr"
                       : "VMOVAPSZrr",
         Dst, S);
    else if (Bits == 256)
      Mk("VMOVAPSYrr", Dst, S);
    else
      Mk(HasAVX ? "VMOVAPSrr" : "MOVAPSrr", Dst, S);
    return Out;
  }
  if (isGPR(Dst) && isGPR(Src)) {
    unsigned Bits = regBits(Dst);
    // A 32-bit copy writes the whole register (zero extension).
    unsigned CopyBits = Bits == 64 ? 64 : 32;
    unsigned D = Dst, S = Src;
    for (unsigned *R : {&D, &S}) {
      unsigned Top = *R;
      for (MCPhysReg Sup : MRI->superregs_inclusive(*R))
        if (GR64->contains(Sup))
          Top = Sup;
      if (CopyBits == 64) {
        *R = Top;
        continue;
      }
      for (MCPhysReg Sub : MRI->subregs_inclusive(Top))
        if (GR32->contains(Sub))
          *R = Sub;
    }
    if (Bits < 32) // a partial write merges: copying 32 bits keeps more
      return Out;
    Mk(CopyBits == 64 ? "MOV64rr" : "MOV32rr", D, S);
  }
  return Out;
}

unsigned X86Knowledge::gprWritten(const Instr &I) const {
  SmallVector<unsigned, 4> Ws;
  regsWritten(I, Ws);
  unsigned Def = 0;
  for (unsigned W : Ws)
    if (isGPR(W))
      Def = W;
  return Def;
}

int64_t X86Knowledge::inductionStep(const Instr &I, unsigned Def) const {
  StringRef N = opcodeName(I.Opcode);
  auto Imm = [&](unsigned O) -> const Operand * {
    return O < I.Ops.size() && I.Ops[O].isImm() ? &I.Ops[O] : nullptr;
  };
  auto SelfSrc = [&](unsigned O) {
    return O < I.Ops.size() && I.Ops[O].isReg() && I.Ops[O].Reg &&
           regsOverlap(I.Ops[O].Reg, Def);
  };
  if (is_contained({"ADD64ri8", "ADD64ri32", "ADD32ri8", "ADD32ri"}, N) &&
      SelfSrc(1) && Imm(2))
    return Imm(2)->Imm;
  if (is_contained({"SUB64ri8", "SUB64ri32", "SUB32ri8", "SUB32ri"}, N) &&
      SelfSrc(1) && Imm(2))
    return -Imm(2)->Imm;
  if (is_contained({"INC64r", "INC32r"}, N) && SelfSrc(1))
    return 1;
  if (is_contained({"DEC64r", "DEC32r"}, N) && SelfSrc(1))
    return -1;
  // lea disp(base), dst: operands dst, base, scale, index, disp, segment.
  if (is_contained({"LEA64r", "LEA64_32r"}, N) && I.Ops.size() == 6 &&
      SelfSrc(1) && I.Ops[3].isReg() && !I.Ops[3].Reg && Imm(4) &&
      I.Ops[5].isReg() && !I.Ops[5].Reg)
    return Imm(4)->Imm;
  return 0;
}

//===-- Encoding ----------------------------------------------------------===//

static unsigned firstNumber(StringRef S) {
  size_t P = S.find_first_of("0123456789");
  if (P == StringRef::npos)
    return 0;
  unsigned V = 0;
  S.substr(P)
      .take_while([](char C) { return (C >= '0' && C <= '9'); })
      .getAsInteger(10, V);
  return V;
}

MCInst X86Knowledge::toMCInst(const Instr &I) const {
  MCInst MI;
  MI.setOpcode(I.Opcode);
  int M = memOperandIndex(I.Opcode);
  for (unsigned J = 0; J < I.Ops.size(); ++J) {
    const Operand &O = I.Ops[J];
    switch (O.Kind) {
    case Operand::Register:
      MI.addOperand(MCOperand::createReg(O.Reg));
      break;
    case Operand::Immediate:
      MI.addOperand(MCOperand::createImm(O.Imm));
      break;
    case Operand::Symbol:
    case Operand::Scratch:
      // A relocated displacement or immediate is 32 bits wide; a value
      // that does not fit 8 bits makes the encoder choose that width.
      MI.addOperand(MCOperand::createImm((M >= 0 && (int)J == M + 3) ||
                                                 O.Kind == Operand::Scratch
                                             ? 0x12345678
                                             : 0x12345678));
      break;
    }
  }
  return MI;
}

unsigned X86Knowledge::encodeSize(const MCInst &MI) const {
  if (highByteNeedsRex(MI))
    return 0;
  SmallVector<char, 16> Bytes;
  SmallVector<MCFixup, 2> Fixups;
  CE->encodeInstruction(MI, Bytes, Fixups, *STI);
  return Bytes.size();
}

Expected<unsigned> X86Knowledge::sizeOf(const Instr &I) const {
  if (I.Size)
    return I.Size;
  if (I.Opcode >= MII->getNumOpcodes())
    return createStringError(inconvertibleErrorCode(), "bad opcode");
  const MCInstrDesc &D = MII->get(I.Opcode);
  if (D.isPseudo() && D.getSize() == 0 &&
      !opcodeName(I.Opcode).contains("PREFIX"))
    return createStringError(inconvertibleErrorCode(),
                             "pseudo instruction " +
                                 opcodeName(I.Opcode).str() +
                                 " has no encoding");
  // A malformed operand list would make the encoder read past the
  // operands: refuse it instead.
  if (!D.isVariadic() && I.Ops.size() != D.getNumOperands())
    return createStringError(inconvertibleErrorCode(),
                             opcodeName(I.Opcode) + " takes " +
                                 Twine(D.getNumOperands()) + " operands, not " +
                                 Twine(I.Ops.size()));
  MCInst MI = toMCInst(I);
  unsigned Best = encodeSize(MI);
  if (!Best)
    return createStringError(inconvertibleErrorCode(),
                             "cannot encode " + opcodeName(I.Opcode) +
                                 " with these registers");
  StringRef N = opcodeName(I.Opcode);
  auto Try = [&](StringRef Name, const MCInst &Alt) {
    if (opcode(Name) == 0)
      return;
    MCInst A = Alt;
    A.setOpcode(opcode(Name));
    if (unsigned S = encodeSize(A))
      Best = std::min(Best, S);
  };
  // Short immediate forms (X86 MC lowering picks them when the value fits).
  if (!I.Ops.empty() && I.Ops.back().isImm() && isInt<8>(I.Ops.back().Imm)) {
    if (N.ends_with("ri") || N.ends_with("mi") || N.ends_with("rri") ||
        N.ends_with("rmi"))
      Try((N + "8").str(), MI);
    if (N.ends_with("ri32") || N.ends_with("mi32"))
      Try((N.drop_back(2) + "8").str(), MI);
  }
  // Accumulator forms: ADD32ri $x, %eax -> ADD32i32.
  if (N.ends_with("ri") || N.ends_with("ri32")) {
    unsigned Bits = firstNumber(N);
    unsigned Acc = Bits == 8    ? reg("AL")
                   : Bits == 16 ? reg("AX")
                   : Bits == 32 ? reg("EAX")
                                : reg("RAX");
    if (!I.Ops.empty() && I.Ops[0].isReg() && I.Ops[0].Reg == Acc &&
        I.Ops.back().Kind != Operand::Register) {
      StringRef Stem = N.substr(0, N.find_first_of("0123456789"));
      std::string Alt =
          (Stem + Twine(Bits) + "i" + Twine(Bits == 64 ? 32 : Bits)).str();
      MCInst A;
      A.addOperand(MI.getOperand(MI.getNumOperands() - 1));
      Try(Alt, A);
    }
  }
  // Shift or rotate by one.
  if ((N.ends_with("ri") || N.ends_with("mi")) && !I.Ops.empty() &&
      I.Ops.back().isImm() && I.Ops.back().Imm == 1 &&
      (N.starts_with("SH") || N.starts_with("SA") || N.starts_with("RO") ||
       N.starts_with("RC"))) {
    MCInst A = MI;
    A.erase(A.begin() + (A.getNumOperands() - 1));
    Try((N.drop_back(1) + "1").str(), A);
  }
  // VEX3 -> VEX2: reversed move forms and commuted sources.
  if (opcode((N + "_REV").str()))
    Try((N + "_REV").str(), MI);
  if (D.isCommutable() && N.starts_with("V") && !N.contains("Z") &&
      D.getNumDefs() == 1 && I.Ops.size() == 3 && I.Ops[1].isReg() &&
      I.Ops[2].isReg()) {
    MCInst A = MI;
    MCOperand T = A.getOperand(1);
    A.getOperand(1) = A.getOperand(2);
    A.getOperand(2) = T;
    if (unsigned S = encodeSize(A))
      Best = std::min(Best, S);
  }
  // Sign extension of the accumulator: cbw/cwde/cdqe.
  if (N == "MOVSX32rr16" && I.Ops[0].Reg == reg("EAX") &&
      I.Ops[1].Reg == reg("AX"))
    Best = 1;
  if (N == "MOVSX64rr32" && I.Ops[0].Reg == reg("RAX") &&
      I.Ops[1].Reg == reg("EAX"))
    Best = 2;
  return Best;
}
