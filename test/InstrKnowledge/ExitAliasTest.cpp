//===- ExitAliasTest.cpp - Exits that may read what a variant changes -----===//
//
// Part of decan's tests. Issue 27: a loop whose exit may read memory its
// stores or calls write, with nothing proving it either way, gets variants
// in copies that carry an iteration cap and report a trip count
// (VariantOptions::ExitCapped); where the operands show the exit reads the
// array the loop writes, or the exit depends on a call that writes, every
// variant is still refused, with what a user could change in the reason.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/Variants.h"
#include "decan/abi_names.h"

#include "llvm/ADT/StringRef.h"

using namespace decan;
using namespace decan::test;

namespace {
class ExitAliasTest : public ::testing::Test {
protected:
  void SetUp() override { K = knowledge(); }
  VariantResult build(const LoopBody &L, Variant V, bool Capped) {
    LoopSubsets S = computeSubsets(*K, L);
    VariantOptions O;
    O.ExitCapped = Capped;
    return buildVariant(*K, L, S, V, O);
  }
  /// `do { b[i] = y; y += 3; } while (a[++i] != x)`: the store's base
  /// register is \p StoreBase, the exit's load's RCX (other registers: the
  /// rewriter cannot tell whether they are one array).
  LoopBody storeAndExitLoad(const char *StoreBase) {
    return singleBlockLoop(
        {ins(*K, "MOV32mr", {StoreBase, "#4", "RDX", "#0", "-", "EAX"}),
         ins(*K, "ADD32ri", {"EAX", "EAX", "#3"}),
         ins(*K, "ADD64ri32", {"RDX", "RDX", "#1"}),
         ins(*K, "MOV32rm", {"EDI", "RCX", "#4", "RDX", "#0", "-"}),
         ins(*K, "CMP32rr", {"R9D", "EDI"}), ins(*K, "JCC_1", {"#0", "#5"})});
  }
  std::unique_ptr<X86Knowledge> K;
};

const Variant Measured[] = {Variant::LS, Variant::FP, Variant::DL1,
                            Variant::CTRL};
} // namespace

TEST_F(ExitAliasTest, UnprovenAliasGetsVariantsInCappedCopies) {
  LoopBody L = storeAndExitLoad("RSI");
  LoopSubsets S = computeSubsets(*K, L);
  EXPECT_FALSE(S.CtrlReadsStoredMemory);
  EXPECT_TRUE(S.CtrlMayReadStoredMemory);
  EXPECT_TRUE(S.CtrlReadsMemory); // so every variant copy carries a cap
  for (Variant V : Measured) {
    // Uncapped (or no trip count to check samples against): refused.
    VariantResult U = build(L, V, false);
    EXPECT_EQ(U.Status, VariantStatus::Unsupported) << variantName(V);
    EXPECT_EQ(U.Why, DECAN_WHY_EXIT_READS_STORED) << variantName(V);
    // Capped: built; the exit's slice is untouched as in any loop.
    VariantResult C = build(L, V, true);
    EXPECT_NE(C.Why, DECAN_WHY_EXIT_READS_STORED) << variantName(V);
  }
  VariantResult LS = build(L, Variant::LS, true);
  ASSERT_EQ(LS.Status, VariantStatus::OK) << LS.Reason;
  // LS removes the arithmetic and nothing else: the store became a load,
  // the exit's load and compare are unchanged.
  unsigned Stores = 0, Adds = 0;
  for (const Instr &I : LS.Body.Instrs) {
    if (I.Padding)
      continue;
    Stores += !!(K->classify(I.Opcode) & SubsetStore);
    Adds += K->opcodeName(I.Opcode) == "ADD32ri";
  }
  EXPECT_EQ(Stores, 0u);
  EXPECT_EQ(Adds, 0u);
}

TEST_F(ExitAliasTest, TheSameArrayStaysRefusedWithAHint) {
  // IntEqClasses::join: the store and the exit's load share a base
  // register (one array); a cap would end the copy, but its trip count
  // would be another on every call: no variant.
  LoopBody L = storeAndExitLoad("RCX");
  EXPECT_TRUE(computeSubsets(*K, L).CtrlReadsStoredMemory);
  for (Variant V : Measured) {
    VariantResult R = build(L, V, true);
    EXPECT_EQ(R.Status, VariantStatus::Unsupported) << variantName(V);
    EXPECT_EQ(R.Why, DECAN_WHY_EXIT_READS_STORED) << variantName(V);
    EXPECT_NE(R.Reason.find("local variable"), std::string::npos) << R.Reason;
  }
}

TEST_F(ExitAliasTest, AliasFactsDecideInThePlugin) {
  LoopBody L = storeAndExitLoad("RSI");
  L.ExitMayReadStored = false; // alias analysis: disjoint
  EXPECT_FALSE(computeSubsets(*K, L).CtrlMayReadStoredMemory);
  EXPECT_EQ(build(L, Variant::LS, false).Status, VariantStatus::OK);
  L.ExitMayReadStored = true; // "may": refused without a cap only
  EXPECT_EQ(build(L, Variant::LS, false).Why, DECAN_WHY_EXIT_READS_STORED);
  EXPECT_EQ(build(L, Variant::LS, true).Status, VariantStatus::OK);
}

TEST_F(ExitAliasTest, ACallThatMayWriteWhatTheExitReads) {
  // The exit compares with a bound in memory; a callee may write it.
  Instr Call = ins(*K, "CALL64pcrel32", {"#0"});
  Call.Call = CallKind::MayWrite;
  for (unsigned R : K->callClobberedRegs())
    Call.ImplicitDefs.push_back(R);
  LoopBody L = singleBlockLoop(
      {ins(*K, "MOVSDrm", {"XMM0", "R13", "#1", "RBX", "#0", "-"}), Call,
       ins(*K, "ADD64ri32", {"RBX", "RBX", "#8"}),
       ins(*K, "CMP64rm", {"RBX", "R15", "#1", "-", "#0", "-"}),
       ins(*K, "JCC_1", {"#0", "#5"})});
  L.ExitMayReadStored = false;
  EXPECT_EQ(build(L, Variant::LS, false).Why,
            DECAN_WHY_EXIT_READS_CALL_WRITTEN);
  // Capped: NO_CALL deletes the call; a call that changed the bound shows
  // as another trip count, and that sample is dropped.
  VariantResult R = build(L, Variant::NO_CALL, true);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(R.CallsDeleted);
}

TEST_F(ExitAliasTest, AnExitOnAWritingCallStaysRefused) {
  // The exit tests the call's result: a variant can neither delete the
  // call (the exit would test something else) nor keep it (it would write
  // program memory before REF runs on the same input), capped or not.
  Instr Call = ins(*K, "CALL64pcrel32", {"#0"});
  Call.Call = CallKind::MayWrite;
  for (unsigned R : K->callClobberedRegs())
    Call.ImplicitDefs.push_back(R);
  LoopBody L = singleBlockLoop(
      {ins(*K, "MOVSDrm", {"XMM0", "R13", "#1", "RBX", "#0", "-"}), Call,
       ins(*K, "ADD64ri32", {"RBX", "RBX", "#8"}),
       ins(*K, "CMP64rr", {"RBX", "RAX"}), ins(*K, "JCC_1", {"#0", "#5"})});
  L.ExitMayReadStored = false;
  for (bool Capped : {false, true}) {
    VariantResult R = build(L, Variant::LS, Capped);
    EXPECT_EQ(R.Why, DECAN_WHY_EXIT_DEPENDS_ON_CALL);
    EXPECT_NE(R.Reason.find("pure or const"), std::string::npos) << R.Reason;
  }
}
