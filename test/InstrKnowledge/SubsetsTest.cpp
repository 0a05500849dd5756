//===- SubsetsTest.cpp - Subset classification of x86-64 opcodes ----------===//
//
// Every opcode family the classifier claims to handle, found by name
// pattern over all X86 opcodes, gets the expected subsets. Each family must
// match opcodes (a renamed family fails the test instead of passing empty).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/MC/MCInstrInfo.h"

#include <regex>

using namespace decan;
using namespace decan::test;

namespace {
struct Family {
  const char *Pattern;
  unsigned Must;    ///< bits every member has
  unsigned MustNot; ///< bits no member has
};

class SubsetsTest : public ::testing::Test {
protected:
  void SetUp() override { K = knowledge(); }
  void check(const Family &F) {
    std::regex Re(F.Pattern);
    unsigned N = 0;
    const llvm::MCInstrInfo &MII = K->instrInfo();
    for (unsigned Op = 0; Op < MII.getNumOpcodes(); ++Op) {
      std::string Name = MII.getName(Op).str();
      if (!std::regex_match(Name, Re))
        continue;
      ++N;
      unsigned B = K->classify(Op);
      EXPECT_EQ(B & F.Must, F.Must) << Name << " in " << F.Pattern;
      EXPECT_EQ(B & F.MustNot, 0u) << Name << " in " << F.Pattern;
    }
    EXPECT_GT(N, 0u) << "no opcode matches " << F.Pattern;
  }
  std::unique_ptr<X86Knowledge> K;
};
} // namespace

TEST_F(SubsetsTest, ScalarAndPackedFPArithmetic) {
  // SSE, AVX, AVX-512 (all widths, masked forms) register forms.
  check({"V?(ADD|SUB|MUL|MIN|MAX)(PS|PD|SS|SD)(Y|Z|Z128|Z256)?rr(k|kz)?",
         SubsetFP, SubsetLoad | SubsetStore | SubsetDiv | SubsetOther});
  check({"VF(N)?M(ADD|SUB)(132|213|231)(PS|PD|SS|SD)(Y|Z|Z128|Z256)?(r|rr)",
         SubsetFP, SubsetLoad | SubsetStore | SubsetDiv});
  // Load-op forms: arithmetic and a load, not a pure memory access.
  check({"V?(ADD|SUB|MUL)(PS|PD|SS|SD)(Y|Z|Z128|Z256)?rm(b)?(k|kz)?",
         SubsetFP | SubsetLoad, SubsetStore | SubsetPureMem | SubsetDiv});
}

TEST_F(SubsetsTest, IntegerSIMDIsArithmetic) {
  check({"V?P(ADD|SUB|MULL|AND|OR|XOR|CMPEQ|CMPGT|SHUFB|MADDWD)(B|W|D|Q)?"
         "(Y|Z|Z128|Z256)?rr",
         SubsetFP, SubsetLoad | SubsetStore | SubsetOther});
}

TEST_F(SubsetsTest, DivisionsAndSquareRoots) {
  check({"V?(DIV|SQRT)(PS|PD|SS|SD)(Y|Z|Z128|Z256)?(r|rr|m|rm)(b)?(k|kz)?",
         SubsetDiv | SubsetFP, SubsetStore});
  check({"I?DIV(8|16|32|64)r", SubsetDiv | SubsetOther, SubsetFP});
  check({"I?DIV(8|16|32|64)m", SubsetDiv | SubsetLoad, SubsetStore});
  // Reciprocal approximations have a fixed latency: not DIV.
  check({"V?(RCP|RSQRT)(PS|SS)(Y)?r", SubsetFP, SubsetDiv});
}

TEST_F(SubsetsTest, PureLoadsAndStores) {
  check({"V?MOV(UPS|UPD|APS|APD|DQU|DQA)(Y)?rm", SubsetLoad | SubsetPureMem,
         SubsetStore | SubsetFP});
  check({"VMOV(UPS|UPD|APS|APD|DQU32|DQU64|DQA64)(Z|Z128|Z256)rm(k|kz)?",
         SubsetLoad | SubsetPureMem, SubsetStore | SubsetFP});
  check({"V?MOV(UPS|UPD|APS|APD|DQU|DQA)(Y)?mr", SubsetStore | SubsetPureMem,
         SubsetLoad | SubsetFP});
  check({"V?MOV(SS|SD)rm", SubsetLoad | SubsetPureMem, SubsetFP});
  check({"V?MOV(SS|SD)mr", SubsetStore | SubsetPureMem, SubsetFP});
  check({"MOV(8|16|32|64)rm", SubsetLoad | SubsetPureMem, SubsetFP});
  check({"MOV(8|16|32|64)mr", SubsetStore | SubsetPureMem, SubsetFP});
  check({"MOV(ZX|SX)(32|64)rm(8|16)", SubsetLoad | SubsetPureMem, SubsetFP});
  check(
      {"VBROADCASTS(S|D)(Y|Z|Z256)?rm", SubsetLoad | SubsetPureMem, SubsetFP});
  check({"PREFETCH(T0|T1|T2|NTA)", SubsetLoad | SubsetPureMem, SubsetStore});
  check(
      {"VP?MASKMOV(PS|PD|D|Q)(Y)?mr", SubsetStore | SubsetPureMem, SubsetLoad});
  check(
      {"VP?MASKMOV(PS|PD|D|Q)(Y)?rm", SubsetLoad | SubsetPureMem, SubsetStore});
}

