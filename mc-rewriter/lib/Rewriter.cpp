//===- Rewriter.cpp - Write a copy of an ELF file with decan's variants ---===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/Rewriter.h"
#include "decan/Rewriter/LoopCopy.h"

#include "decan/abi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstring>
#include <map>

using namespace llvm;
using namespace decan::rewriter;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

std::string decan::rewriter::loopWhere(const LoopCandidate &L) {
  return L.Function + "+0x" + utohexstr(L.Header - L.FunctionStart, true);
}

namespace {

const char *const VariantNames[] = {"REF", "LS", "FP", "NO_DIV", "DL1", "CTRL"};

//===----------------------------------------------------------------------===//
// A tiny assembler over MCInst: labels, rel32 branches, RIP-relative
// operands, alignment. Every position-dependent form has a fixed size
// (rel32, disp32), so one layout pass suffices.
//===----------------------------------------------------------------------===//

/// Where a branch or RIP-relative operand points.
struct Target {
  enum KindTy { Abs, Label, Data } Kind = Abs;
  uint64_t Value = 0; ///< address, label id, or offset in the RW segment
  static Target abs(uint64_t A) { return {Abs, A}; }
  static Target label(unsigned L) { return {Label, L}; }
  static Target data(uint64_t Off) { return {Data, Off}; }
};

struct Item {
  enum KindTy { Inst, Bind, Align, Rel32 } Kind = Inst;
  MCInst MI;
  enum FixTy { None, RipMem, Branch } Fix = None;
  int MemIdx = -1;
  Target T, T2; ///< Rel32: T - T2
  unsigned Label = 0, AlignTo = 1, AlignOff = 0;
  uint64_t Addr = 0;
  unsigned Size = 0;
};

class CodeBuffer {
public:
  explicit CodeBuffer(const X86Context &X86) : X86(X86) {}

  unsigned newLabel() {
    LabelAddr.push_back(0);
    return LabelAddr.size() - 1;
  }
  void bind(unsigned L) {
    Item I;
    I.Kind = Item::Bind;
    I.Label = L;
    Items.push_back(I);
  }
  void align(unsigned To, unsigned Off = 0) {
    Item I;
    I.Kind = Item::Align;
    I.AlignTo = To;
    I.AlignOff = Off % To;
    Items.push_back(I);
  }
  void inst(const MCInst &MI) {
    Item I;
    I.MI = MI;
    Items.push_back(I);
  }
  /// \p MI has a RIP-based memory operand whose displacement is filled in.
  void instRip(const MCInst &MI, Target T) {
    Item I;
    I.MI = MI;
    I.Fix = Item::RipMem;
    I.MemIdx = X86.memOperandIndex(MI);
    I.T = T;
    Items.push_back(I);
  }
  void jmp(Target T) { branch(X86.JMP_4, -1, T); }
  void jcc(unsigned CC, Target T) { branch(X86.JCC_4, CC, T); }
  void branch(unsigned Opc, int CC, Target T) {
    Item I;
    I.MI.setOpcode(Opc);
    I.MI.addOperand(MCOperand::createImm(0));
    if (CC >= 0)
      I.MI.addOperand(MCOperand::createImm(CC));
    I.Fix = Item::Branch;
    I.T = T;
    Items.push_back(I);
  }
  void rel32(Target A, Target B) {
    Item I;
    I.Kind = Item::Rel32;
    I.T = A;
    I.T2 = B;
    Items.push_back(I);
  }

  /// Assigns addresses from \p Base; returns the total size.
  Expected<uint64_t> layout(uint64_t Base) {
    this->Base = Base;
    uint64_t A = Base;
    for (Item &I : Items) {
      I.Addr = A;
      switch (I.Kind) {
      case Item::Bind:
        LabelAddr[I.Label] = A;
        I.Size = 0;
        break;
      case Item::Align:
        I.Size = (I.AlignOff - A % I.AlignTo + I.AlignTo) % I.AlignTo;
        break;
      case Item::Rel32:
        I.Size = 4;
        break;
      case Item::Inst: {
        if (I.Fix == Item::Branch) {
          I.Size = I.MI.getOpcode() == X86.JMP_4 ? 5 : 6;
          break;
        }
        MCInst Probe = I.MI;
        if (I.Fix == Item::RipMem)
          Probe.getOperand(I.MemIdx + 3) = MCOperand::createImm(0x7fff0000);
        I.Size = X86.encodedSize(Probe);
        if (!I.Size)
          return fail("cannot encode '" + X86.print(I.MI, 0) + "'");
        break;
      }
      }
      A += I.Size;
    }
    return A - Base;
  }

  /// Encodes every item; \p DataBase is the RW segment's address.
  Error encode(uint64_t DataBase, SmallVectorImpl<char> &Out) {
    for (Item &I : Items) {
      size_t Before = Out.size();
      switch (I.Kind) {
      case Item::Bind:
        break;
      case Item::Align:
        // Loop copies are entered by jumps, so padding never runs; multi-
        // byte NOPs (the instruction knowledge's) keep the bytes before a
        // copy decodable as a few instructions, not a run of 0x90s.
        if (Error E = appendNops(X86, I.Size, Out))
          return E;
        break;
      case Item::Rel32: {
        int64_t V = int64_t(resolve(I.T, DataBase) - resolve(I.T2, DataBase));
        uint32_t U = uint32_t(int32_t(V));
        for (int K = 0; K < 4; ++K)
          Out.push_back(char(U >> (8 * K)));
        break;
      }
      case Item::Inst: {
        MCInst MI = I.MI;
        if (I.Fix != Item::None) {
          int64_t Disp = int64_t(resolve(I.T, DataBase) - (I.Addr + I.Size));
          if (Disp != int64_t(int32_t(Disp)))
            return fail("new code too far from its target (over 2 GiB)");
          if (I.Fix == Item::Branch) {
            // rel32 forms, encoded here: MC would leave a fixup for them.
            if (MI.getOpcode() == X86.JMP_4) {
              Out.push_back(char(0xe9));
            } else {
              Out.push_back(char(0x0f));
              Out.push_back(char(0x80 | (MI.getOperand(1).getImm() & 15)));
            }
            uint32_t U = uint32_t(int32_t(Disp));
            for (int K = 0; K < 4; ++K)
              Out.push_back(char(U >> (8 * K)));
            break;
          }
          MI.getOperand(I.MemIdx + 3) = MCOperand::createImm(Disp);
        }
        if (Error E = X86.encode(MI, Out))
          return E;
        if (Out.size() - Before != I.Size)
          return fail("instruction size changed between layout and "
                      "encoding: '" +
                      X86.print(MI, I.Addr) + "'");
        break;
      }
      }
    }
    return Error::success();
  }

