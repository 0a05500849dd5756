//===- DL1InPlaceStoreTest.cpp - DL1 stores at loaded addresses -----------===//
//
// Part of decan's tests. Issue 27: a store whose address is computed from
// loaded data (zstd's row match finder writes a hash row's tag at a
// position it loads) cannot go to the scratch area. DL1 leaves it at its
// address, as it does such a load, writing nothing: a plain store becomes
// a prefetch of its line, a read-modify-write its load.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/Variants.h"
#include "decan/abi.h"

using namespace decan;
using namespace decan::test;

namespace {
class DL1InPlaceStoreTest : public ::testing::Test {
protected:
  void SetUp() override { K = knowledge(); }
  VariantResult build(const LoopBody &L, Variant V) {
    LoopSubsets S = computeSubsets(*K, L);
    VariantOptions O;
    O.ExitCapped = true;
    return buildVariant(*K, L, S, V, O);
  }
  /// The variant instructions standing for REF instruction \p Id.
  std::vector<Instr> of(const VariantResult &R, unsigned Id) {
    std::vector<Instr> Out;
    for (const Instr &I : R.Body.Instrs)
      if (I.Id == Id && !I.Padding)
        Out.push_back(I);
    return Out;
  }
  std::string name(const Instr &I) { return K->opcodeName(I.Opcode).str(); }
  /// `p = p->next; <Access> 8(p); s += b[i]`: the access's address is the
  /// previous load's value, unbounded.
  LoopBody chase(Instr Access) {
    LoopBody L = loop(
        *K,
        {ins(*K, "MOV64rm", {"RAX", "RAX", "#1", "-", "#0", "-"}),
         std::move(Access),
         ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"})},
        "#1");
    L.FreeRegs = K->unusedRegs(L);
    return L;
  }
  /// No instruction of \p R writes memory.
  bool writesNothing(const VariantResult &R) {
    for (const Instr &I : R.Body.Instrs)
      if (!I.Padding && (K->classify(I.Opcode) & SubsetStore))
        return false;
    return true;
  }
  std::unique_ptr<X86Knowledge> K;
};
} // namespace

TEST_F(DL1InPlaceStoreTest, APlainStoreBecomesAPrefetchOfItsLine) {
  LoopBody L = chase(ins(*K, "MOV64mr", {"RAX", "#1", "-", "#8", "-", "RDX"}));
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(writesNothing(R));
  // The pointer load and its chain stay; the store's address is kept.
  EXPECT_TRUE(of(R, 0)[0].Unchanged);
  std::vector<Instr> St = of(R, 1);
  ASSERT_EQ(St.size(), 1u);
  EXPECT_EQ(name(St[0]), "PREFETCHT0");
  EXPECT_EQ(St[0].Ops[0].Reg, K->reg("RAX"));
  EXPECT_EQ(St[0].Ops[3].Imm, 8);
  // b[i] still goes to the scratch area.
  EXPECT_FALSE(of(R, 2)[0].Unchanged);
  EXPECT_NE(R.Reason.find("2 access(es) at addresses computed from loaded "
                          "data left in place"),
            std::string::npos)
      << R.Reason;
}

TEST_F(DL1InPlaceStoreTest, AReadModifyWriteKeepsItsLoad) {
  // p->count += d: the read stays where it is, the write goes.
  LoopBody L = chase(ins(*K, "ADD32mr", {"RAX", "#1", "-", "#8", "-", "EDX"}));
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(writesNothing(R));
  std::vector<Instr> St = of(R, 1);
  ASSERT_FALSE(St.empty());
  bool LoadsInPlace = false;
  for (const Instr &I : St) {
    int M = K->memOperandIndex(I.Opcode);
    LoadsInPlace |= (K->classify(I.Opcode) & SubsetLoad) && M >= 0 &&
                    I.Ops[M].Reg == K->reg("RAX") && I.Ops[M + 3].Imm == 8;
  }
  EXPECT_TRUE(LoadsInPlace);
}

TEST_F(DL1InPlaceStoreTest, TheGroupVariantsFollow) {
  // DL1_Gk applies DL1's rule to one group: the chased store's group too.
  LoopBody L = chase(ins(*K, "MOV64mr", {"RAX", "#1", "-", "#8", "-", "RDX"}));
  LoopSubsets S = computeSubsets(*K, L);
  ASSERT_GE(S.NumGroups, 2u);
  for (Variant V : {Variant::DL1_G0, Variant::DL1_G1}) {
    VariantResult R = build(L, V);
    EXPECT_NE(R.Why, DECAN_WHY_STORE_ADDRESS_LOADED) << variantName(V);
    if (R.Status == VariantStatus::OK)
      EXPECT_TRUE(writesNothing(R)) << variantName(V);
  }
}

TEST_F(DL1InPlaceStoreTest, AStoreToAGlobalStaysOnItsLine) {
  // `sum = s` each iteration, RIP-relative: a constant address the scratch
  // layout leaves where it is (one L1-resident line already). DL1 used to
  // be refused for it; now the store is a prefetch of that line.
  LoopBody L =
      loop(*K,
           {ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"}),
            ins(*K, "MOVSDmr", {"RIP", "#1", "-", "#4096", "-", "XMM0"})},
           "#1");
  L.FreeRegs = K->unusedRegs(L);
  VariantResult R = build(L, Variant::DL1);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(writesNothing(R));
  std::vector<Instr> St = of(R, 1);
  ASSERT_EQ(St.size(), 1u);
  EXPECT_EQ(name(St[0]), "PREFETCHT0");
  EXPECT_EQ(St[0].Ops[0].Reg, K->reg("RIP"));
  EXPECT_EQ(St[0].Ops[3].Imm, 4096);
  EXPECT_FALSE(of(R, 0)[0].Unchanged); // b[i] in the scratch area
}