TEST_F(SubsetsTest, IntegerWork) {
  check({"(ADD|SUB|AND|OR|XOR|ADC|SBB)(8|16|32|64)(rr|ri|ri32)", SubsetOther,
         SubsetFP | SubsetLoad | SubsetStore | SubsetDiv});
  check({"(ADD|SUB|AND|OR|XOR|CMP)(32|64)rm", SubsetOther | SubsetLoad,
         SubsetFP | SubsetStore | SubsetPureMem});
  check({"(ADD|SUB|AND|OR|XOR)(32|64)mr", SubsetLoad | SubsetStore,
         SubsetFP | SubsetPureMem});
  check({"(IMUL|LEA)(32|64)r.*", SubsetOther, SubsetFP | SubsetDiv});
  check({"(CMP|TEST)(8|16|32|64)rr", SubsetOther, SubsetFP});
}

TEST_F(SubsetsTest, GathersAndScatters) {
  check({"VP?GATHER(D|Q)(PS|PD|D|Q)(Y|Z|Z128|Z256)?rm",
         SubsetLoad | SubsetGather, SubsetStore});
  check({"VP?SCATTER(D|Q)(PS|PD|D|Q)(Z|Z128|Z256)mr",
         SubsetStore | SubsetGather, 0});
}

TEST_F(SubsetsTest, BranchesNopsAndUnsupported) {
  check({"JCC_(1|2|4)", SubsetBranch, SubsetUnsupported});
  check({"JMP_(1|2|4)", SubsetBranch, SubsetUnsupported});
  check({"NOOP(W|L|Q)?(r)?", SubsetNop, SubsetUnsupported});
  check({"CALL(64pcrel32|64r|64m)", SubsetCall, SubsetUnsupported});
  check({"TCRETURN(di|ri|mi)64", SubsetUnsupported, SubsetCall});
  check({"(ADD|SUB|MUL|DIV)_F(32|64)m", SubsetUnsupported, 0}); // x87
  check({"(ADD|MUL|DIV)_Fp(32|64|80)", SubsetUnsupported, 0});
  check({"MMX_P(ADD|SUB)(B|W|D|Q)rr", SubsetUnsupported, 0});
  check({"LOCK_(ADD|SUB|OR|AND)(32|64)mr", SubsetUnsupported, 0});
  check({"(MOVS|STOS)(B|W|L|Q)", SubsetUnsupported, 0});
  check({"(PUSH|POP)64r", SubsetUnsupported, 0});
}

TEST_F(SubsetsTest, MemoryOperandIndexAndWidth) {
  // ADDSDrm: dst, src1, base, scale, index, disp, segment.
  EXPECT_EQ(K->memOperandIndex(K->opcode("ADDSDrm")), 2);
  EXPECT_EQ(K->memOperandIndex(K->opcode("MOVSDmr")), 0);
  EXPECT_EQ(K->memOperandIndex(K->opcode("ADDSDrr")), -1);
  auto W = [&](const char *Op) {
    Instr I;
    I.Opcode = K->opcode(Op);
    return K->memWidth(I);
  };
  EXPECT_EQ(W("ADDSDrm"), 8u);
  EXPECT_EQ(W("ADDSSrm"), 4u);
  EXPECT_EQ(W("VCVTSD2SSrm"), 8u);
  EXPECT_EQ(W("VCVTSS2SDrm"), 4u);
  EXPECT_EQ(W("ADD32rm"), 4u);
  EXPECT_EQ(W("MOVZX32rm8"), 1u);
  EXPECT_EQ(W("VBROADCASTSDYrm"), 8u);
  EXPECT_EQ(W("VADDPDZrmb"), 8u);
}

