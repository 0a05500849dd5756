//===- RulesTest.cpp - Variant rules, idioms, NOPs, layout ----------------===//
//
// Part of decan's tests. Over 600 lines on purpose: one test per rule and
// variant, each a few lines of input and expected output.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/Variants.h"
#include "decan/InstrKnowledge/Verifier.h"
#include "decan/abi_names.h"

#include <cmath>
#include <cstring>
#include <set>

using llvm::Expected;

using namespace decan;
using namespace decan::test;

namespace {
class RulesTest : public ::testing::Test {
protected:
  void SetUp() override { K = knowledge(); }
  VariantResult build(const LoopBody &L, Variant V,
                      LayoutMode M = LayoutMode::Aware) {
    LoopSubsets S = computeSubsets(*K, L);
    VariantOptions O;
    O.Layout = M;
    return buildVariant(*K, L, S, V, O);
  }
  /// The variant instructions standing for REF instruction \p Id.
  std::vector<Instr> of(const VariantResult &R, unsigned Id) {
    std::vector<Instr> Out;
    for (const Instr &I : R.Body.Instrs)
      if (I.Id == Id)
        Out.push_back(I);
    return Out;
  }
  std::string name(const Instr &I) { return K->opcodeName(I.Opcode).str(); }
  std::unique_ptr<X86Knowledge> K;
};
} // namespace

TEST_F(RulesTest, NopsHaveExactLengths) {
  for (unsigned N = 1; N <= 15; ++N) {
    unsigned Sum = 0, Real = 0;
    for (const Instr &I : K->nop(N)) {
      Sum += *K->sizeOf(I);
      Real += K->opcodeName(I.Opcode).starts_with("NOOP");
      EXPECT_TRUE(I.Padding);
    }
    EXPECT_EQ(Sum, N);
    EXPECT_EQ(Real, 1u) << "one NOP instruction for " << N << " bytes";
  }
  unsigned Sum = 0;
  for (const Instr &I : K->nops(40))
    Sum += *K->sizeOf(I);
  EXPECT_EQ(Sum, 40u);
}

TEST_F(RulesTest, SizeOracleMatchesTheAssembler) {
  // Lengths llvm-mc gives these instructions.
  EXPECT_EQ(*K->sizeOf(ins(*K, "ADD64ri32", {"RCX", "RCX", "#8"})), 4u);
  EXPECT_EQ(*K->sizeOf(ins(*K, "ADD64ri32", {"RAX", "RAX", "#1000"})), 6u);
  EXPECT_EQ(*K->sizeOf(ins(*K, "SHL32ri", {"EDX", "EDX", "#1"})), 2u);
  EXPECT_EQ(*K->sizeOf(
                ins(*K, "VMOVUPDYrm", {"YMM1", "RDI", "#8", "RAX", "#0", "-"})),
            5u);
  // vmovaps %xmm8, %xmm0 fits VEX2 through the reversed form.
  EXPECT_EQ(*K->sizeOf(ins(*K, "VMOVAPSrr", {"XMM0", "XMM8"})), 4u);
}

TEST_F(RulesTest, IdiomsReadNothingAndDivIdiomIsNormal) {
  for (const char *R : {"XMM3", "YMM3", "ZMM3", "XMM20", "YMM17"}) {
    std::vector<Instr> Z = K->idiom(K->reg(R), IdiomValue::Zero);
    ASSERT_FALSE(Z.empty()) << R;
    llvm::SmallVector<unsigned, 4> Reads;
    K->regsRead(Z[0], Reads);
    EXPECT_TRUE(Reads.empty()) << R << " zero idiom reads a register";
    std::vector<Instr> N = K->idiom(K->reg(R), IdiomValue::Normal);
    ASSERT_GE(N.size(), 2u) << R;
    Reads.clear();
    K->regsRead(N[0], Reads);
    EXPECT_TRUE(Reads.empty()) << R << " normal idiom starts from nothing";
  }
  // The lanes the Normal idiom leaves: all ones >> 2 per 32-bit lane.
  uint32_t Lane = 0xffffffffu >> 2;
  float F;
  std::memcpy(&F, &Lane, 4);
  uint64_t Q = (uint64_t)Lane << 32 | Lane;
  double D;
  std::memcpy(&D, &Q, 8);
  EXPECT_TRUE(std::isnormal(F));
  EXPECT_TRUE(std::isnormal(D));
  EXPECT_GT(D, 1.0);
  // GPR divisors: mov $3, never 0.
  std::vector<Instr> G = K->idiom(K->reg("RSI"), IdiomValue::NonZero);
  ASSERT_EQ(G.size(), 1u);
  EXPECT_EQ(name(G[0]), "MOV32ri");
  EXPECT_EQ(G[0].Ops[1].Imm, 3);
}

TEST_F(RulesTest, LoadOpBecomesPureLoadInLS) {
  LoopBody L = loop(*K, {ins(*K, "VADDPDYrm",
                             {"YMM2", "YMM1", "RDI", "#8", "RCX", "#0", "-"})});
  VariantResult R = build(L, Variant::LS);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "VMOVUPSYrm");
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("YMM2"));
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("RDI")); // same address
  EXPECT_EQ(I[0].Ops[3].Reg, K->reg("RCX"));
  EXPECT_EQ(R.Bytes, R.RefBytes);
}

TEST_F(RulesTest, LoadOpKeepsArithmeticWithTheOtherSourceInFP) {
  // AVX: the other source, never the destination (Table 6.1 V2).
  LoopBody L = loop(*K, {ins(*K, "VADDPDrm",
                             {"XMM2", "XMM6", "R15", "#1", "-", "#192", "-"})});
  VariantResult R = build(L, Variant::FP);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "VADDPDrr");
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("XMM6"));
  EXPECT_EQ(I[0].Ops[2].Reg, K->reg("XMM6"));
  // SSE two-operand: the tied source (already read by the original).
  LoopBody L2 = loop(
      *K,
      {ins(*K, "MULSDrm", {"XMM0", "XMM0", "RDI", "#8", "RCX", "#0", "-"})});
  VariantResult R2 = build(L2, Variant::FP);
  ASSERT_EQ(R2.Status, VariantStatus::OK) << R2.Reason;
  EXPECT_EQ(name(of(R2, 0)[0]), "MULSDrr");
  EXPECT_EQ(of(R2, 0)[0].Ops[2].Reg, K->reg("XMM0"));
  EXPECT_EQ(R2.Bytes, R2.RefBytes);
}

