//===- VerifierTest.cpp - The no-new-dependence verifier ------------------===//
#include "TestUtil.h"

#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/Variants.h"
#include "decan/InstrKnowledge/Verifier.h"

using namespace decan;
using namespace decan::test;

namespace {
class VerifierTest : public ::testing::Test {
protected:
  void SetUp() override { K = knowledge(); }
  /// The POLARIS fragment of thesis Table 6.2 (instructions 1, 6, 8 and a
  /// reader of XMM2), in a loop.
  LoopBody polaris() {
    return loop(
        *K,
        {
            ins(*K, "VMOVSDrm", {"XMM2", "R15", "#1", "-", "#160", "-"}), // 1
            ins(*K, "VMOVSDrm", {"XMM6", "R15", "#1", "-", "#168", "-"}), // 6
            ins(*K, "VMOVHPDrm",
                {"XMM2", "XMM6", "R15", "#1", "-", "#192", "-"}), // 8
            ins(*K, "VADDPDrr", {"XMM4", "XMM4", "XMM2"}),
        });
  }
  std::unique_ptr<X86Knowledge> K;
};
} // namespace

TEST_F(VerifierTest, Table61V1IsRejectedV2Accepted) {
  LoopBody Ref = polaris();
  // V1: vmovhpd 0xc0(%r15),%xmm6,%xmm2 -> vxorps %xmm2,%xmm6,%xmm2 (reads
  // XMM2, written by instruction 1: a RAW edge REF lacks).
  LoopBody V1 = Ref;
  V1.Instrs[2] = ins(*K, "VXORPSrr", {"XMM2", "XMM6", "XMM2"});
  V1.Instrs[2].Id = 2;
  V1.Instrs[2].Unchanged = false;
  llvm::Error E = verifyNoNewDependences(*K, Ref, V1);
  ASSERT_TRUE(!!E);
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("XMM2"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("from #0 to #2"), std::string::npos) << Msg;
  // V2: vxorps %xmm6,%xmm6,%xmm2 -- the thesis's fix, still reads XMM6.
  LoopBody V2 = Ref;
  V2.Instrs[2] = ins(*K, "VXORPSrr", {"XMM2", "XMM6", "XMM6"});
  V2.Instrs[2].Id = 2;
  EXPECT_FALSE(!!verifyNoNewDependences(*K, Ref, V2));
  // decan's rule: a zero idiom of the destination, which reads nothing.
  LoopBody V3 = Ref;
  V3.Instrs[2] = ins(*K, "VXORPSrr", {"XMM2", "XMM2", "XMM2"});
  V3.Instrs[2].Id = 2;
  EXPECT_FALSE(!!verifyNoNewDependences(*K, Ref, V3));
}

TEST_F(VerifierTest, BuiltFPVariantOfTable62BridgesTheMergeLoad) {
  // vmovhpd (mem), %xmm6, %xmm2 deleted: its readers still wait for XMM6
  // (what V2 meant), through a copy; XMM6's own load is deleted (a pure
  // load passes nothing on) and gets a zero idiom.
  LoopBody Ref = polaris();
  LoopSubsets S = computeSubsets(*K, Ref);
  VariantResult R = buildVariant(*K, Ref, S, Variant::FP, {});
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  bool Copy = false, Idiom = false;
  for (const Instr &I : R.Body.Instrs) {
    if (I.Id == 2 && !I.Padding) {
      EXPECT_EQ(K->opcodeName(I.Opcode), "VMOVAPSrr");
      EXPECT_EQ(I.Ops[0].Reg, K->reg("XMM2"));
      EXPECT_EQ(I.Ops[1].Reg, K->reg("XMM6"));
      EXPECT_TRUE(I.Stand);
      Copy = true;
    }
    if (I.Id == 1 && !I.Padding) {
      EXPECT_TRUE(K->isDependencyBreaking(I)) << K->opcodeName(I.Opcode).str();
      Idiom = true;
    }
  }
  EXPECT_TRUE(Copy && Idiom);
}

