//===- SubsetsTest.cpp - Subset classification of x86-64 opcodes ----------===//
#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <gtest/gtest.h>
#include <memory>

using namespace llvm;

namespace {
class SubsetsTest : public ::testing::Test {
protected:
  void SetUp() override {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    std::string Err;
    Triple TT("x86_64-unknown-linux-gnu");
    const Target *T = TargetRegistry::lookupTarget(TT, Err);
    ASSERT_NE(T, nullptr) << Err;
    MII.reset(T->createMCInstrInfo());
    for (unsigned Op = 0; Op < MII->getNumOpcodes(); ++Op)
      ByName[MII->getName(Op)] = Op;
  }
  unsigned subsets(StringRef Name) {
    auto It = ByName.find(Name);
    EXPECT_NE(It, ByName.end()) << Name.str();
    return decan::classifyOpcode(*MII, It->second);
  }
  std::unique_ptr<MCInstrInfo> MII;
  StringMap<unsigned> ByName;
};
} // namespace

TEST_F(SubsetsTest, LoadsStoresAndDivisions) {
  EXPECT_TRUE(subsets("MOVSDrm") & decan::SubsetLoad);
  EXPECT_TRUE(subsets("MOVSDmr") & decan::SubsetStore);
  EXPECT_FALSE(subsets("MOVSDmr") & decan::SubsetLoad);
  EXPECT_TRUE(subsets("DIVSDrr") & decan::SubsetDiv);
  EXPECT_TRUE(subsets("VSQRTPDYr") & decan::SubsetDiv);
  EXPECT_FALSE(subsets("ADD64rr") & decan::SubsetDiv);
}
