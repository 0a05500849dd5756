//===- RegionTimingTest.cpp - A strided region's time under preemption ----===//
//
// Part of decan. Placed regions (__decan_region_enter/leave, driven here
// the way the plugin's and the rewriter's stubs drive them) count their
// time as loops do: an activation timed at an accounting stride that was
// switched out stands for its untimed neighbours at the last clean
// activation's time, so a wait is never multiplied by the stride, and only
// the activations timed alone are in `single_cycles`.
//
//===----------------------------------------------------------------------===//

#include "TestEnvironment.h"
#include "decan/abi.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

/// The stubs' tests on `active` and `countdown` (RegionStubs.cpp), around
/// a body of \p Spin iterations; \p Sleep makes the body block (a
/// voluntary context switch) when it reaches the runtime.
void activation(decan_loop_desc &D, int Spin, bool Sleep = false) {
  bool Timed = false;
  switch (D.active) {
  case 0:
    break;
  case 3:
    D.countdown = D.countdown + 1;
    break;
  case 2:
    D.countdown = D.countdown - 1;
    if (D.countdown > 0)
      break;
    [[fallthrough]];
  default:
    __decan_region_enter(&D);
    Timed = true;
  }
  volatile int X = 0;
  for (int J = 0; J < Spin; ++J)
    X = X + J;
  if (Timed && Sleep)
    usleep(20000);
  if (D.active == 3) {
    D.countdown = D.countdown - 1;
    if (D.countdown == 0)
      __decan_region_leave(&D);
  } else if (D.active == 1) {
    __decan_region_leave(&D);
  }
}

TEST(RegionTiming, ASwitchedStridedActivationIsNotMultiplied) {
  char Tmpl[] = "/tmp/decan-rt-region.XXXXXX";
  const char *Dir = mkdtemp(Tmpl);
  ASSERT_NE(Dir, nullptr);
  decan::test::reinitializeRuntime({{"DECAN_LOOPS", "all"},
                                    {"DECAN_OUTPUT", Dir},
                                    {"DECAN_WARMUP", "0"},
                                    {"DECAN_REGIONS", "1"}});
  static decan_loop_desc D{};
  D.abi_version = DECAN_ABI_VERSION;
  D.variant_mask = 1u << DECAN_REF;
  D.id = "region:short";
  D.function = "short";
  D.file = "short.c";
  D.flags = DECAN_DESC_REGION;
  __decan_register_loops(&D, 1);
  ASSERT_EQ(D.active, 1u);
  // Short activations until a stride has come, then one that blocks for
  // 20 ms when it is timed: it stands for up to a stride's activations.
  constexpr int kShort = 200000;
  int Calls = 0;
  for (; Calls < kShort; ++Calls)
    activation(D, 20);
  ASSERT_EQ(D.active, 2u) << "short activations get an accounting stride";
  while (D.active == 2 && D.countdown > 1) {
    activation(D, 20);
    ++Calls;
  }
  activation(D, 20, /*Sleep=*/true);
  ++Calls;
  ASSERT_TRUE(decan::rt::writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(decan::test::readReport(decan::rt::reportPath(), R));
  const minijson::Value *L = nullptr;
  for (auto &E : R["loops"].Arr)
    if (E["id"].Str == "region:short")
      L = &E;
  ASSERT_NE(L, nullptr);
  const auto &Tot = (*L)["threads"][0]["whole_run"];
  EXPECT_EQ(Tot["calls"].Num, Calls);
  EXPECT_GT(Tot["max_stride"].Num, 20);
  EXPECT_GE(Tot["disturbed"].Num, 1) << "the switched activation is seen";
  // 20 ms is tens of millions of cycles: multiplied by a stride of 20 or
  // more it would be most of a second's.
  double Hz = R["machine"]["tsc_hz"].Num;
  ASSERT_GT(Hz, 0);
  EXPECT_LT(Tot["cycles"].Num, 0.2 * Hz)
      << "the wait counts once, not once per activation it stood for";
  EXPECT_LT(Tot["single_cycles"].Num, 0.5 * Tot["cycles"].Num)
      << "a strided activation is no activation timed alone";
  decan::test::reinitializeRuntime({});
  std::filesystem::remove_all(Dir);
}

} // namespace