  uint64_t labelAddr(unsigned L) const { return LabelAddr[L]; }

private:
  uint64_t resolve(Target T, uint64_t DataBase) const {
    switch (T.Kind) {
    case Target::Abs:
      return T.Value;
    case Target::Label:
      return LabelAddr[T.Value];
    case Target::Data:
      return DataBase + T.Value;
    }
    return 0;
  }

  const X86Context &X86;
  std::vector<Item> Items;
  std::vector<uint64_t> LabelAddr;
  uint64_t Base = 0;
};

/// MCInst builders for the few forms the dispatcher uses (names looked up
/// once; X86 opcode enums are not installed).
class Asm {
public:
  Asm(const X86Context &X86, CodeBuffer &CB) : X86(X86), CB(CB) {
    auto Op = [&](const char *N) {
      unsigned O = X86.opcode(N);
      if (!O)
        Missing = N;
      return O;
    };
    LEA = Op("LEA64r");
    PUSHF = Op("PUSHF64");
    POPF = Op("POPF64");
    POPm = Op("POP64rmm");
    PUSHm = Op("PUSH64rmm");
    MOVmr = Op("MOV64mr");
    MOVrm = Op("MOV64rm");
    MOV32mr = Op("MOV32mr");
    MOV32mi = Op("MOV32mi");
    MOVmi = Op("MOV64mi32");
    AND = Op("AND64ri32");
    ADDri = Op("ADD64ri32");
    MOV32ri = Op("MOV32ri");
    XOR32 = Op("XOR32rr");
    XSAVE = Op("XSAVE64");
    XRSTOR = Op("XRSTOR64");
    CALLm = Op("CALL64m");
    JMPm = Op("JMP64m");
    LFENCE = Op("LFENCE");
    RDTSC = Op("RDTSC");
    RDTSCP = Op("RDTSCP");
    CMPmi = Op("CMP32mi");
    DECm = Op("DEC32m");
    CMPri = Op("CMP32ri");
    TEST = Op("TEST32rr");
    MOVSXrr = Op("MOVSX64rr32");
    MOVSXrm = Op("MOVSX64rm32");
    ADDrr = Op("ADD64rr");
    SUBrm = Op("SUB64rm");
    STMXCSR = Op("STMXCSR");
    LDMXCSR = Op("LDMXCSR");
    MOVrr = Op("MOV64rr");
    TEST64 = Op("TEST64rr");
    CQO = Op("CQO");
    IDIV = Op("IDIV64r");
    NEG = Op("NEG64r");
    MOVri = Op("MOV64ri32");
    ORrr = Op("OR64rr");
    for (const char *R : {"RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "R8",
                          "R9", "R10", "R11", "R12", "R13", "R14", "R15"})
      GPRs.push_back(X86.reg(R));
    RAX = X86.reg("RAX");
    RBX = X86.reg("RBX");
    RCX = X86.reg("RCX");
    RDX = X86.reg("RDX");
    RSI = X86.reg("RSI");
    RDI = X86.reg("RDI");
    R12 = X86.reg("R12");
    EAX = X86.reg("EAX");
    ECX = X86.reg("ECX");
    EDX = X86.reg("EDX");
    RSP = X86.RSP;
    RIP = X86.RIP;
  }

  const char *Missing = nullptr;

  static MCOperand R(unsigned Reg) { return MCOperand::createReg(Reg); }
  static MCOperand I(int64_t V) { return MCOperand::createImm(V); }
  /// Appends the 5 memory operands.
  static void mem(MCInst &MI, unsigned Base, int64_t Disp, unsigned Index = 0,
                  unsigned Scale = 1) {
    MI.addOperand(R(Base));
    MI.addOperand(I(Scale));
    MI.addOperand(R(Index));
    MI.addOperand(I(Disp));
    MI.addOperand(R(0));
  }
  MCInst make(unsigned Opc) {
    MCInst MI;
    MI.setOpcode(Opc);
    return MI;
  }

  // reg <- [base + disp]
  void load(unsigned Dst, unsigned Base, int64_t Disp) {
    MCInst MI = make(MOVrm);
    MI.addOperand(R(Dst));
    mem(MI, Base, Disp);
    CB.inst(MI);
  }
  void store(unsigned Base, int64_t Disp, unsigned Src, bool Is32 = false) {
    MCInst MI = make(Is32 ? MOV32mr : MOVmr);
    mem(MI, Base, Disp);
    MI.addOperand(R(Src));
    CB.inst(MI);
  }
  void storeImm(unsigned Base, int64_t Disp, int64_t V, bool Is32) {
    MCInst MI = make(Is32 ? MOV32mi : MOVmi);
    mem(MI, Base, Disp);
    MI.addOperand(I(V));
    CB.inst(MI);
  }
  void lea(unsigned Dst, unsigned Base, int64_t Disp) {
    MCInst MI = make(LEA);
    MI.addOperand(R(Dst));
    mem(MI, Base, Disp);
    CB.inst(MI);
  }
  void leaRip(unsigned Dst, Target T) {
    MCInst MI = make(LEA);
    MI.addOperand(R(Dst));
    mem(MI, RIP, 0);
    CB.instRip(MI, T);
  }
  void movrr(unsigned Dst, unsigned Src) {
    MCInst MI = make(MOVrr);
    MI.addOperand(R(Dst));
    MI.addOperand(R(Src));
    CB.inst(MI);
  }
  void andImm(unsigned Reg, int64_t V) {
    MCInst MI = make(AND);
    MI.addOperand(R(Reg));
    MI.addOperand(R(Reg));
    MI.addOperand(I(V));
    CB.inst(MI);
  }
  void orrr(unsigned Dst, unsigned Src) {
    MCInst MI = make(ORrr);
    MI.addOperand(R(Dst));
    MI.addOperand(R(Dst));
    MI.addOperand(R(Src));
    CB.inst(MI);
  }
  void addImm(unsigned Reg, int64_t V) {
    MCInst MI = make(ADDri);
    MI.addOperand(R(Reg));
    MI.addOperand(R(Reg));
    MI.addOperand(I(V));
    CB.inst(MI);
  }
  void simple(unsigned Opc) { CB.inst(make(Opc)); }
  void pushMem(unsigned Base, int64_t Disp) {
    MCInst MI = make(PUSHm);
    mem(MI, Base, Disp);
    CB.inst(MI);
  }
  void popMem(unsigned Base, int64_t Disp) {
    MCInst MI = make(POPm);
    mem(MI, Base, Disp);
    CB.inst(MI);
  }
  /// xsave64/xrstor64 (%Base) of x87, SSE, AVX and AVX-512 state.
  void xsaveLike(unsigned Opc, unsigned Base) {
    MCInst M1 = make(MOV32ri);
    M1.addOperand(R(EAX));
    M1.addOperand(I(0xe7));
    CB.inst(M1);
    MCInst M2 = make(XOR32);
    M2.addOperand(R(EDX));
    M2.addOperand(R(EDX));
    M2.addOperand(R(EDX));
    CB.inst(M2);
    MCInst MI = make(Opc);
    mem(MI, Base, 0);
    CB.inst(MI);
  }
  void callRip(Target T) {
    MCInst MI = make(CALLm);
    mem(MI, RIP, 0);
    CB.instRip(MI, T);
  }
  void jmpMem(unsigned Base, int64_t Disp) {
    MCInst MI = make(JMPm);
    mem(MI, Base, Disp);
    CB.inst(MI);
  }
  void cmpRipImm(Target T, int64_t V) {
    MCInst MI = make(CMPmi);
    mem(MI, RIP, 0);
    MI.addOperand(I(V));
    CB.instRip(MI, T);
  }
  void decRip(Target T) {
    MCInst MI = make(DECm);
    mem(MI, RIP, 0);
    CB.instRip(MI, T);
  }
  void cmpImm(unsigned Reg32, int64_t V) {
    MCInst MI = make(CMPri);
    MI.addOperand(R(Reg32));
    MI.addOperand(I(V));
    CB.inst(MI);
  }
  void testSelf(unsigned Reg32) {
    MCInst MI = make(TEST);
    MI.addOperand(R(Reg32));
    MI.addOperand(R(Reg32));
    CB.inst(MI);
  }
  void mxcsr(unsigned Opc, unsigned Base, int64_t Disp) {
    MCInst MI = make(Opc);
    mem(MI, Base, Disp);
    CB.inst(MI);
  }
  /// Dst <- Base + sext(int32 at [Base + Idx*4]).
  void tableTarget(unsigned Dst, unsigned Base, unsigned Idx) {
    MCInst MI = make(MOVSXrm);
    MI.addOperand(R(Dst));
    mem(MI, Base, 0, Idx, 4);
    CB.inst(MI);
    MCInst A = make(ADDrr);
    A.addOperand(R(Dst));
    A.addOperand(R(Dst));
    A.addOperand(R(Base));
    CB.inst(A);
  }

