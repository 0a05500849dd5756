//===- LoopNamesTest.cpp - The names a loop is shown and chosen by --------===//

#include "decan/Tool/LoopNames.h"

#include "gtest/gtest.h"

using namespace decan::tool;

namespace {

// fmt::v9::detail::vformat_to<char>(...) and two overloads of one name.
constexpr const char *VFormat =
    "_ZN3fmt2v96detail10vformat_toIcEEvRNS1_6bufferIT_EENS0_17basic_string_"
    "viewIS4_EENS0_17basic_format_argsINS0_20basic_format_contextINSt3__120"
    "back_insert_iteratorIS5_EES4_EEEENS1_10locale_refE";
constexpr const char *SumInt = "_ZN2ns3sumEPKii";
constexpr const char *SumDouble = "_ZN2ns3sumEPKdi";

TEST(LoopNames, CxxLoopsGetAShortDemangledId) {
  EXPECT_EQ(shortLoopId("kern", "kern:L0"), "kern:L0");
  EXPECT_EQ(shortLoopId(VFormat, std::string(VFormat) + ":L3"),
            "fmt::v9::detail::vformat_to:L3");
  EXPECT_EQ(shortLoopId(SumInt, std::string("region:") + SumInt + ":L1"),
            "region:ns::sum:L1");
  // The suffix comes from the mangled name: the same in every run.
  std::string A = shortLoopId(SumInt, std::string(SumInt) + ":L0", true);
  EXPECT_EQ(A, shortLoopId(SumInt, std::string(SumInt) + ":L0", true));
  EXPECT_TRUE(llvm::StringRef(A).starts_with("ns::sum~"));
  EXPECT_NE(A, shortLoopId(SumDouble, std::string(SumDouble) + ":L0", true));
}

TEST(LoopNames, OverloadsAreToldApartLibrariesNamed) {
  std::string IdInt = std::string(SumInt) + ":L0";
  std::string IdDouble = std::string(SumDouble) + ":L0";
  std::vector<std::string> Names =
      loopNames({{IdInt, SumInt, ""},
                 {IdDouble, SumDouble, ""},
                 {"sub_648f00:L0", "sub_648f00", "libopenblas.so.0"},
                 {"main:L0", "main", ""}});
  ASSERT_EQ(Names.size(), 4u);
  EXPECT_NE(Names[0], Names[1]);
  EXPECT_TRUE(llvm::StringRef(Names[0]).starts_with("ns::sum~"));
  EXPECT_EQ(Names[2], "libopenblas.so.0!sub_648f00:L0");
  EXPECT_EQ(Names[3], "main:L0");
}

TEST(LoopNames, LoopsAreChosenByIdOrName) {
  std::string IdInt = std::string(SumInt) + ":L0";
  std::string IdDouble = std::string(SumDouble) + ":L0";
  std::vector<LoopIdentity> Loops = {{IdInt, SumInt, ""},
                                     {IdDouble, SumDouble, ""},
                                     {"sub_1:L0", "sub_1", "liba.so"},
                                     {"sub_1:L0", "sub_1", "libb.so"}};
  std::vector<std::string> Names = loopNames(Loops);
  // The suffixed name picks one overload, the id too.
  auto One = resolveLoopNames({Names[1]}, Loops);
  ASSERT_TRUE(bool(One));
  EXPECT_EQ(*One, std::vector<std::string>{IdDouble});
  auto ById = resolveLoopNames({IdInt}, Loops);
  ASSERT_TRUE(bool(ById));
  EXPECT_EQ(*ById, std::vector<std::string>{IdInt});
  // The short name alone is ambiguous: the error names both.
  auto Both = resolveLoopNames({"ns::sum:L0"}, Loops);
  ASSERT_FALSE(bool(Both));
  std::string Msg = llvm::toString(Both.takeError());
  EXPECT_NE(Msg.find(Names[0]), std::string::npos) << Msg;
  EXPECT_NE(Msg.find(Names[1]), std::string::npos) << Msg;
  // A library's loop by "object!id".
  EXPECT_TRUE(namesLoop("libb.so!sub_1:L0", Loops[3]));
  EXPECT_FALSE(namesLoop("libb.so!sub_1:L0", Loops[2]));
  auto Unknown = resolveLoopNames({"nope:L0"}, Loops);
  ASSERT_FALSE(bool(Unknown));
  EXPECT_EQ(llvm::toString(Unknown.takeError()), "unknown loop 'nope:L0'");
}

} // namespace