TEST_F(RulesTest, StorePolicyPerVariant) {
  auto Mk = [&] {
    LoopBody L =
        loop(*K, {ins(*K, "MOVSDrm", {"XMM0", "RSI", "#8", "RCX", "#0", "-"}),
                  ins(*K, "MOVSDmr", {"RDI", "#8", "RCX", "#0", "-", "XMM0"})});
    L.FreeRegs = {K->reg("XMM5")};
    return L;
  };
  VariantResult LS = build(Mk(), Variant::LS);
  ASSERT_EQ(LS.Status, VariantStatus::OK) << LS.Reason;
  Instr St = of(LS, 1)[0];
  EXPECT_EQ(name(St), "MOVSDrm"); // same address and width, as a load
  EXPECT_EQ(St.Ops[0].Reg, K->reg("XMM5"));
  EXPECT_EQ(St.Ops[1].Reg, K->reg("RDI"));
  VariantResult FP = build(Mk(), Variant::FP);
  ASSERT_EQ(FP.Status, VariantStatus::OK) << FP.Reason;
  EXPECT_TRUE(of(FP, 1).empty()); // deleted: only padding remains
  EXPECT_EQ(FP.Bytes, FP.RefBytes);
  VariantResult DL1 = build(Mk(), Variant::DL1);
  ASSERT_EQ(DL1.Status, VariantStatus::OK) << DL1.Reason;
  Instr S = of(DL1, 1)[0];
  EXPECT_EQ(name(S), "MOVSDmr"); // still a store, into the scratch area
  EXPECT_EQ(S.Ops[0].Reg, K->reg("RIP"));
  EXPECT_EQ(S.Ops[3].Kind, Operand::Scratch);
  Instr Ld = of(DL1, 0)[0];
  EXPECT_EQ(Ld.Ops[4].Kind, Operand::Scratch); // dst, then the address
  // Stores of a moving array never share a line with loads.
  EXPECT_GE(std::llabs(S.Ops[3].Imm - Ld.Ops[4].Imm), 64);
}