  const X86Context &X86;
  CodeBuffer &CB;
  unsigned LEA, PUSHF, POPF, POPm, PUSHm, MOVmr, MOVrm, MOV32mr, MOV32mi, MOVmi,
      AND, ADDri, MOV32ri, XOR32, XSAVE, XRSTOR, CALLm, JMPm, LFENCE, RDTSC,
      RDTSCP, CMPmi, DECm, CMPri, TEST, MOVSXrr, MOVSXrm, ADDrr, SUBrm, STMXCSR,
      LDMXCSR, MOVrr, TEST64, CQO, IDIV, NEG, MOVri, ORrr;
  std::vector<unsigned> GPRs;
  unsigned RAX, RBX, RCX, RDX, RSI, RDI, R12, EAX, ECX, EDX, RSP, RIP;
};

// X86 condition codes (X86::CondCode order).
constexpr unsigned CC_E = 4, CC_NE = 5, CC_S = 8, CC_NS = 9, CC_A = 7,
                   CC_G = 15;

//===----------------------------------------------------------------------===//
// The measured-call frame, below the red zone of the interrupted code:
//
//   orig rsp - 128 .. orig rsp   red zone (untouched)
//   new rsp = orig rsp - FrameDelta
//   [new rsp + 0]   variant index      [+8]  TSC at entry
//   [+16] TSC at exit                   [+24] exit index  [+28] MXCSR
//   [+32] indirect jump target          [+40] xsave area pointer
//   [+48] flags at entry                [+56] flags at exit
//   [+64] 15 GPRs at entry              [+184] 15 GPRs at exit
//   [+304] two 64-byte aligned xsave areas
//
// Variants run with rsp = new rsp (so a signal handler's frame lands below
// the saved state) and their rsp-relative operands displaced by FrameDelta.
//===----------------------------------------------------------------------===//
constexpr int64_t OffV = 0, OffT0 = 8, OffT1 = 16, OffExit = 24, OffMx = 28,
                  OffTgt = 32, OffXP = 40, OffF0 = 48, OffF1 = 56, OffG0 = 64,
                  OffG1 = 184, OffXS = 304;
constexpr int64_t XSaveSize = 2752; // >= 2688: x87+SSE+AVX+AVX-512, 64-multiple
constexpr int64_t FrameSize = alignTo(OffXS + 2 * XSaveSize + 64, 16);
constexpr int64_t FrameDelta = FrameSize + 128;

/// Layout of the RW segment, as offsets from its start.
struct DataLayout {
  uint64_t DescsOff = 0, MInfoOff = 0, StringsOff = 0, ScratchOff = 0, Size = 0;
  std::string Strings;
  std::map<std::string, uint64_t> StringAt;
  uint64_t str(const std::string &S) {
    auto It = StringAt.find(S);
    if (It != StringAt.end())
      return It->second;
    uint64_t O = Strings.size();
    Strings += S;
    Strings.push_back('\0');
    StringAt[S] = O;
    return O;
  }
};

struct PlannedLoop {
  const LoopCandidate *L = nullptr;
  LoopVariants V;
  unsigned DescIndex = 0;
  uint64_t IdOff = 0, FuncOff = 0, FileOff = 0, ScratchOff = 0;
  unsigned StubLabel = 0;
  /// Labels around each variant's copy (measured copies) and the
  /// unmeasured relocated loop.
  std::array<unsigned, DECAN_NUM_VARIANTS> CopyBegin{}, CopyEnd{};
  unsigned OrigBegin = 0, OrigEnd = 0;
};

class LoopEmitter {
public:
  LoopEmitter(const X86Context &X86, CodeBuffer &CB, Asm &A, PlannedLoop &P,
              uint64_t DescOff)
      : X86(X86), CB(CB), A(A), P(P), L(*P.L), DescOff(DescOff) {}

  void emit();

private:
  uint64_t activeOff() const {
    return DescOff + offsetof(decan_loop_desc, active);
  }
  uint64_t countdownOff() const {
    return DescOff + offsetof(decan_loop_desc, countdown);
  }
  /// Emits one copy; exits go where \p Exit says.
  void emitCopy(const LoopCopy &C, bool Measured,
                const std::function<Target(uint64_t)> &Exit);
  void saveGPRs(int64_t Off, unsigned Skip = 0);
  void restoreGPRs(int64_t Off);
  void callRuntime(uint64_t HeaderFieldOff);
  void emitTrips();