TEST_F(SubsetsTest, CtrlAndAddressSlices) {
  // for (;;) { x = a[i]; if (x > t) break; s += b[j]; j = idx[i]; i++ }
  LoopBody L = loop(
      *K,
      {
          ins(*K, "MOVSDrm", {"XMM0", "RDI", "#8", "RCX", "#0", "-"}), // 0 a[i]
          ins(*K, "UCOMISDrr", {"XMM0", "XMM1"}),                      // 1
          ins(*K, "ADDSDrm", {"XMM2", "XMM2", "RSI", "#8", "R8", "#0", "-"}),
          ins(*K, "MOV64rm",
              {"R8", "R9", "#8", "RCX", "#0", "-"}), // 3 j = idx[i]
      });
  // A data-dependent exit: a second branch on the comparison.
  L.Instrs.insert(L.Instrs.begin() + 2, ins(*K, "JCC_1", {"#0", "#7"}));
  L.Blocks[0].End = L.Instrs.size();
  for (unsigned I = 0; I < L.Instrs.size(); ++I)
    L.Instrs[I].Id = I;
  LoopSubsets S = computeSubsets(*K, L);
  // CTRL: a[i] load, ucomisd, both branches, add/cmp of the induction.
  EXPECT_TRUE(S.Bits[0] & SubsetCtrl);
  EXPECT_TRUE(S.Bits[1] & SubsetCtrl);
  EXPECT_TRUE(S.Bits[2] & SubsetCtrl);
  EXPECT_FALSE(S.Bits[3] & SubsetCtrl); // the reduction
  EXPECT_FALSE(S.Bits[4] & SubsetCtrl); // the index load
  EXPECT_TRUE(S.Bits[5] & SubsetCtrl);  // add $8, %rcx (loop-carried)
  EXPECT_TRUE(S.Bits[6] & SubsetCtrl);
  // Address slice: the index load (loop-carried into b[j]) and the add.
  EXPECT_TRUE(S.Bits[4] & SubsetAddr);
  EXPECT_TRUE(S.Bits[5] & SubsetAddr);
  EXPECT_FALSE(S.Bits[3] & SubsetAddr);
  EXPECT_EQ(S.NumLoad, 3u);
  EXPECT_EQ(S.NumCtrl, 6u);
  // idx[i] feeds b[j]'s address, but its own address comes from the
  // induction, not from a loaded value: no chain through memory.
  EXPECT_EQ(S.NumChasedLoad, 0u);
}

/// while (p) { p = p->next; n++; }: the load's value is its own next
/// address, so each iteration waits for the previous one's load.
static LoopBody pointerChase(const X86Knowledge &K) {
  return singleBlockLoop(
      {ins(K, "MOV64rm", {"RDI", "RDI", "#1", "-", "#0", "-"}),
       ins(K, "INC64r", {"RAX", "RAX"}), ins(K, "TEST64rr", {"RDI", "RDI"}),
       ins(K, "JCC_1", {"#0", "#5"})});
}

TEST_F(SubsetsTest, PointerChasingLoadsAreChased) {
  LoopSubsets S = computeSubsets(*K, pointerChase(*K));
  EXPECT_TRUE(S.Bits[0] & SubsetCtrl);
  EXPECT_TRUE(S.Bits[0] & SubsetAddr);
  EXPECT_EQ(S.NumChasedLoad, 1u);
  // A loaded value that feeds only the exit test is not chased.
  LoopBody Search =
      loop(*K, {ins(*K, "CMP64rm", {"RSI", "RDI", "#8", "RCX", "#0", "-"}),
                ins(*K, "JCC_1", {"#0", "#4"})});
  EXPECT_EQ(computeSubsets(*K, Search).NumChasedLoad, 0u);
}

// An exit that reads memory, through a load or a call, makes every variant
// copy carry an iteration cap (both front ends); an exit on registers alone
// does not, whatever else the loop reads.
TEST_F(SubsetsTest, ExitsThatReadMemoryAreCapped) {
  EXPECT_TRUE(computeSubsets(*K, pointerChase(*K)).CtrlReadsMemory);
  LoopBody Search =
      loop(*K, {ins(*K, "CMP64rm", {"RSI", "RDI", "#8", "RCX", "#0", "-"}),
                ins(*K, "JCC_1", {"#0", "#4"})});
  EXPECT_TRUE(computeSubsets(*K, Search).CtrlReadsMemory);
  // s += a[i] while i < n: the load feeds the sum, not the exit.
  LoopBody Sum = loop(
      *K,
      {ins(*K, "ADDSDrm", {"XMM0", "XMM0", "RDI", "#8", "RCX", "#0", "-"})});
  LoopSubsets S = computeSubsets(*K, Sum);
  EXPECT_EQ(S.NumLoad, 1u);
  EXPECT_FALSE(S.CtrlReadsMemory);
}
