//===- StoreRedPrefetchTest.cpp - S2L, NO_STORE, NO_RED, PREFETCH ---------===//
//
// Part of decan's tests. The variants of thesis 4.4.3 and Table 5.2 that
// target the stores, the reduction chain and the load ports: the RED
// subset, and what each variant makes of each instruction.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/Variants.h"
#include "decan/abi_names.h"

using namespace decan;
using namespace decan::test;

namespace {
class StoreRedPrefetchTest : public ::testing::Test {
protected:
  void SetUp() override { K = knowledge(); }
  VariantResult build(const LoopBody &L, Variant V) {
    return buildVariant(*K, L, computeSubsets(*K, L), V, VariantOptions());
  }
  std::vector<Instr> of(const VariantResult &R, unsigned Id) {
    std::vector<Instr> Out;
    for (const Instr &I : R.Body.Instrs)
      if (I.Id == Id)
        Out.push_back(I);
    return Out;
  }
  unsigned red(const LoopBody &L) {
    LoopSubsets S = computeSubsets(*K, L);
    unsigned Mask = 0;
    for (unsigned I = 0; I < S.Bits.size(); ++I)
      if (S.Bits[I] & SubsetRed)
        Mask |= 1u << I;
    EXPECT_EQ(S.NumRed, (unsigned)__builtin_popcount(Mask));
    return Mask;
  }
  std::string name(const Instr &I) { return K->opcodeName(I.Opcode).str(); }
  std::unique_ptr<X86Knowledge> K;
};

/// y[i] = x[i] * a: a load, a multiply and a store.
LoopBody scale(const X86Knowledge &K) {
  LoopBody L =
      loop(K,
           {ins(K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#0", "-"}),
            ins(K, "MULSDrr", {"XMM1", "XMM1", "XMM2"}),
            ins(K, "MOVSDmr", {"RDI", "#8", "RCX", "#0", "-", "XMM1"})},
           "#1");
  // XMM7: a load into it is as long as the store (no REX prefix).
  L.FreeRegs = {K.reg("XMM7"), K.reg("R11")};
  return L;
}

/// s += x[i] * y[i]: the add is the reduction, the multiply is not.
LoopBody dot(const X86Knowledge &K) {
  LoopBody L =
      loop(K,
           {ins(K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#0", "-"}),
            ins(K, "MULSDrm", {"XMM1", "XMM1", "RDI", "#8", "RCX", "#0", "-"}),
            ins(K, "ADDSDrr", {"XMM0", "XMM0", "XMM1"})},
           "#1");
  L.FreeRegs = {K.reg("XMM15"), K.reg("R11")};
  return L;
}
} // namespace

TEST_F(StoreRedPrefetchTest, S2LTurnsOnlyStoresIntoLoads) {
  LoopBody L = scale(*K);
  VariantResult R = build(L, Variant::S2L);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(of(R, 0)[0].Unchanged);
  EXPECT_TRUE(of(R, 1)[0].Unchanged);
  std::vector<Instr> St = of(R, 2);
  ASSERT_EQ(St.size(), 1u);
  EXPECT_EQ(name(St[0]), "MOVSDrm");
  EXPECT_EQ(St[0].Ops[0].Reg, K->reg("XMM7")); // a free register
  EXPECT_EQ(St[0].Ops[1].Reg, K->reg("RDI"));  // the store's address
  EXPECT_EQ(St[0].Ops[3].Reg, K->reg("RCX"));
  EXPECT_EQ(R.Bytes, R.RefBytes);
  EXPECT_EQ(storePolicy(Variant::S2L), DECAN_STORE_AS_LOAD);
}

TEST_F(StoreRedPrefetchTest, NoStoreDeletesStoresAndKeepsTheReadOfAnUpdate) {
  VariantResult R = build(scale(*K), Variant::NO_STORE);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(of(R, 2).empty()); // only NOP padding is left of it
  EXPECT_EQ(R.Bytes, R.RefBytes);
  EXPECT_EQ(storePolicy(Variant::NO_STORE), DECAN_STORE_DELETED);
  // count[k[i]] += 1: the read stays, the write goes.
  LoopBody U = loop(
      *K, {ins(*K, "ADD32mi", {"RDI", "#4", "RCX", "#0", "-", "#1"})}, "#1");
  U.FreeRegs = {K->reg("R11")};
  VariantResult RU = build(U, Variant::NO_STORE);
  ASSERT_EQ(RU.Status, VariantStatus::OK) << RU.Reason;
  std::vector<Instr> I = of(RU, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "MOV32rm");
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("RDI"));
}

TEST_F(StoreRedPrefetchTest, StoreVariantsAreEmptyWithoutStores) {
  for (Variant V : {Variant::S2L, Variant::NO_STORE}) {
    VariantResult R = build(dot(*K), V);
    EXPECT_EQ(R.Status, VariantStatus::Empty) << variantName(V);
    EXPECT_EQ(R.Why, DECAN_WHY_NO_STORE) << variantName(V);
  }
}

TEST_F(StoreRedPrefetchTest, RedSubsetIsTheAccumulatorChain) {
  EXPECT_EQ(red(dot(*K)), 1u << 2); // the add; not the multiply, not rcx
  // Two updates of one accumulator per iteration (an unrolled sum).
  LoopBody U = loop(
      *K,
      {ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"}),
       ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#8", "-"}),
       ins(*K, "ADDSDrm", {"XMM3", "XMM3", "RDI", "#8", "RCX", "#0", "-"})},
      "#2");
  EXPECT_EQ(red(U), 0b111u);
  // A prefix sum stores its accumulator: no reduction.
  LoopBody P =
      loop(*K,
           {ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"}),
            ins(*K, "MOVSDmr", {"RDI", "#8", "RCX", "#0", "-", "XMM0"})},
           "#1");
  EXPECT_EQ(red(P), 0u);
  // An accumulator the next value is computed from is no reduction either
  // (x = x * a + b: a recurrence, its latency is the computation).
  LoopBody Q = loop(*K, {ins(*K, "MULSDrr", {"XMM0", "XMM0", "XMM1"}),
                         ins(*K, "ADDSDrr", {"XMM2", "XMM2", "XMM0"})});
  EXPECT_EQ(red(Q), 1u << 1);
  // Unrolled with the accumulator alternating between two registers (the
  // rewriter's view of clang -O1): s1 = p0 + s0; s0 = p1 + s1.
  LoopBody A =
      loop(*K,
           {ins(*K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#0", "-"}),
            ins(*K, "ADDSDrr", {"XMM1", "XMM1", "XMM0"}),
            ins(*K, "MOVSDrm", {"XMM0", "RSI", "#8", "RCX", "#8", "-"}),
            ins(*K, "ADDSDrr", {"XMM0", "XMM0", "XMM1"})},
           "#2");
  EXPECT_EQ(red(A), (1u << 1) | (1u << 3));
  // An integer count outside the control slice is one.
  LoopBody C = loop(
      *K, {ins(*K, "ADD32rm", {"EAX", "EAX", "RSI", "#4", "RCX", "#0", "-"})},
      "#1");
  EXPECT_EQ(red(C), 1u);
}

TEST_F(StoreRedPrefetchTest, NoRedDeletesTheChainAndKeepsItsLoads) {
  VariantResult R = build(dot(*K), Variant::NO_RED);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  EXPECT_TRUE(of(R, 2).empty()); // the add: gone, XMM0 keeps its value
  EXPECT_TRUE(of(R, 1)[0].Unchanged);
  // A load-op update: its load stays, into a free register.
  LoopBody U = loop(
      *K, {ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"})},
      "#1");
  U.FreeRegs = {K->reg("XMM15")};
  VariantResult RU = build(U, Variant::NO_RED);
  ASSERT_EQ(RU.Status, VariantStatus::OK) << RU.Reason;
  std::vector<Instr> I = of(RU, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("XMM15"));
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("RSI"));
  // Stores become loads, as in every variant but REF.
  EXPECT_EQ(storePolicy(Variant::NO_RED), DECAN_STORE_AS_LOAD);
  VariantResult E = build(scale(*K), Variant::NO_RED);
  EXPECT_EQ(E.Status, VariantStatus::Empty);
  EXPECT_EQ(E.Why, DECAN_WHY_NO_RED);
}

TEST_F(StoreRedPrefetchTest, NoRedKeepsTheMultiplyOfAnFMA) {
  // acc += x * y[i] as one FMA: only the add is the chain's.
  LoopBody L =
      loop(*K,
           {ins(*K, "VFMADD231PDYm",
                {"YMM0", "YMM0", "YMM1", "RSI", "#8", "RCX", "#0", "-"})},
           "#4");
  L.FreeRegs = {K->reg("XMM7")};
  EXPECT_EQ(red(L), 1u);
  VariantResult R = build(L, Variant::NO_RED);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> I = of(R, 0);
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(name(I[0]), "VMULPDYrm");
  EXPECT_EQ(I[0].Ops[0].Reg, K->reg("YMM7"));
  EXPECT_EQ(I[0].Ops[1].Reg, K->reg("YMM1"));
  EXPECT_EQ(I[0].Ops[2].Reg, K->reg("RSI"));
}

TEST_F(StoreRedPrefetchTest, PrefetchRepeatsEachAccess) {
  VariantResult R = build(scale(*K), Variant::PREFETCH);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  std::vector<Instr> Ld = of(R, 0);
  ASSERT_EQ(Ld.size(), 2u);
  EXPECT_TRUE(Ld[0].Unchanged);
  EXPECT_EQ(name(Ld[1]), "PREFETCHT0");
  for (unsigned J = 0; J < 5; ++J)
    EXPECT_TRUE(Ld[1].Ops[J] == Ld[0].Ops[1 + J]) << J; // same address
  EXPECT_TRUE(of(R, 1)[0].Unchanged);                   // arithmetic untouched
  std::vector<Instr> St = of(R, 2);
  ASSERT_EQ(St.size(), 2u);
  EXPECT_EQ(name(St[0]), "MOVSDrm"); // the store as a load
  EXPECT_EQ(name(St[1]), "PREFETCHT0");
  EXPECT_EQ(St[1].Ops[0].Reg, K->reg("RDI"));
  EXPECT_GT(R.Bytes, 0u);
  EXPECT_EQ(storePolicy(Variant::PREFETCH), DECAN_STORE_AS_LOAD);
}

TEST_F(StoreRedPrefetchTest, NewVariantsKeepOnlyCallsThatWriteNothing) {
  for (Variant V :
       {Variant::S2L, Variant::NO_STORE, Variant::NO_RED, Variant::PREFETCH}) {
    EXPECT_FALSE(keepsCall(V, CallKind::MayWrite)) << variantName(V);
    EXPECT_FALSE(keepsCall(V, CallKind::Memory)) << variantName(V);
    EXPECT_TRUE(keepsCall(V, CallKind::ReadOnly)) << variantName(V);
    EXPECT_TRUE(keepsCall(V, CallKind::Pure)) << variantName(V);
  }
}

TEST_F(StoreRedPrefetchTest, GroupsAreDataStructures) {
  // b[i-1] + b[i] + b[i+1] -> a[i]: two groups (b: three displacements of
  // one array, hit under miss stays inside it), the stack none.
  LoopBody L =
      loop(*K,
           {ins(*K, "MOVSDrm", {"XMM1", "RSI", "#8", "RCX", "#-8", "-"}),
            ins(*K, "ADDSDrm", {"XMM1", "XMM1", "RSI", "#8", "RCX", "#0", "-"}),
            ins(*K, "ADDSDrm", {"XMM1", "XMM1", "RSI", "#8", "RCX", "#8", "-"}),
            ins(*K, "MULSDrm", {"XMM1", "XMM1", "RSP", "#1", "-", "#16", "-"}),
            ins(*K, "MOVSDmr", {"RDI", "#8", "RCX", "#0", "-", "XMM1"})},
           "#1");
  L.FreeRegs = {K->reg("XMM7"), K->reg("R11")};
  LoopSubsets S = computeSubsets(*K, L);
  ASSERT_EQ(S.NumGroups, 2u);
  EXPECT_EQ(S.GroupNames[0], "(%rsi,%rcx,8)");
  EXPECT_EQ(S.GroupNames[1], "(%rdi,%rcx,8)");
  EXPECT_EQ(S.GroupAccesses[0], 3u);
  EXPECT_EQ(S.GroupAccesses[1], 1u);
  EXPECT_EQ(S.Group[3], -1); // the frame
  decan_machine_info MI{};
  recordGroups(S, MI);
  EXPECT_EQ(MI.n_groups, 2u);
  EXPECT_STREQ(MI.group_name[1], "(%rdi,%rcx,8)");

  // NO_G0 removes b as FP removes memory: the pure load becomes an idiom,
  // the load-ops their register forms; a's store becomes a load.
  VariantResult R = build(L, Variant::NO_G0);
  ASSERT_EQ(R.Status, VariantStatus::OK) << R.Reason;
  for (unsigned Id : {0u, 1u, 2u})
    for (const Instr &I : of(R, Id))
      EXPECT_EQ(K->memOperandIndex(I.Opcode), -1) << name(I);
  EXPECT_TRUE(of(R, 3)[0].Unchanged);
  EXPECT_EQ(name(of(R, 4)[0]), "MOVSDrm");
  // NO_G1 deletes the store and keeps b.
  VariantResult R1 = build(L, Variant::NO_G1);
  ASSERT_EQ(R1.Status, VariantStatus::OK) << R1.Reason;
  EXPECT_TRUE(of(R1, 4).empty());
  EXPECT_TRUE(of(R1, 0)[0].Unchanged);
  // DL1_G0 sends b to the scratch area, a's store becomes a load in place.
  VariantResult D = build(L, Variant::DL1_G0);
  ASSERT_EQ(D.Status, VariantStatus::OK) << D.Reason;
  EXPECT_EQ(of(D, 0)[0].Ops[4].Kind, Operand::Scratch);
  EXPECT_EQ(of(D, 4)[0].Ops[1].Reg, K->reg("RDI"));
  // No third group; a loop of one group has no GROUPING.
  EXPECT_EQ(build(L, Variant::NO_G2).Status, VariantStatus::Empty);
  EXPECT_EQ(build(L, Variant::NO_G2).Why, DECAN_WHY_NO_GROUP);
  EXPECT_EQ(build(scale(*K), Variant::DL1_G0).Status, VariantStatus::OK);
  EXPECT_EQ(build(dot(*K), Variant::NO_G1).Status, VariantStatus::OK);
  LoopBody One = loop(
      *K, {ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RSI", "#8", "RCX", "#0", "-"})},
      "#1");
  EXPECT_EQ(build(One, Variant::NO_G0).Status, VariantStatus::Empty);
}

TEST_F(StoreRedPrefetchTest, AGroupOfIndexesIsNotRemoved) {
  // b[idx[i]]: removing idx would move b's accesses too.
  LoopBody L = loop(
      *K,
      {ins(*K, "MOV32rm", {"EAX", "RSI", "#4", "RCX", "#0", "-"}),
       ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RDI", "#8", "RAX", "#0", "-"})},
      "#1");
  LoopSubsets S = computeSubsets(*K, L);
  ASSERT_EQ(S.NumGroups, 2u);
  VariantResult R = build(L, Variant::NO_G0);
  EXPECT_EQ(R.Status, VariantStatus::Unsupported);
  EXPECT_NE(R.Reason.find("addresses or indexes"), std::string::npos);
  EXPECT_EQ(build(L, Variant::NO_G1).Status, VariantStatus::OK);
}