TEST_F(RulesTest, DivOperandsFromDeletedLoadsAreNormal) {
  // FP: xmm1 = b[i] (deleted); x /= xmm1 (kept).
  LoopBody L =
      loop(*K, {ins(*K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#0", "-"}),
                ins(*K, "DIVSDrr", {"XMM0", "XMM0", "XMM1"})});
  VariantResult R = build(L, Variant::FP);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 0);
  ASSERT_GE(I.size(), 2u);
  EXPECT_TRUE(name(I[0]).find("PCMPEQD") != std::string::npos) << name(I[0]);
  EXPECT_TRUE(name(I[1]).find("PSRLD") != std::string::npos) << name(I[1]);
  EXPECT_EQ(I[1].Ops.back().Imm, 2);
  // Not a div input: a plain zero idiom.
  LoopBody L2 =
      loop(*K, {ins(*K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#0", "-"}),
                ins(*K, "ADDSDrr", {"XMM0", "XMM0", "XMM1"})});
  VariantResult R2 = build(L2, Variant::FP);
  ASSERT_EQ(R2.Status, VariantStatus::OK) << R2.Reason;
  EXPECT_TRUE(name(of(R2, 0)[0]).find("XORPS") != std::string::npos);
  // NO_DIV deletes the division (tied: its reader keeps XMM0's chain).
  VariantResult R3 = build(L, Variant::NO_DIV);
  ASSERT_EQ(R3.Status, VariantStatus::OK) << R3.Reason;
  EXPECT_TRUE(of(R3, 1).empty());
}

TEST_F(RulesTest, CtrlSliceIsNeverTouched) {
  // Data-dependent exit: the a[i] load and the compare stay in every
  // variant, byte for byte.
  LoopBody L =
      loop(*K,
           {ins(*K, "MOV32rm", {"EAX", "RDI", "#4", "RCX", "#0", "-"}),
            ins(*K, "CMP32rr", {"EAX", "R8D"}), ins(*K, "JCC_1", {"#0", "#4"}),
            ins(*K, "ADD32rm", {"R9D", "R9D", "RSI", "#4", "RCX", "#0", "-"})},
           "#1");
  L.Blocks[0].Exiting = true;
  for (Variant V : {Variant::LS, Variant::FP, Variant::DL1, Variant::CTRL}) {
    VariantResult R = build(L, V);
    ASSERT_EQ(R.Status, VariantStatus::OK) << variantName(V) << R.Reason;
    for (unsigned Id : {0u, 1u, 2u, 4u, 5u, 6u}) {
      std::vector<Instr> I = of(R, Id);
      ASSERT_EQ(I.size(), 1u) << variantName(V) << " #" << Id;
      EXPECT_TRUE(I[0].Unchanged) << variantName(V) << " #" << Id;
    }
    // DL1's RIP-relative operands are longer than (%rsi,%rcx,4).
    if (V != Variant::DL1)
      EXPECT_EQ(R.Bytes, R.RefBytes) << variantName(V);
  }
}

TEST_F(RulesTest, LayoutModes) {
  LoopBody L =
      loop(*K, {ins(*K, "VMOVUPDYrm", {"YMM1", "RDI", "#8", "RCX", "#0", "-"}),
                ins(*K, "VMULPDYrr", {"YMM2", "YMM2", "YMM1"}),
                ins(*K, "VADDPDYrr", {"YMM3", "YMM3", "YMM2"})});
  VariantResult A = build(L, Variant::CTRL, LayoutMode::Aware);
  VariantResult N1 = build(L, Variant::CTRL, LayoutMode::Nop1);
  VariantResult U = build(L, Variant::CTRL, LayoutMode::Unaware);
  ASSERT_EQ(A.Status, VariantStatus::OK);
  ASSERT_EQ(N1.Status, VariantStatus::OK);
  ASSERT_EQ(U.Status, VariantStatus::OK);
  EXPECT_EQ(A.Bytes, A.RefBytes);
  unsigned Ctrl = *K->sizeOf(L.Instrs[3]) + *K->sizeOf(L.Instrs[4]) +
                  *K->sizeOf(L.Instrs[5]);
  EXPECT_EQ(N1.Bytes, Ctrl + 3); // three 1-byte NOPs
  EXPECT_EQ(U.Bytes, Ctrl);
}

TEST_F(RulesTest, UnsupportedInstructionMakesVariantsUnavailable) {
  LoopBody L =
      loop(*K, {ins(*K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#0", "-"}),
                ins(*K, "CPUID", {})});
  for (Variant V : {Variant::LS, Variant::FP, Variant::DL1, Variant::CTRL,
                    Variant::NO_CALL}) {
    VariantResult R = build(L, V);
    EXPECT_EQ(R.Status, VariantStatus::Unsupported) << variantName(V);
    EXPECT_NE(R.Reason.find("CPUID"), std::string::npos) << R.Reason;
    EXPECT_EQ(R.Why, DECAN_WHY_INSTRUCTION);
    EXPECT_EQ(R.Body.Instrs.size(), L.Instrs.size()); // left as REF
  }
  EXPECT_EQ(build(L, Variant::REF).Status, VariantStatus::OK);
}

TEST_F(RulesTest, EmptyVariants) {
  LoopBody L = loop(*K, {ins(*K, "ADDSDrr", {"XMM0", "XMM0", "XMM1"})});
  EXPECT_EQ(build(L, Variant::NO_DIV).Status, VariantStatus::Empty);
  EXPECT_EQ(build(L, Variant::DL1).Status, VariantStatus::Empty);
}

TEST_F(RulesTest, EmptyBecauseTheWorkIsTheExitTest) {
  // while (a[i] != key) i++: the load and the arithmetic all feed the exit.
  LoopBody Search =
      loop(*K, {ins(*K, "CMP64rm", {"RSI", "RDI", "#8", "RCX", "#0", "-"}),
                ins(*K, "JCC_1", {"#0", "#4"})});
  for (Variant V : {Variant::FP, Variant::DL1}) {
    VariantResult R = build(Search, V);
    EXPECT_EQ(R.Status, VariantStatus::Empty) << variantName(V);
    EXPECT_EQ(R.Why, DECAN_WHY_MEMORY_FEEDS_CONTROL) << variantName(V);
  }
  EXPECT_EQ(build(Search, Variant::LS).Why, DECAN_WHY_ARITH_FEEDS_CONTROL);
  EXPECT_EQ(build(Search, Variant::CTRL).Why, DECAN_WHY_ALL_CONTROL);
  // Absent, not in the control slice: said as absent.
  LoopBody NoMemory = loop(*K, {ins(*K, "ADDSDrr", {"XMM0", "XMM0", "XMM1"})});
  EXPECT_EQ(build(NoMemory, Variant::DL1).Why, DECAN_WHY_NO_MEMORY);
  EXPECT_EQ(build(NoMemory, Variant::NO_DIV).Why, DECAN_WHY_NO_DIV);
}

TEST_F(RulesTest, GatherIsALoadButHasNoScratchForm) {
  LoopBody L = loop(*K, {ins(*K, "VGATHERDPDYrm",
                             {"YMM0", "YMM2", "YMM0", "RDI", "#8", "XMM1", "#0",
                              "-", "YMM2"}),
                         ins(*K, "VADDPDYrr", {"YMM3", "YMM3", "YMM0"})});
  EXPECT_EQ(build(L, Variant::LS).Status, VariantStatus::OK);
  EXPECT_EQ(build(L, Variant::FP).Status, VariantStatus::OK);
  VariantResult D = build(L, Variant::DL1);
  EXPECT_EQ(D.Status, VariantStatus::Unsupported);
  EXPECT_NE(D.Reason.find("vector index"), std::string::npos) << D.Reason;
}

TEST_F(RulesTest, SymbolicArraysKeepRelativeOffsetsInDL1) {
  // A(,%rcx,8) and A+8(,%rcx,8): one array; B(,%rcx,8): another.
  auto Mem = [&](const char *Op, uint64_t Key, int64_t Off) {
    Instr I = ins(*K, Op, {"XMM0", "-", "#8", "RCX", "#0", "-"});
    I.Ops[4] = Operand::sym(4, Key, Off);
    return I;
  };
  LoopBody L = loop(*K, {Mem("VMOVSDrm", 11, 8), Mem("VMOVSDrm", 11, 0),
                         Mem("VMOVSDrm", 23, 0)});
  LoopSubsets S = computeSubsets(*K, L);
  Expected<ScratchLayout> SL = layoutScratch(*K, L, S, 8192);
  ASSERT_TRUE(!!SL);
  EXPECT_EQ(SL->Offset[0] - SL->Offset[1], 8);
  EXPECT_GE(SL->Offset[2] - SL->Offset[0], 56);
  EXPECT_EQ(SL->Offset[2] % 64, 0);
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_EQ(of(R, 0)[0].Ops[4].Kind, Operand::Scratch);
}

TEST_F(RulesTest, LiveOutInductionVariableStaysInCTRL) {
  // for (...) { x += a[j]; j += 1; }  with j read after the loop (trips).
  LoopBody L = loop(
      *K, {ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RDI", "#8", "RSI", "#0", "-"}),
           ins(*K, "INC64r", {"R9", "R9"})});
  L.LiveOuts = {K->reg("R9")};
  LoopSubsets S = computeSubsets(*K, L);
  EXPECT_TRUE(S.Bits[1] & SubsetCtrl);
  VariantResult R = build(L, Variant::CTRL);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  ASSERT_EQ(of(R, 1).size(), 1u);
  EXPECT_TRUE(of(R, 1)[0].Unchanged);
  // Not live out: CTRL deletes it.
  L.LiveOuts.clear();
  EXPECT_FALSE(computeSubsets(*K, L).Bits[1] & SubsetCtrl);
}

TEST_F(RulesTest, IntToFPConversionReadsAZeroedFreeGPRInFP) {
  // cvtsi2sdl (%rdi,%rcx,4), %xmm1 ; addsd %xmm1, %xmm0 ; flags rewritten by
  // the loop's add before the branch reads them.
  auto K2 = knowledge("x86-64-v2");
  LoopBody L = loop(
      *K2, {ins(*K2, "CVTSI2SDrm", {"XMM1", "RDI", "#4", "RCX", "#0", "-"}),
            ins(*K2, "ADDSDrr", {"XMM0", "XMM0", "XMM1"})});
  L.FreeRegs = {K2->reg("RAX")};
  LoopSubsets S = computeSubsets(*K2, L);
  VariantResult R = buildVariant(*K2, L, S, Variant::FP, {});
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I;
  for (const Instr &X : R.Body.Instrs)
    if (X.Id == 0)
      I.push_back(X);
  ASSERT_EQ(I.size(), 2u);
  EXPECT_EQ(K2->opcodeName(I[0].Opcode), "XOR32rr");
  EXPECT_EQ(I[0].Ops[0].Reg, K2->reg("EAX"));
  EXPECT_EQ(K2->opcodeName(I[1].Opcode), "CVTSI2SDrr");
  EXPECT_EQ(I[1].Ops[1].Reg, K2->reg("EAX"));
  // xorl + cvtsi2sd %eax is one byte longer than cvtsi2sdl (mem): no
  // padding here to borrow from, so the loop grows and says so.
  EXPECT_EQ(R.Bytes, R.RefBytes + 1);
  EXPECT_NE(R.Reason.find("grew by 1"), std::string::npos) << R.Reason;
  // Without a free GPR: unavailable, with the reason.
  L.FreeRegs.clear();
  VariantResult R2 =
      buildVariant(*K2, L, computeSubsets(*K2, L), Variant::FP, {});
  EXPECT_EQ(R2.Status, VariantStatus::Unsupported);
}

TEST_F(RulesTest, MalformedOperandListsAreRefusedNotEncoded) {
  Instr Bad = ins(*K, "ADDSDrr", {"XMM0", "XMM0"}); // one operand short
  Expected<unsigned> S = K->sizeOf(Bad);
  ASSERT_FALSE(!!S);
  EXPECT_NE(llvm::toString(S.takeError()).find("takes 3 operands"),
            std::string::npos);
}

TEST_F(RulesTest, IntegerDivisionOfLoadedValuesIsNeverRisked) {
  // eax = a[i]; cdq; idiv b[i]: FP would divide by an idiom, DL1 by the
  // zero-filled scratch area; both are refused, LS and NO_DIV delete the
  // division and stay available.
  LoopBody L =
      loop(*K, {ins(*K, "MOV32rm", {"EAX", "RDI", "#4", "RCX", "#0", "-"}),
                ins(*K, "CDQ", {}),
                ins(*K, "IDIV32m", {"RSI", "#4", "RCX", "#0", "-"}),
                ins(*K, "ADD32rr", {"R8D", "R8D", "EAX"})});
  // The bound in R9: cdq/idiv write EDX, which loop() compares against.
  L.Instrs[5] = ins(*K, "CMP64rr", {"RCX", "R9"});
  L.Instrs[5].Id = 5;
  L.FreeRegs = {K->reg("R10")}; // the divisor load of LS/NO_DIV lands here
  for (Variant V : {Variant::FP, Variant::DL1}) {
    VariantResult R = build(L, V);
    EXPECT_EQ(R.Status, VariantStatus::Unsupported) << variantName(V);
    EXPECT_NE(R.Reason.find("could trap"), std::string::npos) << R.Reason;
  }
  EXPECT_EQ(build(L, Variant::LS).Status, VariantStatus::OK);
  EXPECT_EQ(build(L, Variant::NO_DIV).Status, VariantStatus::OK);
  EXPECT_EQ(build(L, Variant::CTRL).Status, VariantStatus::OK);
}

TEST_F(RulesTest, MaskedStoreBecomesMaskedLoadInLS) {
  // vmaskmovpd %ymm0, %ymm3, (%rdi,%rcx,8): lanes outside the mask may be
  // unmapped, so LS loads with the same mask, never the full width.
  LoopBody L = loop(*K, {ins(*K, "VMASKMOVPDYmr",
                             {"RDI", "#8", "RCX", "#0", "-", "YMM3", "YMM0"})});
  L.FreeRegs = {K->reg("XMM5")};
  VariantResult R = build(L, Variant::LS);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "VMASKMOVPDYrm");
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("YMM5"));
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("YMM3"));
  EXPECT_EQ(I[0].Ops[2].Reg, K->reg("RDI"));
  EXPECT_EQ(R.Bytes, R.RefBytes);
}