  const X86Context &X86;
  CodeBuffer &CB;
  Asm &A;
  PlannedLoop &P;
  const LoopCandidate &L;
  uint64_t DescOff;
};

void LoopEmitter::saveGPRs(int64_t Off, unsigned Skip) {
  for (unsigned K = 0; K < A.GPRs.size(); ++K)
    if (!(Skip & (1u << K)))
      A.store(A.RSP, Off + 8 * K, A.GPRs[K]);
}

void LoopEmitter::restoreGPRs(int64_t Off) {
  for (unsigned K = 0; K < A.GPRs.size(); ++K)
    A.load(A.GPRs[K], A.RSP, Off + 8 * K);
}

void LoopEmitter::callRuntime(uint64_t HeaderFieldOff) {
  // The ABI wants a 16-byte aligned stack at the call; r12 is callee-saved.
  A.movrr(A.R12, A.RSP);
  A.andImm(A.RSP, -16);
  A.callRip(Target::data(HeaderFieldOff));
  A.movrr(A.RSP, A.R12);
}

/// rcx <- trip count of the timed call: (induction register at exit - at
/// entry) / step, from the two saved GPR sets (outside the timed region,
/// nothing added to the loop); 0 when the loop has no induction register
/// or the quotient is negative. Clobbers rax, rdx (saved already).
void LoopEmitter::emitTrips() {
  auto Zero = [&] {
    MCInst MI = A.make(A.XOR32);
    MI.addOperand(Asm::R(A.ECX));
    MI.addOperand(Asm::R(A.ECX));
    MI.addOperand(Asm::R(A.ECX));
    CB.inst(MI);
  };
  int K = -1;
  for (unsigned G = 0; G < A.GPRs.size() && P.V.IndReg; ++G)
    if (X86.regInfo().isSuperRegisterEq(P.V.IndReg, A.GPRs[G]))
      K = int(G);
  if (K < 0 || P.V.IndStep == 0 || P.V.IndStep != int32_t(P.V.IndStep)) {
    Zero();
    return;
  }
  A.load(A.RAX, A.RSP, OffG1 + 8 * K);
  {
    MCInst MI = A.make(A.SUBrm);
    MI.addOperand(Asm::R(A.RAX));
    MI.addOperand(Asm::R(A.RAX));
    Asm::mem(MI, A.RSP, OffG0 + 8 * K);
    CB.inst(MI);
  }
  if (P.V.Ind32) { // a 32-bit counter: the difference modulo 2^32
    MCInst MI = A.make(A.MOVSXrr);
    MI.addOperand(Asm::R(A.RAX));
    MI.addOperand(Asm::R(A.EAX));
    CB.inst(MI);
  }
  if (P.V.IndStep == -1) {
    MCInst MI = A.make(A.NEG);
    MI.addOperand(Asm::R(A.RAX));
    MI.addOperand(Asm::R(A.RAX));
    CB.inst(MI);
  } else if (P.V.IndStep != 1) {
    MCInst M1 = A.make(A.MOVri);
    M1.addOperand(Asm::R(A.RCX));
    M1.addOperand(Asm::I(P.V.IndStep));
    CB.inst(M1);
    A.simple(A.CQO);
    MCInst M2 = A.make(A.IDIV);
    M2.addOperand(Asm::R(A.RCX));
    CB.inst(M2);
  }
  A.movrr(A.RCX, A.RAX);
  unsigned Done = CB.newLabel();
  {
    MCInst MI = A.make(A.TEST64);
    MI.addOperand(Asm::R(A.RCX));
    MI.addOperand(Asm::R(A.RCX));
    CB.inst(MI);
  }
  CB.jcc(CC_NS, Target::label(Done));
  Zero();
  CB.bind(Done);
}

void LoopEmitter::emitCopy(const LoopCopy &C, bool Measured,
                           const std::function<Target(uint64_t)> &Exit) {
  std::map<uint64_t, unsigned> Labels;
  for (const CopyBlock &B : C.Blocks)
    Labels[B.Start] = CB.newLabel();
  auto To = [&](uint64_t Addr) {
    auto It = Labels.find(Addr);
    return It != Labels.end() ? Target::label(It->second) : Exit(Addr);
  };
  // Same offset modulo 64 as the original header: REF and every variant
  // see the original's cache-line layout.
  CB.align(64, L.Header % 64);
  for (size_t K = 0; K < C.Blocks.size(); ++K) {
    const CopyBlock &B = C.Blocks[K];
    CB.bind(Labels[B.Start]);
    for (const CopyInst &CI : B.Instrs) {
      if (CI.IsBranch) {
        bool Cond =
            CI.MI.getOpcode() == X86.JCC_1 || CI.MI.getOpcode() == X86.JCC_4;
        CB.branch(Cond ? X86.JCC_4 : X86.JMP_4,
                  Cond ? int(CI.MI.getOperand(1).getImm()) : -1,
                  To(CI.BranchTarget));
        continue;
      }
      MCInst MI = CI.MI;
      int Mem = X86.memOperandIndex(MI);
      if (Measured && Mem >= 0 && MI.getOperand(Mem).isReg() &&
          MI.getOperand(Mem).getReg() == X86.RSP)
        MI.getOperand(Mem + 3) =
            MCOperand::createImm(MI.getOperand(Mem + 3).getImm() + FrameDelta);
      if (CI.HasScratch)
        CB.instRip(MI, Target::data(P.ScratchOff + CI.ScratchOff));
      else if (CI.HasRip)
        CB.instRip(MI, Target::abs(CI.RipTarget));
      else
        CB.inst(MI);
    }
    if (B.FallThrough &&
        (K + 1 == C.Blocks.size() || C.Blocks[K + 1].Start != B.FallThrough))
      CB.jmp(To(B.FallThrough));
  }
}

void LoopEmitter::emit() {
  unsigned OrigLabel = CB.newLabel(), Measured = CB.newLabel(),
           RestoreOrig = CB.newLabel(), RerunRef = CB.newLabel(),
           Common = CB.newLabel(), VTable = CB.newLabel(),
           ETable = CB.newLabel();
  // Exit addresses, in a fixed order.
  std::vector<uint64_t> Exits;
  for (const LoopBlock &B : L.Blocks)
    for (uint64_t S : B.Succs)
      if (!L.contains(S) && !is_contained(Exits, S))
        Exits.push_back(S);

  // --- Stub: one load and branch when the descriptor is inactive; an
  // active one goes to the runtime on every countdown-th call (abi.h).
  CB.align(16);
  CB.bind(P.StubLabel);
  if (L.FlagsLiveIn) {
    unsigned Inline = CB.newLabel(), MFlags = CB.newLabel();
    A.lea(A.RSP, A.RSP, -128);
    A.simple(A.PUSHF);
    A.cmpRipImm(Target::data(activeOff()), 0);
    CB.jcc(CC_E, Target::label(Inline));
    A.cmpRipImm(Target::data(activeOff()), 2);
    CB.jcc(CC_NE, Target::label(MFlags));
    A.decRip(Target::data(countdownOff()));
    CB.jcc(CC_G, Target::label(Inline));
    CB.bind(MFlags);
    A.simple(A.POPF);
    A.lea(A.RSP, A.RSP, 128);
    CB.jmp(Target::label(Measured));
    CB.bind(Inline);
    A.simple(A.POPF);
    A.lea(A.RSP, A.RSP, 128);
    CB.jmp(Target::label(OrigLabel));
  } else {
    A.cmpRipImm(Target::data(activeOff()), 0);
    CB.jcc(CC_E, Target::label(OrigLabel));
    A.cmpRipImm(Target::data(activeOff()), 2);
    CB.jcc(CC_NE, Target::label(Measured));
    A.decRip(Target::data(countdownOff()));
    CB.jcc(CC_G, Target::label(OrigLabel));
    CB.jmp(Target::label(Measured));
  }

  // --- The relocated original loop: exits return to the original code.
  unsigned OrigBody = CB.newLabel();
  (void)OrigBody;
  {
    // Bind OrigLabel at the copy's header (after its alignment).
    LoopCopy C = P.V.Copies[DECAN_REF];
    CB.align(64, L.Header % 64);
    CB.bind(OrigLabel);
    P.OrigBegin = OrigLabel;
    emitCopy(C, /*Measured=*/false,
             [](uint64_t Addr) { return Target::abs(Addr); });
    P.OrigEnd = CB.newLabel();
    CB.bind(P.OrigEnd);
  }

  // --- Measured path: save the whole state, ask the runtime.
  CB.align(16);
  CB.bind(Measured);
  A.lea(A.RSP, A.RSP, -FrameDelta);
  A.simple(A.PUSHF);
  A.popMem(A.RSP, OffF0);
  saveGPRs(OffG0);
  A.lea(A.RBX, A.RSP, OffXS + 63);
  A.andImm(A.RBX, -64);
  A.store(A.RSP, OffXP, A.RBX);
  for (int64_t Area : {int64_t(0), XSaveSize})
    for (int K = 0; K < 8; ++K) // XSAVE leaves the header's reserved bytes
      A.storeImm(A.RBX, Area + 512 + 8 * K, 0, false);
  A.xsaveLike(A.XSAVE, A.RBX);
  A.leaRip(A.RDI, Target::data(DescOff));
  callRuntime(offsetof(decan_rewritten_header, begin_call));
  {
    MCInst MI = A.make(A.MOVSXrr);
    MI.addOperand(Asm::R(A.RAX));
    MI.addOperand(Asm::R(A.EAX));
    CB.inst(MI);
  }
  A.store(A.RSP, OffV, A.RAX);
  A.testSelf(A.EAX);
  CB.jcc(CC_S, Target::label(RestoreOrig));
  A.cmpImm(A.EAX, DECAN_NUM_VARIANTS - 1);
  CB.jcc(CC_A, Target::label(RestoreOrig));
  // The runtime has set the FP environment for the timed call: keep its
  // MXCSR across the state restore.
  A.mxcsr(A.STMXCSR, A.RSP, OffMx);
  A.leaRip(A.RCX, Target::label(VTable));
  A.tableTarget(A.RDX, A.RCX, A.RAX);
  A.store(A.RSP, OffTgt, A.RDX);
  A.load(A.RBX, A.RSP, OffXP);
  A.xsaveLike(A.XRSTOR, A.RBX);
  A.mxcsr(A.LDMXCSR, A.RSP, OffMx);
  // Start the clock, restore the entry registers and flags, enter the copy
  // whose address is at OffTgt (the measured path and the rerun share it).
  auto StartTimedCopy = [&] {
    A.simple(A.LFENCE);
    A.simple(A.RDTSC);
    A.store(A.RSP, OffT0, A.EAX, true);
    A.store(A.RSP, OffT0 + 4, A.EDX, true);
    restoreGPRs(OffG0);
    A.pushMem(A.RSP, OffF0);
    A.simple(A.POPF);
    A.jmpMem(A.RSP, OffTgt);
  };
  StartTimedCopy();

  // --- Variant copies; their exits stop the clock and join Common.
  std::array<unsigned, DECAN_NUM_VARIANTS> VariantLabel{};
  std::vector<std::pair<unsigned, std::vector<unsigned>>> Trampolines;
  for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V) {
    if (!(P.V.Mask & (1u << V)))
      continue;
    std::vector<unsigned> ExitLabels;
    for (size_t K = 0; K < Exits.size(); ++K)
      ExitLabels.push_back(CB.newLabel());
    const LoopCopy &C = P.V.Copies[V];
    CB.align(64, L.Header % 64);
    VariantLabel[V] = CB.newLabel();
    CB.bind(VariantLabel[V]);
    emitCopy(C, /*Measured=*/true, [&](uint64_t Addr) {
      for (size_t K = 0; K < Exits.size(); ++K)
        if (Exits[K] == Addr)
          return Target::label(ExitLabels[K]);
      // An exit only a variant has cannot happen: variants keep the CFG.
      return Target::label(ExitLabels.empty() ? RestoreOrig : ExitLabels[0]);
    });
    P.CopyBegin[V] = VariantLabel[V];
    P.CopyEnd[V] = CB.newLabel();
    CB.bind(P.CopyEnd[V]);
    CB.align(16);
    for (size_t K = 0; K < Exits.size(); ++K) {
      CB.bind(ExitLabels[K]);
      A.store(A.RSP, OffG1 + 0 * 8, A.RAX);
      A.store(A.RSP, OffG1 + 2 * 8, A.RCX);
      A.store(A.RSP, OffG1 + 3 * 8, A.RDX);
      A.simple(A.RDTSCP);
      A.simple(A.LFENCE);
      A.store(A.RSP, OffT1, A.EAX, true);
      A.store(A.RSP, OffT1 + 4, A.EDX, true);
      A.storeImm(A.RSP, OffExit, K, true);
      CB.jmp(Target::label(Common));
    }
  }
  // Each entry of the variant table: copy - table (REF where not built).
  CB.align(4);
  CB.bind(VTable);
  for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
    CB.rel32(Target::label(VariantLabel[(P.V.Mask >> V) & 1 ? V : 0]),
             Target::label(VTable));

