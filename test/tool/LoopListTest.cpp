//===- LoopListTest.cpp - decan list's short names and grouped reasons ----===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LoopList.h"
#include "decan/abi.h"
#include "decan/abi_names.h"

#include "gtest/gtest.h"

using namespace decan::tool;

namespace {

TEST(LoopList, ShortNamesKeepScopesAndTheFunction) {
  EXPECT_EQ(shortFunctionName("stream"), "stream");
  EXPECT_EQ(shortFunctionName("outer::inner::Buffer<double, 4096>::sum() "
                              "const"),
            "outer::inner::Buffer<...>::sum");
  // Return type, nested template arguments and parameters go.
  EXPECT_EQ(shortFunctionName("int fmt::v11::detail::write<char, "
                              "fmt::v11::basic_appender<char>>(fmt::v11::"
                              "basic_appender<char>, int)"),
            "fmt::v11::detail::write<...>");
  // Operators keep their symbol; the anonymous namespace its scope.
  EXPECT_EQ(shortFunctionName("bool std::operator==(std::string const&, "
                              "std::string const&)"),
            "std::operator==");
  EXPECT_EQ(shortFunctionName("(anonymous namespace)::Grid::operator()(int) "
                              "const"),
            "{anon}::Grid::operator()");
  EXPECT_EQ(shortFunctionName("main::{lambda(double)#1}::operator()(double) "
                              "const"),
            "main::{lambda#1}::operator()");
  // Too long: the outer scopes give way, the name stays.
  std::string Long = shortFunctionName(
      "aaaaaaaaaa::bbbbbbbbbb::cccccccccc::dddddddddd::eeeeeeeeee::"
      "ffffffffff::kernel(int)",
      40);
  EXPECT_LE(Long.size(), 40u);
  EXPECT_EQ(Long, "...::eeeeeeeeee::ffffffffff::kernel");
}

TEST(LoopList, NamesTheDemanglerDoesNotReadKeepTheirScopes) {
  EXPECT_EQ(nestedNamePrefix("_ZN3fmt2v96detail10vformat_toIcEEvRNS1_"
                             "6bufferIT_EENS0_17basic_string_viewIS4_EE"),
            "fmt::v9::detail::vformat_to<...>");
  EXPECT_EQ(nestedNamePrefix("_ZNKSt6vector4sizeEv"), "std::vector::size");
  EXPECT_EQ(nestedNamePrefix("stream"), "");
  EXPECT_EQ(nestedNamePrefix("_Z3fooi"), "");
}

TEST(LoopList, ReasonsAreGroupedAndNothingToDoIsLeftOut) {
  MetaLoop L;
  L.Id = "f:L0";
  L.VariantMask = (1u << DECAN_NUM_VARIANTS) - 1;
  L.MInfo.status[DECAN_REF] = DECAN_VARIANT_OK;
  for (unsigned V : {DECAN_LS, DECAN_FP, DECAN_DL1}) {
    L.MInfo.status[V] = DECAN_VARIANT_UNSUPPORTED;
    L.MInfo.why[V] = DECAN_WHY_EXIT_READS_STORED;
  }
  L.MInfo.status[DECAN_CTRL] = DECAN_VARIANT_EMPTY;
  L.MInfo.why[DECAN_CTRL] = DECAN_WHY_ALL_CONTROL;
  // No division, no store: nothing to say.
  L.MInfo.status[DECAN_NO_DIV] = DECAN_VARIANT_EMPTY;
  L.MInfo.why[DECAN_NO_DIV] = DECAN_WHY_NO_DIV;
  L.MInfo.status[DECAN_NO_STORE] = DECAN_VARIANT_EMPTY;
  L.MInfo.why[DECAN_NO_STORE] = DECAN_WHY_NO_STORE;
  for (unsigned V = DECAN_NO_STORE + 1; V < DECAN_NUM_VARIANTS; ++V)
    L.MInfo.status[V] = DECAN_VARIANT_EMPTY;
  L.MInfo.status[DECAN_S2L] = DECAN_VARIANT_EMPTY;
  L.MInfo.status[DECAN_NO_CALL] = DECAN_VARIANT_EMPTY;
  std::vector<std::string> Why = groupedReasons(L);
  ASSERT_EQ(Why.size(), 2u);
  EXPECT_EQ(Why[0], std::string("LS, FP, DL1 not built: ") +
                        decan_variant_why_text(DECAN_WHY_EXIT_READS_STORED));
  EXPECT_NE(Why[0].find("kept in a local variable"), std::string::npos);
  EXPECT_EQ(Why[1], "CTRL not built: every instruction feeds the exit test");
}

} // namespace