TEST_F(RulesTest, KMaskedStoreBecomesZeroMaskedLoadInLS) {
  // vmovupd %zmm0, (%rdi,%rcx,8) {%k1}
  LoopBody L = loop(*K, {ins(*K, "VMOVUPDZmrk",
                             {"RDI", "#8", "RCX", "#0", "-", "K1", "ZMM0"})});
  L.FreeRegs = {K->reg("XMM6")};
  VariantResult R = build(L, Variant::LS);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "VMOVUPDZrmkz");
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("ZMM6"));
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("K1"));
  EXPECT_EQ(I[0].Ops[2].Reg, K->reg("RDI"));
}

TEST_F(RulesTest, NoDivBridgesTheDivision) {
  // Three-operand form: the dividend passes through, as a register copy.
  LoopBody L = loop(*K, {ins(*K, "VDIVSDrr", {"XMM0", "XMM1", "XMM2"}),
                         ins(*K, "VADDSDrr", {"XMM1", "XMM0", "XMM3"})});
  VariantResult R = build(L, Variant::NO_DIV);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "VMOVAPSrr");
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("XMM0"));
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("XMM1"));
  EXPECT_EQ(R.Bytes, R.RefBytes);
  // vsqrtsd %xmm2, %xmm1, %xmm0: the value comes from the last source.
  LoopBody Q = loop(*K, {ins(*K, "VSQRTSDr", {"XMM0", "XMM1", "XMM2"}),
                         ins(*K, "VADDSDrr", {"XMM2", "XMM0", "XMM3"})});
  VariantResult RQ = build(Q, Variant::NO_DIV);
  ASSERT_EQ(RQ.Status, VariantStatus::OK) << RQ.Reason;
  ASSERT_EQ(of(RQ, 0).size(), 1u);
  EXPECT_EQ(of(RQ, 0)[0].Ops[1].Reg, K->reg("XMM2"));
  // Integer division: EDX:EAX are read and written, deleting keeps them.
  LoopBody D = loop(*K, {ins(*K, "DIV32r", {"R8D"}),
                         ins(*K, "ADD32rr", {"R9D", "R9D", "EAX"})});
  D.Instrs[3] = ins(*K, "CMP64rr", {"RCX", "R10"}); // not EDX: div writes it
  D.Instrs[3].Id = 3;
  VariantResult RD = build(D, Variant::NO_DIV);
  ASSERT_EQ(RD.Status, VariantStatus::OK) << RD.Reason;
  EXPECT_TRUE(of(RD, 0).empty());
}

TEST_F(RulesTest, NoDivKeepsTheLoadOfADivisionFromMemory) {
  // divsd (%rsi,%rcx,8), %xmm0 in a recurrence: the load stays (into a
  // free register), the chain through XMM0 too (two-operand: nothing
  // else); the three-operand form copies its dividend.
  auto K2 = knowledge("x86-64-v2");
  LoopBody L = loop(*K2, {ins(*K2, "DIVSDrm",
                              {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"}),
                          ins(*K2, "ADDSDrr", {"XMM1", "XMM1", "XMM0"})});
  L.FreeRegs = {K2->reg("XMM7")};
  VariantResult R =
      buildVariant(*K2, L, computeSubsets(*K2, L), Variant::NO_DIV, {});
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I;
  for (const Instr &X : R.Body.Instrs)
    if (X.Id == 0 && !X.Padding)
      I.push_back(X);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(K2->opcodeName(I[0].Opcode), "MOVSDrm");
  EXPECT_EQ(I[0].Ops[0].Reg, K2->reg("XMM7"));
  LoopBody A = loop(
      *K, {ins(*K, "VDIVSDrm", {"XMM0", "XMM1", "RSI", "#8", "RCX", "#0", "-"}),
           ins(*K, "VADDSDrr", {"XMM1", "XMM1", "XMM0"})});
  A.FreeRegs = {K->reg("XMM7")};
  VariantResult RA = build(A, Variant::NO_DIV);
  ASSERT_EQ(RA.Status, VariantStatus::OK) << RA.Reason;
  std::vector<Instr> IA = of(RA, 0);
  ASSERT_EQ(IA.size(), 2u);
  EXPECT_EQ(name(IA[0]), "VMOVSDrm");
  EXPECT_EQ(IA[0].Ops[0].Reg, K->reg("XMM7"));
  EXPECT_EQ(name(IA[1]), "VMOVAPSrr");
  EXPECT_EQ(IA[1].Ops[1].Reg, K->reg("XMM1"));
}

TEST_F(RulesTest, IdiomsComeFromMCInstrAnalysis) {
  // Any x86-64 core breaks these; a different source is no idiom.
  EXPECT_TRUE(
      K->isDependencyBreaking(ins(*K, "XORPSrr", {"XMM1", "XMM1", "XMM1"})));
  EXPECT_TRUE(
      K->isDependencyBreaking(ins(*K, "VPXORDZrr", {"ZMM1", "ZMM1", "ZMM1"})));
  EXPECT_TRUE(
      K->isDependencyBreaking(ins(*K, "XOR32rr", {"EAX", "EAX", "EAX"})));
  EXPECT_TRUE(
      K->isDependencyBreaking(ins(*K, "PCMPEQDrr", {"XMM1", "XMM1", "XMM1"})));
  EXPECT_FALSE(
      K->isDependencyBreaking(ins(*K, "XORPSrr", {"XMM1", "XMM1", "XMM2"})));
  EXPECT_FALSE(
      K->isDependencyBreaking(ins(*K, "ADDSDrr", {"XMM1", "XMM1", "XMM1"})));
}

TEST_F(RulesTest, DL1KeepsATableLookupChain) {
  // crc = t[(crc ^ p[i]) & 0xff] ^ (crc >> 8): the table index comes from
  // the previous iteration's load. DL1 reads the table through a scratch
  // base register and the original index (bounded by the movzbl), so the
  // chain stays; a constant scratch address would cut it.
  LoopBody L =
      loop(*K,
           {ins(*K, "MOVZX32rm8", {"EAX", "RSI", "#1", "RCX", "#0", "-"}),
            ins(*K, "XOR8rr", {"AL", "AL", "DIL"}),
            ins(*K, "MOVZX32rr8", {"EAX", "AL"}),
            ins(*K, "SHR32ri", {"EDI", "EDI", "#8"}),
            ins(*K, "XOR32rm", {"EDI", "EDI", "R10", "#4", "RAX", "#0", "-"})},
           "#1");
  L.FreeRegs = {K->reg("R11")};
  L.LiveOuts = {K->reg("EDI"), K->reg("RCX")};
  LoopSubsets S = computeSubsets(*K, L);
  EXPECT_FALSE(S.Bits[3] & SubsetCtrl) << "crc >>= 8 is no induction";
  Expected<ScratchLayout> SL = layoutScratch(*K, L, S, 8192);
  ASSERT_TRUE(!!SL);
  EXPECT_EQ(SL->How[0], ScratchLayout::Redirect); // p[i]: affine
  EXPECT_EQ(SL->How[4], ScratchLayout::Indexed);
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 4);
  ASSERT_EQ(I.size(), 2u);
  EXPECT_EQ(name(I[0]), "LEA64r");
  // The table base, only used by this lookup, is the register it takes
  // over (a free register otherwise): both front ends see the same one.
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("R10"));
  EXPECT_EQ(I[0].Ops[4].Kind, Operand::Scratch);
  EXPECT_EQ(name(I[1]), "XOR32rm");
  EXPECT_EQ(I[1].Ops[2].Reg, K->reg("R10"));
  EXPECT_EQ(I[1].Ops[4].Reg, K->reg("RAX")); // the index, still read
  // The naive form: the lookup at a constant scratch address.
  LoopBody Naive = R.Body;
  for (Instr &X : Naive.Instrs)
    if (X.Id == 4 && name(X) == "XOR32rm") {
      X.Ops[2] = Operand::reg(K->reg("RIP"));
      X.Ops[4] = Operand::reg(0);
      X.Ops[5] = Operand::scratch(1024);
    }
  llvm::Error E = verifyKeptDependences(*K, L, Naive);
  ASSERT_TRUE(!!E);
  EXPECT_NE(llvm::toString(std::move(E)).find("lost dependence RAW"),
            std::string::npos);
  // FP keeps the xor chain through EDI with a free register's idiom, never
  // `xor %edi, %edi`.
  VariantResult F = build(L, Variant::FP);
  ASSERT_EQ(F.Status, VariantStatus::OK) << F.Reason;
  std::vector<Instr> FI = of(F, 4);
  ASSERT_EQ(FI.size(), 2u);
  EXPECT_EQ(name(FI[1]), "XOR32rr");
  EXPECT_EQ(FI[1].Ops[2].Reg, K->reg("R10D"));
  // Live after the loop: the free register instead.
  L.LiveOuts.push_back(K->reg("R10"));
  EXPECT_EQ(of(build(L, Variant::DL1), 4)[0].Ops[0].Reg, K->reg("R11"));
}