  // --- Common exit: save the variant's final state, tell the runtime.
  CB.align(16);
  CB.bind(Common);
  saveGPRs(OffG1, /*Skip rax, rcx, rdx*/ 0b1101);
  A.simple(A.PUSHF);
  A.popMem(A.RSP, OffF1);
  A.load(A.RBX, A.RSP, OffXP);
  A.addImm(A.RBX, XSaveSize);
  A.xsaveLike(A.XSAVE, A.RBX);
  emitTrips();
  A.load(A.RDX, A.RSP, OffT1);
  {
    MCInst MI = A.make(A.SUBrm);
    MI.addOperand(Asm::R(A.RDX));
    MI.addOperand(Asm::R(A.RDX));
    Asm::mem(MI, A.RSP, OffT0);
    CB.inst(MI);
  }
  A.load(A.RSI, A.RSP, OffV);
  A.leaRip(A.RDI, Target::data(DescOff));
  callRuntime(offsetof(decan_rewritten_header, end_call));
  A.testSelf(A.EAX);
  CB.jcc(CC_NE, Target::label(RerunRef));
  // The timed copy's results stand (REF): continue at its exit with its
  // final state, but the program's own MXCSR: its control bits at entry,
  // and the sticky flags the copy raised (the program's loop raised them).
  {
    MCInst MI = A.make(A.MOVSXrm);
    MI.addOperand(Asm::R(A.RAX));
    Asm::mem(MI, A.RSP, OffExit);
    CB.inst(MI);
  }
  A.leaRip(A.RCX, Target::label(ETable));
  A.tableTarget(A.RDX, A.RCX, A.RAX);
  A.store(A.RSP, OffTgt, A.RDX);
  A.load(A.RBX, A.RSP, OffXP);
  A.load(A.RCX, A.RBX, XSaveSize + 24); // MXCSR of the final state
  A.andImm(A.RCX, 0x3F);                // its exception flags
  A.load(A.RDX, A.RBX, 24);             // MXCSR of the entry state
  A.orrr(A.RDX, A.RCX);
  A.store(A.RSP, OffMx, A.EDX, /*Is32=*/true);
  A.addImm(A.RBX, XSaveSize);
  A.xsaveLike(A.XRSTOR, A.RBX);
  A.mxcsr(A.LDMXCSR, A.RSP, OffMx);
  restoreGPRs(OffG1);
  A.pushMem(A.RSP, OffF1);
  A.simple(A.POPF);
  A.jmpMem(A.RSP, OffTgt);
  std::vector<unsigned> ExitStubs;
  for (uint64_t E : Exits) {
    unsigned S = CB.newLabel();
    ExitStubs.push_back(S);
    CB.bind(S);
    A.lea(A.RSP, A.RSP, FrameDelta);
    CB.jmp(Target::abs(E));
  }
  CB.align(4);
  CB.bind(ETable);
  for (unsigned S : ExitStubs)
    CB.rel32(Target::label(S), Target::label(ETable));

