//===- AbiNamesTest.cpp - The ABI's vocabulary (decan/abi_names.h) --------===//
//
// Part of decan's runtime tests.
//
//===----------------------------------------------------------------------===//

#include "Config.h"
#include "decan/abi_names.h"

#include <gtest/gtest.h>

#include <string.h>

#include <iterator>
#include <string>

TEST(AbiNames, VariantNamesRoundTrip) {
  const char *Want[] = {"REF",      "LS",      "FP",     "NO_DIV",   "DL1",
                        "CTRL",     "NO_CALL", "S2L",    "NO_STORE", "NO_RED",
                        "PREFETCH", "DL1_G0",  "DL1_G1", "DL1_G2",   "DL1_G3",
                        "NO_G0",    "NO_G1",   "NO_G2",  "NO_G3"};
  // The first 19 keep their numbers; variants.def may add more.
  static_assert(std::size(Want) <= DECAN_NUM_VARIANTS);
  for (uint32_t V = 0; V < std::size(Want); ++V) {
    EXPECT_STREQ(decan_variant_name(V), Want[V]);
    EXPECT_EQ(decan_variant_parse(Want[V], strlen(Want[V])), (int)V);
    EXPECT_STREQ(decan::rt::kVariantNames[V], Want[V]);
  }
  EXPECT_STREQ(decan_variant_name(DECAN_NUM_VARIANTS), "?");
  EXPECT_EQ(decan_variant_parse("NO_DIVX", 6), DECAN_NO_DIV); // a prefix
  EXPECT_EQ(decan_variant_parse("no_div", 6), -1);            // exact case
  EXPECT_EQ(decan_variant_parse("", 0), -1);
}

TEST(AbiNames, StatusAndStorePolicyNames) {
  EXPECT_STREQ(decan_variant_status_name(DECAN_VARIANT_VERIFIER), "verifier");
  EXPECT_STREQ(decan_variant_status_text(DECAN_VARIANT_VERIFIER),
               "rejected by the dependence verifier");
  EXPECT_STREQ(decan_variant_status_text(DECAN_VARIANT_OK), "ok");
  EXPECT_STREQ(decan_variant_status_name(99), "unknown");
  EXPECT_STREQ(decan_store_policy_name(DECAN_STORE_KEPT), "kept");
  EXPECT_STREQ(decan_store_policy_name(DECAN_STORE_AS_LOAD), "as-load");
  EXPECT_STREQ(decan_store_policy_name(DECAN_STORE_TO_SCRATCH), "scratch");
  EXPECT_STREQ(decan_store_policy_name(DECAN_STORE_DELETED), "deleted");
}

// Every reason a variant is missing is said in words of its own: only
// DECAN_WHY_OTHER sends the reader to the producer's notes.
TEST(AbiNames, EveryWhyHasItsOwnWords) {
  std::string Other = decan_variant_why_text(DECAN_WHY_OTHER);
  EXPECT_STREQ(decan_variant_why_text(DECAN_WHY_NONE), "");
  for (uint32_t W = 1; W <= DECAN_WHY_NO_CAP_REGISTER; ++W) {
    if (W == DECAN_WHY_OTHER)
      continue;
    std::string Text = decan_variant_why_text(W);
    EXPECT_FALSE(Text.empty()) << W;
    EXPECT_NE(Text, Other) << W;
  }
  EXPECT_EQ(std::string(decan_variant_why_text(DECAN_WHY_NO_CAP_REGISTER + 1)),
            Other);
}