TEST_F(RulesTest, DL1FoldsAnyFootprintKeepingLinesAndAlignment) {
  // A 5-point stencil whose rows are 32 KiB apart: 64 KiB of span, a few
  // lines of data. Each row gets its own lines at REF's offset in the line.
  auto Ld = [&](const char *Op, int64_t D) {
    return ins(
        *K, Op,
        {"XMM0", "RDI", "#8", "RCX", ("#" + std::to_string(D)).c_str(), "-"});
  };
  LoopBody L =
      loop(*K, {Ld("MOVSDrm", -32768), Ld("MOVSDrm", -8), Ld("MOVSDrm", 0),
                Ld("MOVSDrm", 8), Ld("MOVSDrm", 32768), Ld("MOVAPSrm", 40)});
  LoopSubsets S = computeSubsets(*K, L);
  Expected<ScratchLayout> SL = layoutScratch(*K, L, S, 8192);
  ASSERT_TRUE(!!SL) << toString(SL.takeError());
  EXPECT_FALSE(SL->Wrapped);
  EXPECT_LE(SL->BytesUsed, 8192u);
  // One row keeps its relative offsets; rows are on distinct lines.
  EXPECT_EQ(SL->Offset[2] - SL->Offset[1], 8);
  EXPECT_EQ(SL->Offset[3] - SL->Offset[2], 8);
  std::set<int64_t> Lines;
  for (unsigned I : {0u, 2u, 4u})
    Lines.insert(SL->Offset[I] / 64);
  EXPECT_EQ(Lines.size(), 3u);
  EXPECT_EQ(((SL->Offset[0] % 64) + 64) % 64, 0); // -32768 mod 64
  // movaps faults unaligned: its cluster is placed so it is 16-aligned.
  EXPECT_EQ(SL->Offset[5] % 16, 0);
  EXPECT_EQ(build(L, Variant::DL1).Status, VariantStatus::OK);
}

TEST_F(RulesTest, DL1LeavesUnboundedDataAddressesInPlace) {
  // p = p->next: the address is the previous load's value, unbounded. The
  // load stays as it is (its chain with it); a store there stays at its
  // address without writing (DL1InPlaceStoreTest).
  LoopBody L = loop(
      *K,
      {ins(*K, "MOV64rm", {"RAX", "RAX", "#1", "-", "#0", "-"}),
       ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"})},
      "#1");
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(of(R, 0)[0].Unchanged);
  EXPECT_NE(R.Reason.find("left in place"), std::string::npos) << R.Reason;
  L.Instrs.insert(L.Instrs.begin() + 1,
                  ins(*K, "MOV64mr", {"RAX", "#1", "-", "#8", "-", "RDX"}));
  for (unsigned I = 0; I < L.Instrs.size(); ++I)
    L.Instrs[I].Id = I;
  L.Blocks[0].End = L.Instrs.size();
  EXPECT_EQ(build(L, Variant::DL1).Status, VariantStatus::OK);
}

TEST_F(RulesTest, DL1MasksAnUnboundedLoadedIndex) {
  // s += b[idx[i]]: the index is loaded, with no bound. DL1 masks a copy of
  // it into a quarter of the area (and $mask, flags dead here: the loop's
  // add rewrites them) and reads b through a scratch base in b's register:
  // the chain idx[i] -> b[...] stays, the data are L1-resident.
  LoopBody L = loop(
      *K,
      {ins(*K, "MOVSX64rm32", {"RAX", "RSI", "#4", "RCX", "#0", "-"}),
       ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RDI", "#8", "RAX", "#0", "-"})},
      "#1");
  L.FreeRegs = {K->reg("R11")};
  LoopSubsets S = computeSubsets(*K, L);
  Expected<ScratchLayout> SL = layoutScratch(*K, L, S, 8192);
  ASSERT_TRUE(!!SL);
  EXPECT_EQ(SL->How[1], ScratchLayout::Masked);
  EXPECT_EQ(SL->Mask[1], 255); // 8 bytes x 256 = 2 KiB, a quarter
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 1);
  ASSERT_EQ(I.size(), 4u);
  EXPECT_EQ(name(I[0]), "MOV64rr");
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("RAX"));
  EXPECT_EQ(name(I[1]), "AND32ri");
  EXPECT_EQ(I[1].Ops[2].Imm, 255);
  EXPECT_EQ(name(I[2]), "LEA64r");
  EXPECT_EQ(I[2].Ops[0].Reg, K->reg("RDI"));
  EXPECT_EQ(name(I[3]), "ADDSDrm");
  EXPECT_EQ(I[3].Ops[2].Reg, K->reg("RDI"));
  EXPECT_EQ(I[3].Ops[4].Reg, K->reg("R11"));
  // No free register for the masked copy: the load stays in place.
  L.FreeRegs.clear();
  VariantResult P = build(L, Variant::DL1);
  ASSERT_EQ(P.Status, VariantStatus::OK) << P.Reason;
  EXPECT_TRUE(of(P, 1)[0].Unchanged);
}
TEST_F(RulesTest, DL1KeepsTheAddressOfALoadedPointer) {
  // out[i] = p[i]->val (sqlite): p[i] is a pointer the loop follows. From
  // the scratch area it would load a non-pointer and 4(%rcx), which stays
  // in place, would fault: the pointer load keeps its address.
  LoopBody L =
      loop(*K,
           {ins(*K, "MOV64rm", {"RCX", "RSI", "#8", "RAX", "#0", "-"}),
            ins(*K, "MOV32rm", {"ECX", "RCX", "#1", "-", "#4", "-"}),
            ins(*K, "MOV32mr", {"RDX", "#4", "RAX", "#0", "-", "ECX"})},
           "#1");
  L.FreeRegs = {K->reg("R11")};
  // The exit counts with RCX, which the loads write: the front end's alias
  // facts (the plugin's) say the store does not write what they read.
  L.ExitMayReadStored = false;
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(of(R, 0)[0].Unchanged);
  EXPECT_TRUE(of(R, 1)[0].Unchanged);
  EXPECT_FALSE(of(R, 2)[0].Unchanged); // the store goes to the scratch area
}