  // --- After a variant: back to the entry state (the program's MXCSR
  // included), then the REF copy, timed, reported with DECAN_RERUN: the
  // call's real work and the trip count of the same input.
  CB.align(16);
  CB.bind(RerunRef);
  A.load(A.RBX, A.RSP, OffXP);
  A.xsaveLike(A.XRSTOR, A.RBX);
  // end_call learns which variant the original follows: v | DECAN_RERUN.
  A.load(A.RAX, A.RSP, OffV);
  A.addImm(A.RAX, DECAN_RERUN);
  A.store(A.RSP, OffV, A.RAX);
  A.leaRip(A.RCX, Target::label(VariantLabel[DECAN_REF]));
  A.store(A.RSP, OffTgt, A.RCX);
  StartTimedCopy();

  // --- Not measured: back to the entry state, then the original loop.
  CB.align(16);
  CB.bind(RestoreOrig);
  A.load(A.RBX, A.RSP, OffXP);
  A.xsaveLike(A.XRSTOR, A.RBX);
  restoreGPRs(OffG0);
  A.pushMem(A.RSP, OffF0);
  A.simple(A.POPF);
  A.lea(A.RSP, A.RSP, FrameDelta);
  CB.jmp(Target::label(OrigLabel));
}

//===----------------------------------------------------------------------===//
// .decan.meta records
//===----------------------------------------------------------------------===//

void appendMeta(std::string &Out, const LoopCandidate &L, unsigned Mask,
                const decan_machine_info &MI, const std::string &Reason,
                unsigned BoundMask = 0) {
  decan_meta_record R{};
  R.bound_mask = BoundMask;
  memcpy(R.magic, "DCN1", 4);
  R.abi_version = DECAN_ABI_VERSION;
  R.variant_mask = Mask;
  R.line = L.Line;
  R.column = 0;
  std::string Strings =
      L.id() + '\0' + L.Function + '\0' + L.File + '\0' + Reason + '\0';
  R.strings_size = Strings.size();
  R.record_size = alignTo(sizeof(R) + Strings.size(), 8);
  R.minfo = MI;
  size_t Start = Out.size();
  Out.append(reinterpret_cast<const char *>(&R), sizeof(R));
  Out += Strings;
  Out.resize(Start + R.record_size, '\0');
}

template <typename T> void put(std::string &S, uint64_t Off, const T &V) {
  if (S.size() < Off + sizeof(T))
    S.resize(Off + sizeof(T), '\0');
  memcpy(&S[Off], &V, sizeof(T));
}

} // namespace

