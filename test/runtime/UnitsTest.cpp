//===- UnitsTest.cpp - Record buffers, schedule, statistics, config -------===//
//
// Part of decan. The runtime's pure pieces, without the process-wide state.
//
//===----------------------------------------------------------------------===//

#include "Config.h"
#include "Counters.h"
#include "JsonOut.h"
#include "MiniJson.h"
#include "Records.h"
#include "Schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace decan::rt;

namespace {

//===-- record buffers ----------------------------------------------------===//

TEST(RecordBuffer, KeepsEveryRecordAcrossChunks) {
  RecordBuffer B;
  const uint64_t N = 3 * RecordBuffer::kChunkRecords + 17;
  ASSERT_TRUE(B.init(5, N));
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t *R = B.next();
    ASSERT_NE(R, nullptr) << I;
    for (unsigned F = 0; F < 5; ++F)
      R[F] = I * 10 + F;
    B.publish();
  }
  EXPECT_EQ(B.size(), N);
  EXPECT_EQ(B.next(), nullptr) << "buffer must refuse past MaxRecords";
  for (uint64_t I = 0; I < N; ++I)
    for (unsigned F = 0; F < 5; ++F)
      ASSERT_EQ(B.at(I)[F], I * 10 + F);
}

TEST(RecordBuffer, ZeroCapacityGoesOnline) {
  RecordBuffer B;
  ASSERT_TRUE(B.init(4, 0));
  EXPECT_EQ(B.next(), nullptr);
  EXPECT_EQ(B.size(), 0u);
}

//===-- statistics --------------------------------------------------------===//

TEST(OnlineStats, MatchesTwoPassMeanAndVariance) {
  std::vector<double> Xs;
  OnlineStats S;
  uint64_t Trips = 0;
  for (int I = 0; I < 1000; ++I) {
    double X = 1e9 + (I * 7919 % 1013); // large offset: naive sums lose digits
    Xs.push_back(X);
    S.add(X, I);
    Trips += I;
  }
  double Mean = 0;
  for (double X : Xs)
    Mean += X;
  Mean /= Xs.size();
  double Var = 0;
  for (double X : Xs)
    Var += (X - Mean) * (X - Mean);
  Var /= Xs.size() - 1;
  EXPECT_EQ(S.Count, 1000u);
  EXPECT_NEAR(S.Mean, Mean, 1e-6);
  EXPECT_NEAR(S.variance(), Var, Var * 1e-9);
  EXPECT_EQ(S.Min, 1e9);
  EXPECT_EQ(S.Max, 1e9 + 1012);
  EXPECT_EQ(S.TripsSum, Trips);
}

TEST(OnlineStats, SingleSampleHasNoVariance) {
  OnlineStats S;
  S.add(42, 3);
  EXPECT_EQ(S.Mean, 42);
  EXPECT_EQ(S.variance(), 0);
  EXPECT_EQ(S.Min, 42);
  EXPECT_EQ(S.Max, 42);
}

//===-- rotation schedule -------------------------------------------------===//

LoopPlan plan(std::initializer_list<int> Vs) {
  LoopPlan P;
  for (int V : Vs)
    P.Order[P.N++] = (uint8_t)V;
  return P;
}

std::vector<int> run(const LoopPlan &P, const ScheduleParams &SP, int Calls,
                     std::map<int, uint64_t> *Valid = nullptr) {
  RotationState S;
  std::map<int, uint64_t> Local;
  std::map<int, uint64_t> &Counts = Valid ? *Valid : Local;
  std::vector<int> Out;
  for (int I = 0; I < Calls; ++I) {
    Decision D = decide(P, S, SP, [&](int V) { return Counts[V]; });
    Out.push_back(D.Variant);
    if (D.Variant >= 0 && D.Measured)
      ++Counts[D.Variant];
  }
  return Out;
}

TEST(Schedule, RotateWarmsUpThenRoundRobinsThenStops) {
  ScheduleParams SP{Mode::Rotate, /*Warmup=*/2, /*Reps=*/2, 1};
  auto Seq = run(plan({DECAN_REF, DECAN_FP, DECAN_DL1}), SP, 12);
  std::vector<int> Want = {-1, -1, 0, 2, 4, 0, 2, 4, -1, -1, -1, -1};
  EXPECT_EQ(Seq, Want);
}