TEST_F(VerifierTest, Table61BothDirections) {
  // XMM6 computed by kept arithmetic: V1 adds a dependence (#0 -> #3);
  // V2's `vxorps %xmm6, %xmm6, %xmm2` is a zero idiom to the hardware
  // (MCInstrAnalysis says so), so it loses #2 -> #4 through the deleted
  // vmovhpd; a copy of XMM6 keeps it.
  LoopBody Ref = loop(
      *K,
      {
          ins(*K, "VMOVSDrm", {"XMM2", "R15", "#1", "-", "#160", "-"}),
          ins(*K, "VMULSDrr", {"XMM6", "XMM7", "XMM7"}),
          ins(*K, "VADDSDrr", {"XMM7", "XMM7", "XMM6"}),
          ins(*K, "VMOVHPDrm", {"XMM2", "XMM6", "R15", "#1", "-", "#192", "-"}),
          ins(*K, "VADDPDrr", {"XMM4", "XMM4", "XMM2"}),
      });
  auto With = [&](unsigned Id, Instr I, bool Stand = false) {
    LoopBody V = Ref;
    I.Id = Id;
    I.Unchanged = false;
    I.Stand = Stand;
    V.Instrs[Id] = I;
    return V;
  };
  LoopBody V1 = With(3, ins(*K, "VXORPSrr", {"XMM2", "XMM6", "XMM2"}));
  EXPECT_TRUE(!!verifyNoNewDependences(*K, Ref, V1));
  llvm::consumeError(verifyNoNewDependences(*K, Ref, V1));
  LoopBody V2 = With(3, ins(*K, "VXORPSrr", {"XMM2", "XMM6", "XMM6"}), true);
  EXPECT_FALSE(!!verifyNoNewDependences(*K, Ref, V2));
  llvm::Error E = verifyKeptDependences(*K, Ref, V2);
  ASSERT_TRUE(!!E);
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("lost dependence RAW XMM2 from #1 to #4"),
            std::string::npos)
      << Msg;
  LoopBody Bridge = With(3, ins(*K, "VMOVAPSrr", {"XMM2", "XMM6"}), true);
  EXPECT_FALSE(!!verifyNoNewDependences(*K, Ref, Bridge));
  EXPECT_FALSE(!!verifyKeptDependences(*K, Ref, Bridge));
}

TEST_F(VerifierTest, ZeroIdiomOverADivisionResultLosesTheChain) {
  // x = x / y (a recurrence through the division), then a reader of x.
  // The old NO_DIV wrote `xorps %xmm0, %xmm0`: the chain x -> x is gone.
  LoopBody Ref = loop(*K, {ins(*K, "DIVSDrr", {"XMM0", "XMM0", "XMM2"}),
                           ins(*K, "ADDSDrr", {"XMM0", "XMM0", "XMM3"})});
  LoopBody Zero = Ref;
  Zero.Instrs[0] = ins(*K, "XORPSrr", {"XMM0", "XMM0", "XMM0"});
  Zero.Instrs[0].Id = 0;
  Zero.Instrs[0].Unchanged = false;
  Zero.Instrs[0].Stand = true;
  EXPECT_FALSE(!!verifyNoNewDependences(*K, Ref, Zero));
  llvm::Error E = verifyKeptDependences(*K, Ref, Zero);
  ASSERT_TRUE(!!E);
  EXPECT_NE(llvm::toString(std::move(E)).find("from #1 to #1 (loop-carried)"),
            std::string::npos);
  // Deleting it (the two-operand form) keeps x -> x.
  LoopSubsets S = computeSubsets(*K, Ref);
  VariantResult R = buildVariant(*K, Ref, S, Variant::NO_DIV, {});
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  for (const Instr &I : R.Body.Instrs)
    EXPECT_TRUE(I.Id != 0 || I.Padding) << K->opcodeName(I.Opcode).str();
  EXPECT_FALSE(!!verifyKeptDependences(*K, Ref, R.Body));
}

