//===- MemoryWidthTest.cpp - Bytes each memory operand accesses -----------===//
//
// Part of decan. X86Knowledge::memWidth against LLVM's own tables, for
// every X86 opcode with a memory operand: the size LLVM's Intel printer
// names ("dword ptr", from the operand class) and, for EVEX forms, the
// disp8 scale in TSFlags (the access granularity the encoding defines).
// The exceptions are written down where they are checked.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;
using namespace decan;
using namespace decan::test;

namespace {

class MemoryWidthTest : public ::testing::Test {
protected:
  void SetUp() override {
    K = knowledge();
    ASSERT_TRUE(K);
    Triple TT("x86_64-unknown-linux-gnu");
    std::string Err;
    const Target *T = TargetRegistry::lookupTarget(TT, Err);
    ASSERT_TRUE(T) << Err;
    MAI.reset(T->createMCAsmInfo(K->regInfo(), TT, Options));
    Intel.reset(T->createMCInstPrinter(TT, /*Intel*/ 1, *MAI, K->instrInfo(),
                                       K->regInfo()));
    ASSERT_TRUE(Intel);
  }

  unsigned width(StringRef Opcode) {
    Instr I;
    I.Opcode = K->opcode(Opcode);
    EXPECT_NE(I.Opcode, 0u) << Opcode.str();
    return K->memWidth(I);
  }

  /// An instance of \p Op with [rax] (or [rax + xmm1] for a vector index)
  /// and the second register of each register operand's class, as decan's
  /// Instr and as MCInst; false for pseudos and other memory forms.
  bool instance(unsigned Op, Instr &I, MCInst &MI) {
    const MCInstrDesc &D = K->instrInfo().get(Op);
    int M = K->memOperandIndex(Op);
    if (M < 0 || D.isPseudo() || unsigned(M) + 5 > D.getNumOperands())
      return false;
    I = Instr();
    I.Opcode = Op;
    MI = MCInst();
    MI.setOpcode(Op);
    for (unsigned J = 0; J < D.getNumOperands(); ++J) {
      const MCOperandInfo &Info = D.operands()[J];
      bool Mem = J >= unsigned(M) && J < unsigned(M) + 5;
      if (Mem && Info.OperandType != MCOI::OPERAND_MEMORY)
        return false;
      MCRegister R;
      if (Info.RegClass >= 0) {
        const MCRegisterClass &RC = K->regInfo().getRegClass(Info.RegClass);
        if (RC.getNumRegs())
          R = RC.getRegister(RC.getNumRegs() > 1 ? 1 : 0);
      }
      if (J == unsigned(M)) {
        R = K->reg("RAX");
      } else if (J == unsigned(M) + 1 || J == unsigned(M) + 3) {
        I.Ops.push_back(Operand::imm(J == unsigned(M) + 1));
        MI.addOperand(MCOperand::createImm(J == unsigned(M) + 1));
        continue;
      } else if (Mem && !(J == unsigned(M) + 2 && K->isVector(R))) {
        R = MCRegister(); // no index (but a gather's), no segment
      } else if (!Mem && Info.OperandType != MCOI::OPERAND_REGISTER) {
        I.Ops.push_back(Operand::imm(0));
        MI.addOperand(MCOperand::createImm(0));
        continue;
      }
      I.Ops.push_back(Operand::reg(R));
      MI.addOperand(MCOperand::createReg(R));
    }
    return true;
  }