TEST(Schedule, RotateKeepsGoingUntilEnoughCleanCalls) {
  ScheduleParams SP{Mode::Rotate, 0, 2, 1};
  LoopPlan P = plan({DECAN_REF, DECAN_LS});
  RotationState S;
  uint64_t Valid[DECAN_NUM_VARIANTS] = {};
  std::vector<int> Seq;
  for (int I = 0; I < 10; ++I) {
    Decision D = decide(P, S, SP, [&](int V) { return Valid[V]; });
    Seq.push_back(D.Variant);
    // Every LS call is disturbed by a context switch until the 3rd one.
    if (D.Variant == DECAN_REF || (D.Variant == DECAN_LS && I >= 5))
      ++Valid[D.Variant];
  }
  // LS gets clean calls at I=5 and I=7; rotation stops at the round after.
  std::vector<int> Want = {0, 1, 0, 1, 0, 1, 0, 1, -1, -1};
  EXPECT_EQ(Seq, Want);
}

TEST(Schedule, RotateGivesUpAfterBoundedRounds) {
  ScheduleParams SP{Mode::Rotate, 0, 1, 1};
  LoopPlan P = plan({DECAN_REF});
  RotationState S;
  int Measured = 0;
  for (int I = 0; I < 100; ++I)
    Measured += decide(P, S, SP, [](int) { return 0; }).Variant >= 0;
  EXPECT_EQ(Measured, 4 * 1 + 4);
}

TEST(Schedule, RotateWithoutRepsNeverStops) {
  ScheduleParams SP{Mode::Rotate, 1, 0, 1};
  auto Seq = run(plan({DECAN_REF, DECAN_CTRL}), SP, 1001);
  EXPECT_EQ(Seq[0], -1);
  for (int I = 1; I < 1001; ++I)
    ASSERT_EQ(Seq[I], (I - 1) % 2 ? DECAN_CTRL : DECAN_REF);
}

TEST(Schedule, ReplaceRunsFirstVariantAlwaysRecordsAfterWarmup) {
  ScheduleParams SP{Mode::Replace, 2, 3, 1};
  LoopPlan P = plan({DECAN_NO_DIV});
  RotationState S;
  for (int I = 1; I <= 50; ++I) {
    Decision D = decide(P, S, SP, [](int) { return 0; });
    EXPECT_EQ(D.Variant, DECAN_NO_DIV);
    EXPECT_EQ(D.Measured, I > 2);
  }
}

TEST(Schedule, InstanceMeasuresCallKOncePerVariant) {
  ScheduleParams SP{Mode::Instance, 5, 31, /*Instance=*/4};
  auto Seq = run(plan({DECAN_REF, DECAN_LS, DECAN_FP}), SP, 10);
  std::vector<int> Want = {-1, -1, -1, 0, 1, 2, -1, -1, -1, -1};
  EXPECT_EQ(Seq, Want);
}

TEST(Schedule, EmptyPlanNeverMeasures) {
  ScheduleParams SP{Mode::Rotate, 0, 0, 1};
  auto Seq = run(LoopPlan(), SP, 5);
  for (int V : Seq)
    EXPECT_EQ(V, -1);
}

//===-- configuration -----------------------------------------------------===//

std::map<std::string, std::string> TestEnv;
const char *testGetEnv(const char *N) {
  auto It = TestEnv.find(N);
  return It == TestEnv.end() ? nullptr : It->second.c_str();
}

TEST(Config, InertWithoutLoops) {
  TestEnv = {{"DECAN_VARIANTS", "FP"}};
  static Config C;
  parseConfig(C, testGetEnv);
  EXPECT_FALSE(C.Active);
}

