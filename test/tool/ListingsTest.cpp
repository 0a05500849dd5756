//===- ListingsTest.cpp - What a variant deleted of REF's instructions ----===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Listings.h"

#include "gtest/gtest.h"

using namespace decan::tool;

namespace {

TEST(Listings, MarksREFsInstructionsTheVariantHasNot) {
  // NO_DIV: the division deleted, the store turned into a load; the copies
  // sit at other addresses (branch targets, RIP-relative constants).
  std::vector<AsmLine> Ref = {{0x10, "movupd\t(%rdi,%r11,8), %xmm0"},
                              {0x16, "divpd\t%xmm1, %xmm0"},
                              {0x1a, "mulsd\t0x2e4(%rip), %xmm0"},
                              {0x22, "movupd\t%xmm0, (%rcx,%r11,8)"},
                              {0x28, "addq\t$2, %r11"},
                              {0x2c, "jne\t0x10"}};
  std::vector<AsmLine> NoDiv = {{0x90, "movupd\t(%rdi,%r11,8), %xmm0"},
                                {0x9a, "mulsd\t0x264(%rip), %xmm0"},
                                {0xa2, "movups\t(%rcx,%r11,8), %xmm4"},
                                {0xa8, "addq\t$2, %r11"},
                                {0xac, "jne\t0x90"}};
  EXPECT_EQ(deletedInstructions(Ref, NoDiv),
            (std::vector<bool>{false, true, false, true, false, false}));
}

TEST(Listings, CountsRepeatedInstructions) {
  // Two identical divisions in REF, one left in the variant: one marked.
  std::vector<AsmLine> Ref = {{0, "divsd\t%xmm1, %xmm0"},
                              {4, "divsd\t%xmm1, %xmm0"}};
  std::vector<AsmLine> Var = {{0, "divsd\t%xmm1, %xmm0"}};
  EXPECT_EQ(deletedInstructions(Ref, Var), (std::vector<bool>{false, true}));
}

} // namespace