TEST_F(RulesTest, StoreWithoutIndexKeepsItsLSVariant) {
  // gcc's `movl %eax, (%r8)`: no index register. Register 0 has no units:
  // the verifier must not take EAX's for an address unit of the store.
  LoopBody L =
      loop(*K, {ins(*K, "MOV32rm", {"EAX", "RDX", "#1", "-", "#0", "-"}),
                ins(*K, "ADD32ri", {"EAX", "EAX", "#1"}),
                ins(*K, "MOV32mr", {"R8", "#1", "-", "#0", "-", "EAX"})});
  L.FreeRegs = K->unusedRegs(L);
  VariantResult R = build(L, Variant::LS);
  EXPECT_EQ(R.Status, VariantStatus::OK) << R.Reason;
}

TEST_F(RulesTest, OneObjectThroughOtherRegistersGoesThroughAWindow) {
  // a[i] = f(a[i - d]): load (%rsi,%rax,8), store (%rsi,%rbx,8), d unknown.
  // The plugin knows both point into one object; LS folds both addresses
  // into one masked window of the scratch area, so whatever d is, the load
  // meets the store it met in REF. With one free GPR only: a bound.
  LoopBody L = loop(
      *K,
      {ins(*K, "MOVSDrm", {"XMM2", "RSI", "#8", "RAX", "#0", "-"}),
       ins(*K, "ADDSDrr", {"XMM2", "XMM2", "XMM1"}),
       ins(*K, "MOVSDmr", {"RSI", "#8", "RBX", "#0", "-", "XMM2"}),
       ins(*K, "INC64r", {"RBX", "RBX"}), ins(*K, "INC64r", {"RAX", "RAX"})},
      "#1");
  L.Instrs[0].Object = L.Instrs[2].Object = 0x1235;
  L.FreeRegs = {K->reg("R10"), K->reg("R11"), K->reg("XMM5")};
  bool May = false;
  for (const DepEdge &E : dependenceGraph(*K, L))
    May |= E.Resource == MemResource && E.From == 2 && E.To == 0 && E.Carried;
  EXPECT_TRUE(May);
  VariantResult R = build(L, Variant::LS);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_FALSE(R.Bound) << R.BoundReason;
  for (unsigned Id : {0u, 2u}) {
    std::vector<Instr> I = of(R, Id);
    ASSERT_EQ(I.size(), 4u) << Id;
    EXPECT_EQ(name(I[0]), "LEA64r");
    EXPECT_EQ(name(I[1]), "AND32ri");
    EXPECT_EQ(I[2].Ops[4].Kind, Operand::Scratch);
  }
  EXPECT_EQ(name(of(R, 2)[3]), "MOVSDmr"); // still a store, in the window
  L.FreeRegs = {K->reg("R10"), K->reg("XMM5")};
  VariantResult B = build(L, Variant::LS);
  ASSERT_EQ(B.Status, VariantStatus::OK) << B.Reason;
  EXPECT_TRUE(B.Bound);
}

namespace {
/// `x = f(a[i]); b[i] = x` with the counter in callee-saved registers, as
/// codegen keeps it across a call: load, call, store, add, cmp, jne.
LoopBody callLoop(const X86Knowledge &K, CallKind Kind,
                  std::vector<const char *> Args = {"XMM0"}) {
  Instr Call = ins(K, "CALL64pcrel32", {"#0"});
  Call.Call = Kind;
  for (const char *A : Args)
    Call.ImplicitUses.push_back(K.reg(A));
  for (unsigned R : K.callClobberedRegs())
    Call.ImplicitDefs.push_back(R);
  LoopBody L =
      loop(K, {ins(K, "MOVSDrm", {"XMM0", "R13", "#1", "RBX", "#0", "-"}), Call,
               ins(K, "MOVSDmr", {"R14", "#1", "RBX", "#0", "-", "XMM0"})});
  L.Instrs[3] = ins(K, "ADD64ri32", {"RBX", "RBX", "#8"});
  L.Instrs[4] = ins(K, "CMP64rr", {"RBX", "R12"});
  for (unsigned I = 0; I < L.Instrs.size(); ++I)
    L.Instrs[I].Id = I;
  return L;
}
} // namespace