TEST(Config, DefaultsFollowDesign) {
  TestEnv = {{"DECAN_LOOPS", "all"}};
  static Config C;
  parseConfig(C, testGetEnv);
  EXPECT_TRUE(C.Active);
  EXPECT_TRUE(C.AllLoops);
  EXPECT_EQ(C.NumVariants, 6u);
  for (unsigned I = 0; I < 6; ++I)
    EXPECT_EQ(C.Variants[I], I);
  EXPECT_EQ(C.RunMode, Mode::Rotate);
  EXPECT_EQ(C.Reps, 31u);
  EXPECT_EQ(C.Instance, 1u);
  EXPECT_EQ(C.Warmup, 1u);
  EXPECT_EQ(C.MaxRecords, 100000u);
  EXPECT_STREQ(C.OutputDir, ".");
  EXPECT_EQ(C.NumEvents, 0u);
  EXPECT_EQ(C.NumWarnings, 0u);
  EXPECT_TRUE(C.selects("anything:L3"));
}

TEST(Config, ParsesListsAndReportsBadValues) {
  TestEnv = {{"DECAN_LOOPS", "dot:L0, _Z3fooi:L1"},
             {"DECAN_VARIANTS", "FP,REF,BOGUS,FP,DL1"},
             {"DECAN_MODE", "instance"},
             {"DECAN_REPS", "7"},
             {"DECAN_INSTANCE", "3"},
             {"DECAN_WARMUP", "x1"},
             {"DECAN_EVENTS", "cycles, task-clock"},
             {"DECAN_MAX_RECORDS", "12"},
             {"DECAN_OUTPUT", "/tmp/out"}};
  static Config C;
  parseConfig(C, testGetEnv);
  EXPECT_FALSE(C.AllLoops);
  EXPECT_TRUE(C.selects("dot:L0"));
  EXPECT_TRUE(C.selects("_Z3fooi:L1"));
  EXPECT_FALSE(C.selects("dot:L1"));
  EXPECT_FALSE(C.selects("dot:L"));
  ASSERT_EQ(C.NumVariants, 3u);
  EXPECT_EQ(C.Variants[0], DECAN_FP);
  EXPECT_EQ(C.Variants[1], DECAN_REF);
  EXPECT_EQ(C.Variants[2], DECAN_DL1);
  EXPECT_EQ(C.RunMode, Mode::Instance);
  EXPECT_EQ(C.Reps, 7u);
  EXPECT_EQ(C.Instance, 3u);
  EXPECT_EQ(C.Warmup, 1u) << "bad number keeps the default";
  EXPECT_EQ(C.MaxRecords, 12u);
  ASSERT_EQ(C.NumEvents, 2u);
  EXPECT_STREQ(C.Events[1], "task-clock");
  EXPECT_STREQ(C.OutputDir, "/tmp/out");
  ASSERT_EQ(C.NumWarnings, 2u);
  EXPECT_NE(std::string(C.Warnings[0]).find("BOGUS"), std::string::npos);
  EXPECT_NE(std::string(C.Warnings[1]).find("DECAN_WARMUP"), std::string::npos);
}

//===-- JSON writer and checker -------------------------------------------===//

std::string emit(void (*Fn)(JsonOut &)) {
  static JsonOut J(-1);
  new (&J) JsonOut(-1);
  Fn(J);
  EXPECT_TRUE(J.flush());
  return J.text();
}

TEST(JsonOut, WritesValidNestedJsonThatParsesBack) {
  std::string T = emit([](JsonOut &J) {
    J.beginObject();
    J.key("s");
    J.str("a\"b\\c\n\x01");
    J.key("n");
    J.u64(18446744073709551615ull);
    J.key("i");
    J.i64(-42);
    J.key("d");
    J.beginArray();
    J.dbl(0);
    J.dbl(2.5);
    J.dbl(-1e-9);
    J.dbl(2.6e9);
    J.dbl(3e20);
    J.dbl(NAN);
    J.endArray();
    J.key("e");
    J.beginObject();
    J.endObject();
    J.key("b");
    J.boolean(true);
    J.key("z");
    J.null();
    J.endObject();
  });
  minijson::Value V;
  std::string Err;
  ASSERT_TRUE(minijson::parse(T, V, Err)) << Err << "\n" << T;
  EXPECT_EQ(V["s"].Str, "a\"b\\c\n\x01");
  EXPECT_EQ(V["n"].Num, 18446744073709551615.0);
  EXPECT_EQ(V["i"].Num, -42);
  ASSERT_EQ(V["d"].Arr.size(), 6u);
  EXPECT_EQ(V["d"][1].Num, 2.5);
  EXPECT_NEAR(V["d"][2].Num, -1e-9, 1e-18);
  EXPECT_EQ(V["d"][3].Num, 2.6e9);
  EXPECT_NEAR(V["d"][4].Num, 3e20, 1e11);
  EXPECT_EQ(V["d"][5].K, minijson::Value::Null);
  EXPECT_EQ(V["e"].K, minijson::Value::Object);
  EXPECT_TRUE(V["b"].B);
}