TEST_F(VerifierTest, StoreToLoadThroughMemoryIsKeptOrABound) {
  // a[i] = a[i-1] / y: iteration i+1 loads what iteration i stored. LS and
  // NO_DIV would turn the store into a load and lose the chain; they put
  // the pair in one scratch cell instead (distance 1: stored in i, loaded
  // in i+1, as REF does). At distance 2, or without a scratch area, the
  // chain is lost and the saturation is marked a bound.
  auto Mk = [&](const char *LoadDisp) {
    LoopBody L =
        loop(*K,
             {ins(*K, "MOVSDrm", {"XMM0", "RDI", "#8", "RCX", LoadDisp, "-"}),
              ins(*K, "DIVSDrr", {"XMM0", "XMM0", "XMM2"}),
              ins(*K, "MOVSDmr", {"RDI", "#8", "RCX", "#0", "-", "XMM0"})},
             "#1");
    L.FreeRegs = {K->reg("XMM5")};
    return L;
  };
  LoopBody Ref = Mk("#-8");
  bool Carried = false;
  for (const DepEdge &E : dependenceGraph(*K, Ref))
    Carried |=
        E.Resource == MemResource && E.From == 2 && E.To == 0 && E.Carried;
  EXPECT_TRUE(Carried) << "a[i] store -> a[i+1-1] load";
  LoopSubsets S = computeSubsets(*K, Ref);
  for (Variant V : {Variant::LS, Variant::NO_DIV}) {
    VariantResult R = buildVariant(*K, Ref, S, V, {});
    ASSERT_EQ(R.Status, VariantStatus::OK) << variantName(V) << R.Reason;
    EXPECT_FALSE(R.Bound) << variantName(V) << R.BoundReason;
    Instr St, Ld;
    for (const Instr &I : R.Body.Instrs) {
      if (I.Id == 2 && !I.Padding)
        St = I;
      if (I.Id == 0 && !I.Padding)
        Ld = I;
    }
    EXPECT_EQ(K->opcodeName(St.Opcode), "MOVSDmr") << variantName(V);
    EXPECT_EQ(St.Ops[3].Kind, Operand::Scratch);
    EXPECT_EQ(Ld.Ops[4].Kind, Operand::Scratch);
    EXPECT_EQ(St.Ops[3].Imm, Ld.Ops[4].Imm); // one cell
    VariantOptions NoScratch;
    NoScratch.ScratchInAllVariants = false;
    VariantResult B = buildVariant(*K, Ref, S, V, NoScratch);
    ASSERT_EQ(B.Status, VariantStatus::OK) << B.Reason;
    EXPECT_TRUE(B.Bound);
    EXPECT_NE(B.BoundReason.find("memory from #2 to #0"), std::string::npos)
        << B.BoundReason;
  }
  LoopBody Two = Mk("#-16");
  VariantResult R2 =
      buildVariant(*K, Two, computeSubsets(*K, Two), Variant::NO_DIV, {});
  ASSERT_EQ(R2.Status, VariantStatus::OK) << R2.Reason;
  EXPECT_TRUE(R2.Bound);
  // Without the overlap (b[i] = a[i] / y): nothing to keep, no bound.
  LoopBody Indep = Ref;
  Indep.Instrs[2].Ops[0] = Operand::reg(K->reg("RSI"));
  VariantResult R =
      buildVariant(*K, Indep, computeSubsets(*K, Indep), Variant::NO_DIV, {});
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_FALSE(R.Bound) << R.BoundReason;
}

TEST_F(VerifierTest, SelfDependentReplacementIsRejected) {
  // sqrtsd (mem), %xmm0 rewritten as sqrtsd %xmm0, %xmm0 would chain every
  // iteration to the previous one.
  LoopBody Ref =
      loop(*K, {ins(*K, "SQRTSDm", {"XMM0", "RDI", "#8", "RCX", "#0", "-"}),
                ins(*K, "ADDSDrr", {"XMM1", "XMM1", "XMM0"})});
  LoopBody Bad = Ref;
  Bad.Instrs[0] = ins(*K, "SQRTSDr", {"XMM0", "XMM0"});
  Bad.Instrs[0].Id = 0;
  llvm::Error E = verifyNoNewDependences(*K, Ref, Bad);
  ASSERT_TRUE(!!E);
  EXPECT_NE(llvm::toString(std::move(E)).find("loop-carried"),
            std::string::npos);
  // The built FP variant seeds the source with an idiom instead.
  LoopSubsets S = computeSubsets(*K, Ref);
  VariantResult R = buildVariant(*K, Ref, S, Variant::FP, {});
  EXPECT_EQ(R.Status, VariantStatus::OK) << R.Reason;
}