TEST_F(RulesTest, CallsAreKeptOrDeletedByWhatTheyMayDo) {
  // libm (no memory but errno): arithmetic, kept in FP, NO_DIV, DL1.
  LoopBody Pure = callLoop(*K, CallKind::Pure);
  // memcpy and unknown callees write memory: deleted everywhere but REF.
  LoopBody Writes = callLoop(*K, CallKind::MayWrite);
  struct Want {
    Variant V;
    bool PureKept, WritesKept;
  } Wants[] = {{Variant::REF, true, true},    {Variant::LS, false, false},
               {Variant::FP, true, false},    {Variant::DL1, true, false},
               {Variant::CTRL, false, false}, {Variant::NO_CALL, false, false}};
  for (const Want &W : Wants)
    for (auto [L, Kept] :
         {std::pair{&Pure, W.PureKept}, std::pair{&Writes, W.WritesKept}}) {
      VariantResult R = build(*L, W.V);
      ASSERT_EQ(R.Status, VariantStatus::OK)
          << variantName(W.V) << ": " << R.Reason;
      bool HasCall = false;
      for (const Instr &I : R.Body.Instrs)
        HasCall |= name(I) == "CALL64pcrel32";
      EXPECT_EQ(HasCall, Kept) << variantName(W.V);
      EXPECT_EQ(R.CallsDeleted, !Kept) << variantName(W.V);
      EXPECT_EQ(keepsCall(W.V, L->Instrs[1].Call), Kept);
    }
  // NO_CALL keeps the rest and never writes memory: the store is a load.
  VariantResult N = build(Pure, Variant::NO_CALL);
  ASSERT_EQ(of(N, 2).size(), 1u);
  EXPECT_EQ(name(of(N, 2)[0]), "MOVSDrm");
  EXPECT_EQ(storePolicy(Variant::NO_CALL), DECAN_STORE_AS_LOAD);
  // sqrt(x) in XMM0 -> XMM0: the deleted call leaves XMM0's chain (the
  // load) to the store; nothing stands in for it.
  EXPECT_TRUE(of(N, 1).empty() || of(N, 1)[0].Padding);
  // A loop without calls has no NO_CALL.
  LoopBody Plain =
      loop(*K, {ins(*K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#0", "-"})});
  EXPECT_EQ(build(Plain, Variant::NO_CALL).Status, VariantStatus::Empty);
}

TEST_F(RulesTest, DL1RedirectsMemoryCallsIntoTheScratchArea) {
  // memcpy(dst = R13 + RBX, src = R15 + RBX, n = RDX) in a loop that also
  // loads: DL1 points both pointers into the scratch area's second half and
  // clamps the length; every other variant but REF deletes the call.
  auto memLoop = [&](unsigned Pointers) {
    Instr Call = ins(*K, "CALL64pcrel32", {"#0"});
    Call.Call = CallKind::Memory;
    Call.MemoryPointers = Pointers;
    Call.ImplicitUses = {K->reg("RDI"), K->reg("RSI"), K->reg("RDX")};
    for (unsigned R : K->callClobberedRegs())
      Call.ImplicitDefs.push_back(R);
    LoopBody L = loop(
        *K,
        {ins(*K, "LEA64r", {"RDI", "R13", "#1", "RBX", "#0", "-"}),
         ins(*K, "LEA64r", {"RSI", "R15", "#1", "RBX", "#0", "-"}), Call,
         ins(*K, "ADDSDrm", {"XMM1", "XMM1", "R14", "#1", "RBX", "#0", "-"})});
    L.Instrs[4] = ins(*K, "ADD64ri32", {"RBX", "RBX", "#8"});
    L.Instrs[5] = ins(*K, "CMP64rr", {"RBX", "R12"});
    for (unsigned I = 0; I < L.Instrs.size(); ++I)
      L.Instrs[I].Id = I;
    return L;
  };
  LoopBody Copy = memLoop(2);
  VariantResult R = build(Copy, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_FALSE(R.CallsDeleted);
  EXPECT_EQ(R.MemoryCallsRedirected, 1u);
  EXPECT_EQ(R.MemoryCallBytes, 8192u / 4);
  EXPECT_NE(R.Reason.find("lengths above 2048 bytes clamped to 2048"),
            std::string::npos)
      << R.Reason;
  std::vector<Instr> C = of(R, 2);
  ASSERT_EQ(C.size(), 6u);
  EXPECT_EQ(name(C[0]), "LEA64r");
  EXPECT_EQ(C[0].Ops[0].Reg, K->reg("RDI"));
  EXPECT_EQ(C[0].Ops[4].Kind, Operand::Scratch);
  EXPECT_EQ(C[0].Ops[4].Imm, 4096);
  EXPECT_EQ(name(C[1]), "LEA64r");
  EXPECT_EQ(C[1].Ops[0].Reg, K->reg("RSI"));
  EXPECT_EQ(C[1].Ops[4].Imm, 4096 + 2048);
  EXPECT_EQ(name(C[2]), "MOV32ri");
  EXPECT_EQ(C[2].Ops[1].Imm, 2048);
  EXPECT_EQ(name(C[3]), "CMP64rr");
  EXPECT_EQ(name(C[4]), "CMOV64rr");
  EXPECT_EQ(name(C[5]), "CALL64pcrel32");
  EXPECT_TRUE(C[5].Unchanged);
  // The loop's own access went to the first half, away from the call's.
  ASSERT_FALSE(of(R, 3).empty());
  Instr Add = of(R, 3).back();
  int M = K->memOperandIndex(Add.Opcode);
  ASSERT_EQ(Add.Ops[M + 3].Kind, Operand::Scratch);
  EXPECT_LT(Add.Ops[M + 3].Imm, 4096);
  // memset: the destination only.
  VariantResult S = build(memLoop(1), Variant::DL1);
  ASSERT_EQ(S.Status, VariantStatus::OK) << S.Reason;
  ASSERT_EQ(of(S, 2).size(), 5u);
  EXPECT_EQ(of(S, 2)[0].Ops[0].Reg, K->reg("RDI"));
  // Other variants never write program memory: the call goes.
  for (Variant V : {Variant::LS, Variant::FP, Variant::NO_CALL}) {
    VariantResult O = build(Copy, V);
    ASSERT_EQ(O.Status, VariantStatus::OK) << variantName(V) << O.Reason;
    EXPECT_TRUE(O.CallsDeleted) << variantName(V);
  }
  // Its result read (memcpy returns the destination): DL1 cannot point it
  // elsewhere, so it deletes the call as before (compared with NO_CALL).
  LoopBody Ret = Copy;
  Ret.Instrs[3] =
      ins(*K, "ADD64rm", {"R14", "R14", "RAX", "#1", "RBX", "#0", "-"});
  VariantResult RR = build(Ret, Variant::DL1);
  ASSERT_EQ(RR.Status, VariantStatus::OK) << RR.Reason;
  EXPECT_TRUE(RR.CallsDeleted);
  EXPECT_EQ(RR.MemoryCallsRedirected, 0u);
  // A callee the front end knows only as memory work, not its arguments
  // (no MemoryPointers), in a loop with no other access: unsupported.
  LoopBody Only = Copy;
  Only.Instrs[2].MemoryPointers = 0;
  Only.Instrs[3] = ins(*K, "ADD64rr", {"R14", "R14", "RBX"});
  VariantResult U = build(Only, Variant::DL1);
  EXPECT_EQ(U.Status, VariantStatus::Unsupported);
  EXPECT_EQ(U.Why, DECAN_WHY_MEMORY_CALLS);
  EXPECT_EQ(memoryCallPointers("memcpy"), 2u);
  EXPECT_EQ(memoryCallPointers("__memmove_chk"), 2u);
  EXPECT_EQ(memoryCallPointers("memset"), 1u);
  EXPECT_EQ(memoryCallPointers("strlen"), 0u);
}

TEST_F(RulesTest, DeletedCallResultIsBridgedFromItsArgument) {
  // p = f(p) in RDI -> RAX, then RAX is read: NO_CALL copies the argument.
  Instr Call = ins(*K, "CALL64pcrel32", {"#0"});
  Call.Call = CallKind::MayWrite;
  Call.ImplicitUses = {K->reg("RDI")};
  for (unsigned R : K->callClobberedRegs())
    Call.ImplicitDefs.push_back(R);
  LoopBody L = loop(*K, {ins(*K, "MOV64rr", {"RDI", "R13"}), Call,
                         ins(*K, "ADD64rr", {"R14", "R14", "RAX"})});
  L.Instrs[3] = ins(*K, "ADD64ri32", {"RBX", "RBX", "#8"});
  L.Instrs[4] = ins(*K, "CMP64rr", {"RBX", "R12"});
  VariantResult R = build(L, Variant::NO_CALL);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> Bridge = of(R, 1);
  ASSERT_FALSE(Bridge.empty());
  EXPECT_EQ(name(Bridge[0]), "MOV64rr");
  EXPECT_EQ(Bridge[0].Ops[0].Reg, K->reg("RAX"));
  EXPECT_EQ(Bridge[0].Ops[1].Reg, K->reg("RDI"));
  EXPECT_TRUE(Bridge[0].Stand);
  // The rewriter says nothing about a call: every SysV argument register
  // is read, RDI first, so the same bridge comes out.
  LoopBody Bare = L;
  Bare.Instrs[1].Call = CallKind::None;
  Bare.Instrs[1].ImplicitUses.clear();
  Bare.Instrs[1].ImplicitDefs.clear();
  VariantResult RB = build(Bare, Variant::NO_CALL);
  ASSERT_EQ(RB.Status, VariantStatus::OK) << RB.Reason;
  ASSERT_FALSE(of(RB, 1).empty());
  EXPECT_EQ(name(of(RB, 1)[0]), "MOV64rr");
  EXPECT_EQ(of(RB, 1)[0].Ops[1].Reg, K->reg("RDI"));
}

TEST_F(RulesTest, AnExitACallMayChangeKeepsOnlyREF) {
  // The exit compares with a bound loaded from memory a callee may write.
  LoopBody L = callLoop(*K, CallKind::MayWrite);
  L.Instrs[4] = ins(*K, "CMP64rm", {"RBX", "R15", "#1", "-", "#0", "-"});
  // The loop's own stores are known not to write it (alias analysis).
  L.ExitMayReadStored = false;
  for (Variant V : {Variant::LS, Variant::FP, Variant::NO_CALL}) {
    VariantResult R = build(L, V);
    EXPECT_EQ(R.Status, VariantStatus::Unsupported) << variantName(V);
    EXPECT_NE(R.Reason.find("a call in the loop may write"), std::string::npos)
        << R.Reason;
    EXPECT_EQ(R.Why, DECAN_WHY_EXIT_READS_CALL_WRITTEN);
    EXPECT_TRUE(llvm::StringRef(decan_variant_why_text(R.Why))
                    .starts_with("an exit condition reads memory a call in "
                                 "the loop may write"));
  }
  // The function's own frame too: a local whose address the callee has
  // (a worklist's size on the stack) looks like a spilled bound.
  L.Instrs[4] = ins(*K, "CMP64rm", {"RBX", "RSP", "#1", "-", "#8", "-"});
  for (Variant V : {Variant::LS, Variant::FP, Variant::NO_CALL})
    EXPECT_EQ(build(L, V).Why, DECAN_WHY_EXIT_READS_CALL_WRITTEN)
        << variantName(V);
  // A pure call stays, even in NO_CALL, where the exit depends on it.
  LoopBody P = callLoop(*K, CallKind::Pure);
  P.Instrs[4] = ins(*K, "CMP64rr", {"RBX", "RAX"});
  P.ExitMayReadStored = false; // the call's argument is not what it stores
  VariantResult RP = build(P, Variant::NO_CALL);
  ASSERT_EQ(RP.Status, VariantStatus::OK) << RP.Reason;
  ASSERT_EQ(of(RP, 1).size(), 1u);
  EXPECT_TRUE(of(RP, 1)[0].Unchanged);
  EXPECT_FALSE(RP.CallsDeleted);
  LoopBody W = callLoop(*K, CallKind::MayWrite);
  W.Instrs[4] = ins(*K, "CMP64rr", {"RBX", "RAX"});
  W.ExitMayReadStored = false;
  VariantResult RW = build(W, Variant::LS);
  EXPECT_EQ(RW.Status, VariantStatus::Unsupported);
  EXPECT_NE(RW.Reason.find("depends on a call"), std::string::npos)
      << RW.Reason;
  EXPECT_EQ(RW.Why, DECAN_WHY_EXIT_DEPENDS_ON_CALL);
}

TEST_F(RulesTest, AnExitOnAnArrayTheLoopStoresToKeepsOnlyREF) {
  // libLLVM's IntEqClasses::join (union-find): EC[b] = a; ...; the exit
  // compares with EC[a]. Same array, other index: turning the store into a
  // load (LS) or deleting it changes the trip count (LS never ended).
  LoopBody L = singleBlockLoop(
      {ins(*K, "MOV32mr", {"RCX", "#4", "RDX", "#0", "-", "EAX"}),
       ins(*K, "MOV32rr", {"R8D", "EDI"}), ins(*K, "MOV32rr", {"EDX", "EDI"}),
       ins(*K, "MOV32rm", {"EDI", "RCX", "#4", "R8", "#0", "-"}),
       ins(*K, "CMP32rr", {"EAX", "EDI"}), ins(*K, "JCC_1", {"#0", "#5"})});
  for (Variant V : {Variant::LS, Variant::FP, Variant::DL1, Variant::CTRL})
    EXPECT_EQ(build(L, V).Why, DECAN_WHY_EXIT_READS_STORED) << variantName(V);
  // Another base register may still be the same memory (p == q at run
  // time): without alias facts (the rewriter) every variant is refused...
  L.Instrs[0] = ins(*K, "MOV32mr", {"RSI", "#4", "RDX", "#0", "-", "EAX"});
  for (Variant V : {Variant::LS, Variant::FP, Variant::DL1, Variant::CTRL})
    EXPECT_EQ(build(L, V).Why, DECAN_WHY_EXIT_READS_STORED) << variantName(V);
  // ... unless the front end's alias analysis says they are disjoint (the
  // plugin)...
  L.ExitMayReadStored = false;
  EXPECT_NE(build(L, Variant::LS).Why, DECAN_WHY_EXIT_READS_STORED);
  // ... or may alias.
  L.ExitMayReadStored = true;
  EXPECT_EQ(build(L, Variant::LS).Why, DECAN_WHY_EXIT_READS_STORED);
  // The operands prove the frame and a global apart: a store into a spill
  // slot does not write a global bound.
  L.ExitMayReadStored.reset();
  L.Instrs[0] = ins(*K, "MOV32mr", {"RSP", "#1", "-", "#16", "-", "EAX"});
  L.Instrs[3] = ins(*K, "MOV32rm", {"EDI", "RIP", "#1", "-", "#64", "-"});
  EXPECT_NE(build(L, Variant::LS).Why, DECAN_WHY_EXIT_READS_STORED);
}

TEST_F(RulesTest, StoreOfALiveRegisterLoadsIntoOneDeadAcrossTheBackEdge) {
  // zstd's row hash update: `movl %r15d, (%r13,%rdx,4)` stores the
  // induction variable, every GPR is busy (no free register) and none is
  // dead in the rest of the block. Loading into the data register would
  // add a dependence (the verifier refused LS on 74 loops of zstd_lazy.c);
  // EAX is written at the top of the next iteration before any read.
  LoopBody L =
      loop(*K,
           {ins(*K, "MOV32rm", {"EAX", "RDI", "#4", "RCX", "#0", "-"}),
            ins(*K, "AND32ri", {"EAX", "EAX", "#31"}),
            ins(*K, "MOV32mr", {"RSI", "#4", "RAX", "#0", "-", "ECX"})},
           "#1");
  L.FreeRegs.clear();
  VariantResult R = build(L, Variant::LS);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 2);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "MOV32rm");
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("EAX"));
  // EAX live after the loop: no register is dead there; the data register
  // itself adds the dependence, and the verifier refuses the variant.
  L.LiveOuts = {K->reg("RAX")};
  VariantResult Live = build(L, Variant::LS);
  EXPECT_NE(Live.Status, VariantStatus::OK);
}