TEST(JsonOut, DoubleFormatting) {
  char B[40];
  JsonOut::formatDouble(1234.5, B);
  EXPECT_STREQ(B, "1234.5");
  JsonOut::formatDouble(-0.125, B);
  EXPECT_STREQ(B, "-0.125");
  JsonOut::formatDouble(7, B);
  EXPECT_STREQ(B, "7");
  JsonOut::formatDouble(1.5e-7, B);
  EXPECT_STREQ(B, "1.500000000e-7");
}

TEST(MiniJson, RejectsMalformedText) {
  const char *Bad[] = {"{",         "{\"a\":1,}", "[1 2]",      "{a:1}",
                       "[01]",      "\"abc",      "{} x",       "[1,]",
                       "{\"a\" 1}", "nul",        "[\"\x01\"]", ""};
  for (const char *T : Bad) {
    minijson::Value V;
    std::string Err;
    EXPECT_FALSE(minijson::parse(T, V, Err)) << "accepted: " << T;
  }
  minijson::Value V;
  std::string Err;
  EXPECT_TRUE(
      minijson::parse(" {\"a\": [1, -2.5e3, true, null, \"x\"]} ", V, Err))
      << Err;
}

//===-- libpfm4 encoding --------------------------------------------------===//

TEST(Counters, EncodesValidNames) {
  perf_event_attr A;
  char Err[256];
  ASSERT_TRUE(encodeEvent("cycles", A, Err, sizeof(Err))) << Err;
  EXPECT_EQ(A.type, (unsigned)PERF_TYPE_HARDWARE);
  EXPECT_EQ(A.config, (uint64_t)PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_EQ(A.exclude_kernel, 1u);
  ASSERT_TRUE(encodeEvent("task-clock", A, Err, sizeof(Err))) << Err;
  EXPECT_EQ(A.type, (unsigned)PERF_TYPE_SOFTWARE);
  EXPECT_EQ(A.config, (uint64_t)PERF_COUNT_SW_TASK_CLOCK);
  ASSERT_TRUE(encodeEvent("L1-dcache-load-misses", A, Err, sizeof(Err))) << Err;
  EXPECT_EQ(A.type, (unsigned)PERF_TYPE_HW_CACHE);
}

TEST(Counters, InvalidNameGivesClearError) {
  perf_event_attr A;
  char Err[256] = "";
  EXPECT_FALSE(encodeEvent("no-such-event-xyz", A, Err, sizeof(Err)));
  EXPECT_NE(std::string(Err).find("unknown event 'no-such-event-xyz'"),
            std::string::npos)
      << Err;
}

TEST(Counters, SoftwareEventCountsOnEveryMachine) {
  perf_event_attr A;
  char Err[256] = "";
  ASSERT_TRUE(encodeEvent("task-clock", A, Err, sizeof(Err))) << Err;
  PerfCounter C;
  ASSERT_TRUE(C.open(A, "task-clock", Err, sizeof(Err))) << Err;
  uint64_t V0 = 0, V1 = 0;
  ASSERT_TRUE(C.read(V0));
  volatile double X = 0;
  for (int I = 0; I < 1000000; ++I)
    X = X + 1;
  ASSERT_TRUE(C.read(V1));
  EXPECT_GT(V1, V0) << "task-clock must advance while we spin";
  PerfCounter Moved(static_cast<PerfCounter &&>(C));
  EXPECT_FALSE(C.valid());
  EXPECT_TRUE(Moved.valid());
}

} // namespace