TEST_F(VerifierTest, FlagEdgesCount) {
  // REF: cmp sets flags for the branch. A variant that puts a flag writer
  // between them changes which instruction the branch depends on.
  LoopBody Ref = loop(*K, {ins(*K, "ADD32rr", {"EAX", "EAX", "EBX"})});
  LoopBody Bad = Ref;
  // Move the add after the cmp: the jcc now reads add's flags.
  std::swap(Bad.Instrs[0], Bad.Instrs[2]);
  std::swap(Bad.Instrs[0], Bad.Instrs[1]);
  EXPECT_TRUE(!!verifyNoNewDependences(*K, Ref, Bad)) << "flags";
  llvm::consumeError(verifyNoNewDependences(*K, Ref, Bad));
}

TEST_F(VerifierTest, ScratchStoreToLoadForwardingTrap) {
  // a[i] = f(a[i]): load and store of one moving array. Constant scratch
  // addresses on the same bytes would forward iteration i's store to
  // iteration i+1's load, a dependence REF lacks.
  LoopBody Ref =
      loop(*K, {
                   ins(*K, "MOVSDrm", {"XMM0", "RDI", "#8", "RCX", "#0", "-"}),
                   ins(*K, "MULSDrr", {"XMM0", "XMM0", "XMM1"}),
                   ins(*K, "MOVSDmr", {"RDI", "#8", "RCX", "#0", "-", "XMM0"}),
               });
  LoopBody Naive = Ref;
  for (unsigned I : {0u, 2u}) {
    int M = K->memOperandIndex(Naive.Instrs[I].Opcode);
    Naive.Instrs[I].Ops[M] = Operand::reg(K->reg("RIP"));
    Naive.Instrs[I].Ops[M + 2] = Operand::reg(0);
    Naive.Instrs[I].Ops[M + 3] = Operand::scratch(0);
  }
  llvm::Error E = verifyNoNewDependences(*K, Ref, Naive);
  ASSERT_TRUE(!!E);
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("memory from #2 to #0 (loop-carried)"), std::string::npos)
      << Msg;
  // decan's layout puts the stores on their own line: accepted.
  LoopSubsets S = computeSubsets(*K, Ref);
  VariantResult R = buildVariant(*K, Ref, S, Variant::DL1, {});
  EXPECT_EQ(R.Status, VariantStatus::OK) << R.Reason;
}

TEST_F(VerifierTest, SpillSlotsKeepTheirForwarding) {
  // Same stack slot stored then reloaded every iteration (loop-invariant
  // address): REF forwards, and the DL1 scratch copy must too.
  LoopBody Ref =
      loop(*K, {
                   ins(*K, "MOVSDmr", {"RSP", "#1", "-", "#16", "-", "XMM0"}),
                   ins(*K, "MOVSDrm", {"XMM2", "RSP", "#1", "-", "#16", "-"}),
                   ins(*K, "ADDSDrr", {"XMM0", "XMM0", "XMM2"}),
               });
  auto G = dependenceGraph(*K, Ref);
  bool Fwd = false;
  for (const DepEdge &E : G)
    Fwd |= E.Resource == MemResource && E.From == 0 && E.To == 1 && !E.Carried;
  EXPECT_TRUE(Fwd);
  LoopSubsets S = computeSubsets(*K, Ref);
  VariantResult R = buildVariant(*K, Ref, S, Variant::DL1, {});
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_EQ(R.Body.Instrs[0].Ops[3].Imm, R.Body.Instrs[1].Ops[4].Imm);
}