Expected<RewriteResult>
decan::rewriter::rewriteBinary(const BinaryImage &Bin, const X86Context &X86,
                               const std::vector<LoopCandidate> &Loops,
                               StringRef OutPath, const RewriteOptions &Opts) {
  using namespace llvm::ELF;
  if (sys::fs::equivalent(Bin.path(), OutPath))
    return fail("refusing to overwrite the input '" + Bin.path() + "'");
  RewriteResult Result;
  StringRef In = Bin.bytes();
  // Raw little-endian structures (validated by BinaryImage; host is x86-64).
  Elf64_Ehdr EH;
  memcpy(&EH, In.data(), sizeof(EH));
  if (EH.e_shstrndx == SHN_XINDEX || EH.e_shnum >= SHN_LORESERVE)
    return fail("'" + Bin.path() + "': too many sections to add decan's");

  // --- Which loops are rewritten, and their variants.
  std::vector<PlannedLoop> Plan;
  std::string Meta;
  for (const LoopCandidate &L : Loops) {
    LoopOutcome O;
    O.Id = L.id();
    O.Where = loopWhere(L);
    O.File = L.File;
    O.Line = L.Line;
    O.Header = L.Header;
    std::string Reason = L.SkipReason;
    if (Reason.empty() && !Opts.OnlyLoops.empty() &&
        !is_contained(Opts.OnlyLoops, O.Id))
      Reason = "not selected";
    LoopVariants V;
    if (Reason.empty()) {
      Expected<LoopVariants> VOr = buildVariants(X86, L, Opts.VariantMask | 1);
      if (!VOr)
        Reason = toString(VOr.takeError());
      else
        V = std::move(*VOr);
    }
    if (Reason.empty() && !Bin.fileOffset(L.Header))
      Reason = "loop header not mapped from the file";
    O.Reason = Reason;
    O.Rewritten = Reason.empty();
    O.VariantMask = O.Rewritten ? V.Mask : 0;
    for (unsigned K = 0; K < DECAN_NUM_VARIANTS; ++K)
      if (!V.Notes[K].empty())
        O.VariantNotes.push_back(std::string(VariantNames[K]) + ": " +
                                 V.Notes[K]);
    // The table lists every variant attempted (its status says why one is
    // missing), like the plugin; descriptors carry only the built ones.
    appendMeta(Meta, L, O.Rewritten ? (Opts.VariantMask | 1) : 0, V.MInfo,
               Reason, V.BoundMask);
    Result.Loops.push_back(O);
    if (O.Rewritten) {
      PlannedLoop P;
      P.L = &L;
      P.V = std::move(V);
      P.DescIndex = Plan.size();
      Plan.push_back(std::move(P));
    }
  }

  // --- RW segment layout: header, descriptors, machine info, strings,
  // scratch.
  DataLayout DL;
  DL.DescsOff = alignTo(sizeof(decan_rewritten_header), 64);
  DL.MInfoOff = alignTo(DL.DescsOff + Plan.size() * sizeof(decan_loop_desc), 8);
  uint64_t AfterMInfo = DL.MInfoOff + Plan.size() * sizeof(decan_machine_info);
  for (PlannedLoop &P : Plan) {
    P.IdOff = DL.str(P.L->id());
    P.FuncOff = DL.str(P.L->Function);
    P.FileOff = DL.str(P.L->File);
  }
  DL.StringsOff = AfterMInfo;
  DL.ScratchOff = alignTo(DL.StringsOff + DL.Strings.size(), 4096);
  uint64_t ScratchAt = DL.ScratchOff;
  for (PlannedLoop &P : Plan) {
    P.ScratchOff = ScratchAt;
    // A page-aligned area per loop: the runtime touches it before the timed
    // call so DL1 never pays a first-touch TLB miss (thesis 6.5.4).
    ScratchAt += alignTo(std::max(P.V.ScratchSize, 64u), 4096);
  }
  DL.Size = ScratchAt;

  // --- Code.
  CodeBuffer CB(X86);
  Asm A(X86, CB);
  if (A.Missing)
    return fail(Twine("LLVM's X86 tables lack opcode ") + A.Missing);
  for (PlannedLoop &P : Plan) {
    P.StubLabel = CB.newLabel();
    LoopEmitter(X86, CB, A, P,
                DL.DescsOff + P.DescIndex * sizeof(decan_loop_desc))
        .emit();
  }

  // --- File layout. New segments go past every existing one, congruent to
  // their file offsets like the first PT_LOAD (so AT_PHDR is right even on
  // kernels that compute it from the first segment).
  std::vector<Elf64_Phdr> Phdrs(EH.e_phnum);
  std::vector<Elf64_Shdr> Shdrs(EH.e_shnum);
  if (EH.e_phoff + Phdrs.size() * sizeof(Elf64_Phdr) > In.size() ||
      EH.e_shoff + Shdrs.size() * sizeof(Elf64_Shdr) > In.size() ||
      EH.e_shstrndx >= Shdrs.size())
    return fail("'" + Bin.path() + "': corrupt headers");
  memcpy(Phdrs.data(), In.data() + EH.e_phoff,
         Phdrs.size() * sizeof(Elf64_Phdr));
  memcpy(Shdrs.data(), In.data() + EH.e_shoff,
         Shdrs.size() * sizeof(Elf64_Shdr));
  const Elf64_Phdr *First = nullptr;
  uint64_t MaxEnd = 0;
  int LastLoad = -1;
  for (size_t K = 0; K < Phdrs.size(); ++K)
    if (Phdrs[K].p_type == PT_LOAD) {
      if (!First)
        First = &Phdrs[K];
      MaxEnd = std::max<uint64_t>(MaxEnd, Phdrs[K].p_vaddr + Phdrs[K].p_memsz);
      LastLoad = K;
    }
  const uint64_t Page = 4096;
  uint64_t Delta = First->p_vaddr - First->p_offset;
  if (MaxEnd < Delta || (Delta % Page))
    return fail("'" + Bin.path() + "': unusual first PT_LOAD segment");
  uint64_t CodeOff =
      alignTo(std::max<uint64_t>(In.size(), MaxEnd - Delta), Page);
  uint64_t CodeVaddr = CodeOff + Delta;
  unsigned NewPhnum = Phdrs.size() + 2;
  uint64_t PhdrBytes = NewPhnum * sizeof(Elf64_Phdr);
  uint64_t TextStart = CodeVaddr + alignTo(PhdrBytes, 64);
  Expected<uint64_t> CodeSizeOr = CB.layout(TextStart);
  if (!CodeSizeOr)
    return CodeSizeOr.takeError();
  uint64_t CodeSegSize = (TextStart - CodeVaddr) + *CodeSizeOr;
  uint64_t DataOff = alignTo(CodeOff + CodeSegSize, Page);
  uint64_t DataVaddr = DataOff + Delta;
  SmallVector<char, 0> Code;
  if (Error E = CB.encode(DataVaddr, Code))
    return std::move(E);

  // RW segment contents in the file; the scratch areas after them are
  // zero-filled memory only (like .bss).
  std::string Data(DL.ScratchOff, '\0');
  {
    decan_rewritten_header H{};
    memcpy(H.magic, "DECANRW1", 8);
    H.abi_version = DECAN_ABI_VERSION;
    H.count = Plan.size();
    H.descs_offset = DL.DescsOff;
    put(Data, 0, H);
    for (PlannedLoop &P : Plan) {
      decan_loop_desc D{};
      D.abi_version = DECAN_ABI_VERSION;
      D.variant_mask = P.V.Mask;
      D.line = P.L->Line;
      D.id = reinterpret_cast<const char *>(DL.StringsOff + P.IdOff);
      D.function = reinterpret_cast<const char *>(DL.StringsOff + P.FuncOff);
      D.file = reinterpret_cast<const char *>(DL.StringsOff + P.FileOff);
      D.scratch = reinterpret_cast<void *>(P.ScratchOff);
      D.scratch_size = std::max(P.V.ScratchSize, 64u);
      D.bound_mask = P.V.BoundMask;
      D.minfo = reinterpret_cast<const decan_machine_info *>(
          DL.MInfoOff + P.DescIndex * sizeof(decan_machine_info));
      put(Data, DL.DescsOff + P.DescIndex * sizeof(decan_loop_desc), D);
      put(Data, DL.MInfoOff + P.DescIndex * sizeof(decan_machine_info),
          P.V.MInfo);
    }
    memcpy(&Data[DL.StringsOff], DL.Strings.data(), DL.Strings.size());
  }

  // Program headers: PT_PHDR moves, two PT_LOADs follow the last one.
  std::vector<Elf64_Phdr> NewPh;
  for (size_t K = 0; K < Phdrs.size(); ++K) {
    Elf64_Phdr P = Phdrs[K];
    if (P.p_type == PT_PHDR) {
      P.p_offset = CodeOff;
      P.p_vaddr = P.p_paddr = CodeVaddr;
      P.p_filesz = P.p_memsz = PhdrBytes;
    }
    NewPh.push_back(P);
    if (int(K) == LastLoad) {
      Elf64_Phdr C{};
      C.p_type = PT_LOAD;
      C.p_flags = PF_R | PF_X;
      C.p_offset = CodeOff;
      C.p_vaddr = C.p_paddr = CodeVaddr;
      C.p_filesz = C.p_memsz = CodeSegSize;
      C.p_align = Page;
      NewPh.push_back(C);
      Elf64_Phdr D{};
      D.p_type = PT_LOAD;
      D.p_flags = PF_R | PF_W;
      D.p_offset = DataOff;
      D.p_vaddr = D.p_paddr = DataVaddr;
      D.p_filesz = Data.size();
      D.p_memsz = DL.Size;
      D.p_align = Page;
      NewPh.push_back(D);
    }
  }

  // Sections: the originals (indices unchanged), a longer .shstrtab, and
  // .decan.text, .decan.data, .decan.meta.
  std::string ShStr;
  {
    const Elf64_Shdr &S = Shdrs[EH.e_shstrndx];
    ShStr = In.substr(S.sh_offset, S.sh_size).str();
  }
  auto AddName = [&](StringRef N) {
    uint64_t O = ShStr.size();
    ShStr += N.str();
    ShStr.push_back('\0');
    return O;
  };
  uint64_t MetaOff = DataOff + Data.size();
  MetaOff = alignTo(MetaOff, 8);
  uint64_t ShStrOff = MetaOff + Meta.size();
  Elf64_Shdr Text{}, DataSec{}, MetaSec{};
  Text.sh_name = AddName(".decan.text");
  Text.sh_type = SHT_PROGBITS;
  Text.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
  Text.sh_addr = TextStart;
  Text.sh_offset = CodeOff + (TextStart - CodeVaddr);
  Text.sh_size = *CodeSizeOr;
  Text.sh_addralign = 64;
  DataSec.sh_name = AddName(".decan.data");
  DataSec.sh_type = SHT_PROGBITS;
  DataSec.sh_flags = SHF_ALLOC | SHF_WRITE;
  DataSec.sh_addr = DataVaddr;
  DataSec.sh_offset = DataOff;
  DataSec.sh_size = Data.size();
  DataSec.sh_addralign = Page;
  Elf64_Shdr Scratch{};
  Scratch.sh_name = AddName(".decan.scratch");
  Scratch.sh_type = SHT_NOBITS;
  Scratch.sh_flags = SHF_ALLOC | SHF_WRITE;
  Scratch.sh_addr = DataVaddr + DL.ScratchOff;
  Scratch.sh_offset = DataOff + DL.ScratchOff;
  Scratch.sh_size = DL.Size - DL.ScratchOff;
  Scratch.sh_addralign = Page;
  MetaSec.sh_name = AddName(".decan.meta");
  MetaSec.sh_type = SHT_PROGBITS;
  MetaSec.sh_offset = MetaOff;
  MetaSec.sh_size = Meta.size();
  MetaSec.sh_addralign = 8;
  Shdrs[EH.e_shstrndx].sh_offset = ShStrOff;
  Shdrs[EH.e_shstrndx].sh_size = ShStr.size();
  Shdrs.push_back(Text);
  Shdrs.push_back(DataSec);
  if (Scratch.sh_size)
    Shdrs.push_back(Scratch);
  Shdrs.push_back(MetaSec);
  uint64_t ShOff = alignTo(ShStrOff + ShStr.size(), 8);

  // --- Write: original bytes with the patched jumps, then the new parts.
  std::string Out = In.str();
  for (PlannedLoop &P : Plan) {
    uint64_t Off = *Bin.fileOffset(P.L->Header);
    int64_t Rel = int64_t(CB.labelAddr(P.StubLabel)) - int64_t(P.L->Header + 5);
    if (Rel != int64_t(int32_t(Rel)))
      return fail("new code too far from the loop at " + loopWhere(*P.L));
    Out[Off] = char(0xe9);
    uint32_t U = uint32_t(int32_t(Rel));
    memcpy(&Out[Off + 1], &U, 4);
  }
  Elf64_Ehdr NewEH = EH;
  NewEH.e_phoff = CodeOff;
  NewEH.e_phnum = NewPh.size();
  NewEH.e_shoff = ShOff;
  NewEH.e_shnum = Shdrs.size();
  memcpy(&Out[0], &NewEH, sizeof(NewEH));
  // The pieces at their offsets; gaps (up to past a large .bss) are left as
  // holes, so the file stays sparse.
  std::string Tail = Meta + ShStr;
  Tail.resize(ShOff - MetaOff, '\0');
  Tail.append(reinterpret_cast<const char *>(Shdrs.data()),
              Shdrs.size() * sizeof(Elf64_Shdr));
  std::string TextBytes(reinterpret_cast<const char *>(NewPh.data()),
                        PhdrBytes);
  TextBytes.resize(TextStart - CodeVaddr, 0);
  TextBytes.append(Code.data(), Code.size());
  const std::pair<uint64_t, const std::string *> Pieces[] = {
      {0, &Out}, {CodeOff, &TextBytes}, {DataOff, &Data}, {MetaOff, &Tail}};

  // Write to a temporary name, then rename: never a half-written output.
  std::string Tmp = (OutPath + ".tmp").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC, sys::fs::OF_None);
    if (EC)
      return fail("cannot write '" + Tmp + "': " + EC.message());
    for (auto [Off, Bytes] : Pieces) {
      if (OS.tell() != Off)
        OS.seek(Off);
      OS << *Bytes;
    }
    OS.close();
    if (OS.has_error())
      return fail("cannot write '" + Tmp + "': " + OS.error().message());
  }
  // Same permissions as the input (executables stay executable).
  if (auto Perms = sys::fs::getPermissions(Bin.path()))
    sys::fs::setPermissions(Tmp, *Perms);
  if (std::error_code EC = sys::fs::rename(Tmp, OutPath))
    return fail("cannot rename '" + Tmp + "' to '" + OutPath +
                "': " + EC.message());
  for (size_t K = 0, N = 0; K < Result.Loops.size(); ++K) {
    if (!Result.Loops[K].Rewritten)
      continue;
    const PlannedLoop &P = Plan[N++];
    LoopOutcome &O = Result.Loops[K];
    O.StubAddr = CB.labelAddr(P.StubLabel);
    O.OrigCopy = {CB.labelAddr(P.OrigBegin), CB.labelAddr(P.OrigEnd)};
    for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
      if (P.V.Mask & (1u << V))
        O.Copies[V] = {CB.labelAddr(P.CopyBegin[V]),
                       CB.labelAddr(P.CopyEnd[V])};
  }
  Result.CodeAddr = TextStart;
  Result.CodeSize = *CodeSizeOr;
  Result.DataAddr = DataVaddr;
  Result.DataSize = DL.Size;
  return Result;
}
