//===- VersionTest.cpp - decan_version matches the project ---------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/runtime.h"

#include <gtest/gtest.h>

TEST(RuntimeVersion, MatchesProject) {
  EXPECT_STREQ(decan_version(), DECAN_VERSION);
}
