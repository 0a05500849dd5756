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
  /// rewriter cannot tell whether they are one array); \p StoreDisp "#4"
  /// stores b[i+1], what the exit reads next.
  LoopBody storeAndExitLoad(const char *StoreBase,
                            const char *StoreDisp = "#0") {
    return singleBlockLoop(
        {ins(*K, "MOV32mr", {StoreBase, "#4", "RDX", StoreDisp, "-", "EAX"}),
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
  // `do { a[i+1] = y; } while (a[++i] != x)`: the exit reads what the
  // loop stored; a cap would end the copy, but its trip count would be
  // another on every call: no variant.
  LoopBody L = storeAndExitLoad("RCX", "#4");
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

TEST_F(ExitAliasTest, TheSameArrayBehindTheExitsLoadGetsVariants) {
  // `do { a[i] = y; } while (a[++i] != x)`: one array, but the exit reads
  // a[i+1] before the loop stores there: every copy reads what REF reads.
  LoopBody L = storeAndExitLoad("RCX");
  LoopSubsets S = computeSubsets(*K, L);
  EXPECT_FALSE(S.CtrlReadsStoredMemory);
  EXPECT_FALSE(S.CtrlMayReadStoredMemory);
  EXPECT_TRUE(S.CtrlReadsMemory); // capped all the same
  for (Variant V : Measured)
    EXPECT_NE(build(L, V, false).Why, DECAN_WHY_EXIT_READS_STORED)
        << variantName(V);
  EXPECT_EQ(build(L, Variant::LS, false).Status, VariantStatus::OK);
}

TEST_F(ExitAliasTest, ALoadThatCatchesUpWithTheStoresIsRefused) {
  // `do { a[i+4] = y; } while (a[++i] != x)`: four iterations later the
  // exit reads what the loop stored.
  LoopBody L = storeAndExitLoad("RCX", "#16");
  EXPECT_TRUE(computeSubsets(*K, L).CtrlReadsStoredMemory);
  // A counter in memory (`while (*p != x) *p = y`): the same address in
  // every iteration.
  LoopBody C = singleBlockLoop(
      {ins(*K, "MOV32rm", {"EDI", "RCX", "#1", "-", "#0", "-"}),
       ins(*K, "MOV32mr", {"RCX", "#1", "-", "#0", "-", "EAX"}),
       ins(*K, "CMP32rr", {"R9D", "EDI"}), ins(*K, "JCC_1", {"#0", "#5"})});
  EXPECT_TRUE(computeSubsets(*K, C).CtrlReadsStoredMemory);
}

namespace {
/// bzip2's partition loop (fallbackQSort3): the header loads `v =
/// fmap[hi]` through RAX and exits on `eclass[v] != med`; one path steps
/// on (`hi--`), the other swaps the element just read away (`hi--;
/// fmap[hi+1] = fmap[gt]; fmap[gt--] = v`). Both move RAX by \p Step1 and
/// \p Step2 bytes.
LoopBody partitionLoop(const X86Knowledge &K, const char *Step1,
                       const char *Step2) {
  std::vector<Instr> I = {
      // B0: header
      ins(K, "MOV32rm", {"R13D", "RAX", "#1", "-", "#0", "-"}),
      ins(K, "CMP32mr", {"RBX", "#4", "R13", "#0", "-", "R8D"}),
      ins(K, "JCC_1", {"#0", "#5"}),
      // B1: no swap
      ins(K, "SUB64ri32", {"RAX", "RAX", Step1}),
      ins(K, "CMP32rr", {"EDX", "EDI"}), ins(K, "JCC_1", {"#0", "#15"}),
      // B2: swap
      ins(K, "SUB64ri32", {"RAX", "RAX", Step2}),
      ins(K, "MOV32rm", {"R10D", "R12", "#4", "R9", "#0", "-"}),
      ins(K, "MOV32mr", {"RAX", "#1", "-", "#4", "-", "R10D"}),
      ins(K, "MOV32mr", {"R12", "#4", "R9", "#0", "-", "R13D"}),
      ins(K, "SUB64ri32", {"R9", "R9", "#1"}),
      ins(K, "CMP32rr", {"EDX", "EDI"}), ins(K, "JCC_1", {"#0", "#15"})};
  LoopBody L;
  L.Instrs = std::move(I);
  for (unsigned J = 0; J < L.Instrs.size(); ++J)
    L.Instrs[J].Id = J;
  L.Blocks.resize(3);
  L.Blocks[0] = {0, 3, {1, 2}, true};
  L.Blocks[1] = {3, 6, {0}, true};
  L.Blocks[2] = {6, 13, {0}, true};
  return L;
}
} // namespace

TEST_F(ExitAliasTest, ASwapOfTheElementJustReadOnEveryPath) {
  LoopBody L = partitionLoop(*K, "#4", "#4");
  LoopSubsets S = computeSubsets(*K, L);
  // The store through RAX writes the element the header read; the header
  // reads lower ones next. The stores through R12 are another array for
  // all the operands say: capped copies.
  EXPECT_FALSE(S.CtrlReadsStoredMemory);
  EXPECT_TRUE(S.CtrlMayReadStoredMemory);
  for (Variant V : Measured)
    EXPECT_EQ(build(L, V, true).Status, VariantStatus::OK) << variantName(V);
  // Paths that move RAX by different amounts: where the load is in a
  // later iteration is unknown, refused.
  EXPECT_TRUE(
      computeSubsets(*K, partitionLoop(*K, "#4", "#8")).CtrlReadsStoredMemory);
  // Moving up instead, the load reaches the element the swap stored.
  EXPECT_TRUE(computeSubsets(*K, partitionLoop(*K, "#-4", "#-4"))
                  .CtrlReadsStoredMemory);
}

namespace {
/// xz's price loop (sub_190b0:L12): the element's address is recomputed
/// from the count each iteration (`lea (%rax,%rax), %rsi; lea (%rdi,%rsi,4),
/// %rsi`, 8 bytes per count), the exit compares the element and the loop
/// stores \p StoreDisp into it; the count moves by \p Step.
LoopBody recomputedAddressLoop(const X86Knowledge &K, const char *StoreDisp,
                               const char *Step, bool LoadedIndex = false) {
  return singleBlockLoop(
      {LoadedIndex ? ins(K, "MOV64rm", {"RAX", "R10", "#1", "-", "#0", "-"})
                   : ins(K, "ADD64ri32", {"RAX", "RAX", Step}),
       ins(K, "LEA64r", {"RSI", "RAX", "#1", "RAX", "#0", "-"}),
       ins(K, "LEA64r", {"RSI", "RDI", "#4", "RSI", "#0", "-"}),
       ins(K, "MOV32rm", {"EDX", "RSI", "#1", "-", "#16", "-"}),
       ins(K, "MOV32mr", {"RSI", "#1", "-", StoreDisp, "-", "R8D"}),
       ins(K, "CMP32rr", {"EDX", "R9D"}), ins(K, "JCC_1", {"#0", "#5"})});
}
} // namespace

TEST_F(ExitAliasTest, AnAddressRecomputedFromTheCountEachIteration) {
  // The store writes the element the exit just read; the count moves
  // down, to elements not yet stored: variants.
  LoopBody L = recomputedAddressLoop(*K, "#16", "#-1");
  EXPECT_FALSE(computeSubsets(*K, L).CtrlReadsStoredMemory);
  EXPECT_EQ(build(L, Variant::LS, false).Status, VariantStatus::OK);
  // Storing the next element up while the count moves up: the exit reads
  // it in the next iteration.
  EXPECT_TRUE(computeSubsets(*K, recomputedAddressLoop(*K, "#24", "#1"))
                  .CtrlReadsStoredMemory);
  // A count loaded from memory: no stride, refused.
  EXPECT_TRUE(computeSubsets(*K, recomputedAddressLoop(*K, "#16", "#-1", true))
                  .CtrlReadsStoredMemory);
}