  /// The size LLVM's Intel printer names for the memory operand of \p MI;
  /// 0 when it names none.
  unsigned printedBytes(const MCInst &MI) {
    std::string Text;
    raw_string_ostream OS(Text);
    Intel->printInst(&MI, 0, "", K->subtarget(), OS);
    size_t Ptr = StringRef(Text).find(" ptr ");
    if (Ptr == StringRef::npos)
      return 0;
    StringRef Before = StringRef(Text).take_front(Ptr);
    StringRef Size = Before.substr(Before.find_last_of(" \t") + 1);
    return StringSwitch<unsigned>(Size)
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

  std::unique_ptr<X86Knowledge> K;
  MCTargetOptions Options;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCInstPrinter> Intel;
};

/// TSFlags fields of X86 instructions (X86II in LLVM 22's
/// lib/Target/X86/MCTargetDesc/X86BaseInfo.h, which LLVM does not install).
struct X86Flags {
  uint64_t TS;
  bool evex() const { return (TS >> 29 & 3) == 3; }     // EncodingShift
  bool apxMap4() const { return (TS >> 13 & 15) == 8; } // OpMapShift, T_MAP4
  /// The EVEX disp8*N scale N, 0 when none (CD8_Scale_Shift).
  unsigned disp8Scale() const {
    unsigned F = TS >> 45 & 7;
    return F ? 1u << (F - 1) : 0;
  }
};

} // namespace

TEST_F(MemoryWidthTest, BroadcastConversionsOfDwordsReadOneDword) {
  // {1toN} of 32-bit elements widened to 64-bit lanes: the memory operand
  // is one dword (a pure load of 8 bytes would read past the element).
  for (const char *Op : {"VCVTDQ2PD", "VCVTPS2PD", "VCVTPS2QQ", "VCVTUDQ2PD",
                         "VCVTPS2UQQ", "VCVTTPS2QQ", "VCVTTPS2UQQ"})
    for (const char *Len : {"Z", "Z128", "Z256"})
      for (const char *Form : {"rmb", "rmbk", "rmbkz"})
        EXPECT_EQ(width((Twine(Op) + Len + Form).str()), 4u)
            << Op << Len << Form;
  // ... and the other way round: one qword.
  EXPECT_EQ(width("VCVTQQ2PSZrmb"), 8u);
  EXPECT_EQ(width("VADDPDZrmb"), 8u);
  EXPECT_EQ(width("VADDPSZ128rmbk"), 4u);
}

TEST_F(MemoryWidthTest, OperandsNarrowerOrWiderThanTheRegisters) {
  EXPECT_EQ(width("CVTPS2PDrm"), 8u);    // xmm <- 2 floats
  EXPECT_EQ(width("VCVTDQ2PDYrm"), 16u); // ymm <- 4 ints
  EXPECT_EQ(width("VCVTPD2PSYrm"), 32u); // xmm <- 4 doubles
  EXPECT_EQ(width("VCVTPS2PHYmr"), 16u); // 8 halves stored
  EXPECT_EQ(width("VPSLLDYrm"), 16u);    // the count is an xmm
  EXPECT_EQ(width("VMOVDDUPYrm"), 32u);  // two pairs of doubles
  EXPECT_EQ(width("VPMAXSDrm"), 16u);    // packed, not scalar "SD"
  EXPECT_EQ(width("VBROADCASTSSZ128rm"), 4u);
  EXPECT_EQ(width("VPMOVDBZmr"), 16u); // 16 dwords narrowed to bytes
  EXPECT_EQ(width("MOVZX32rm8"), 1u);
  EXPECT_EQ(width("PREFETCHT0"), 1u);
}

TEST_F(MemoryWidthTest, AgreesWithTheOperandSizeLLVMPrints) {
  unsigned Checked = 0;
  for (unsigned Op = 1; Op < K->instrInfo().getNumOpcodes(); ++Op) {
    Instr I;
    MCInst MI;
    if (!instance(Op, I, MI))
      continue;
    unsigned Printed = printedBytes(MI);
    StringRef Name = K->opcodeName(Op);
    int M = K->memOperandIndex(Op);
    // Gathers and scatters print one element; decan counts them all.
    if (K->isVector(I.Ops[M + 2].Reg))
      continue;
    // LLVM 22 gives vmovw's store an i32mem operand; it writes 2 bytes.
    if (Name == "VMOVZPWILo2PWIZmr") {
      EXPECT_EQ(K->memWidth(I), 2u);
      continue;
    }
    // Opaque operands (xsave, fxsave, far pointers) name no size.
    if (!Printed)
      continue;
    ++Checked;
    EXPECT_EQ(K->memWidth(I), Printed) << Name.str();
  }
  EXPECT_GT(Checked, 10000u);
}

TEST_F(MemoryWidthTest, AgreesWithTheEVEXDisp8Scale) {
  // The decoding of TSFlags is LLVM 22's: check it on known forms first.
  auto Flags = [&](const char *Op) {
    return X86Flags{K->instrInfo().get(K->opcode(Op)).TSFlags};
  };
  ASSERT_TRUE(Flags("VADDPSZrm").evex());
  ASSERT_FALSE(Flags("VADDPSrm").evex());
  ASSERT_EQ(Flags("VADDPSZrm").disp8Scale(), 64u);
  ASSERT_EQ(Flags("VADDPSZ128rmb").disp8Scale(), 4u);
  ASSERT_EQ(Flags("VMOVSDZrm").disp8Scale(), 8u);
  unsigned Checked = 0;
  for (unsigned Op = 1; Op < K->instrInfo().getNumOpcodes(); ++Op) {
    X86Flags F{K->instrInfo().get(Op).TSFlags};
    Instr I;
    MCInst MI;
    if (!F.evex() || !F.disp8Scale() || !instance(Op, I, MI))
      continue;
    StringRef Name = K->opcodeName(Op);
    int M = K->memOperandIndex(Op);
    // APX's promoted legacy forms do not scale disp8; compress and expand
    // scale it by one element of the vector they may move; gathers and
    // scatters too (decan counts every element).
    if (F.apxMap4() || Name.contains("COMPRESS") || Name.contains("EXPAND") ||
        K->isVector(I.Ops[M + 2].Reg))
      continue;
    ++Checked;
    EXPECT_EQ(K->memWidth(I), F.disp8Scale()) << Name.str();
  }
  EXPECT_GT(Checked, 4000u);
}
