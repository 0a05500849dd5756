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

TEST(OnlineStats, IntegerSumsMinMax) {
  OnlineStats S;
  uint64_t Sum = 0, Trips = 0;
  for (uint64_t I = 0; I < 1000; ++I) {
    uint64_t X = 1000000000ull + (I * 7919 % 1013);
    S.add(X, I);
    Sum += X;
    Trips += I;
  }
  EXPECT_EQ(S.Count, 1000u);
  EXPECT_EQ(S.Sum, Sum);
  EXPECT_EQ(S.Min, 1000000000ull);
  EXPECT_EQ(S.Max, 1000000000ull + 1012);
  EXPECT_EQ(S.TripsSum, Trips);
}

TEST(LoopTotals, BucketsMergeAndKeepTheSums) {
  LoopTotals T;
  uint64_t Cycles = 0;
  for (uint64_t Call = 1; Call <= 1000; ++Call) {
    // A phase change at call 500: twice the cycles per iteration.
    uint64_t C = Call <= 500 ? 100 : 200;
    T.add(Call, C, 10);
    Cycles += C;
  }
  EXPECT_EQ(T.Calls, 1000u);
  EXPECT_EQ(T.Iterations, 10000u);
  EXPECT_EQ(T.TripsKnown, 1000u);
  EXPECT_EQ(T.Cycles, Cycles);
  // 1000 calls in 16 buckets: width 64 (the smallest power of two that fits).
  EXPECT_EQ(T.Width, 64u);
  uint64_t Calls = 0, BCycles = 0;
  for (const auto &B : T.B) {
    Calls += B.Calls;
    BCycles += B.Cycles;
  }
  EXPECT_EQ(Calls, 1000u);
  EXPECT_EQ(BCycles, Cycles);
  EXPECT_EQ(T.B[0].Cycles, 64u * 100) << "first bucket: first phase only";
  EXPECT_EQ(T.B[15].Calls, 1000u - 15 * 64);
  EXPECT_EQ(T.B[15].Cycles, (1000u - 15 * 64) * 200);
}

TEST(LoopTotals, WeightedCallsStandForTheCallsTheyStrideOver) {
  LoopTotals T;
  // Calls 1..10 timed one by one, then one call in 100 (weight 100).
  for (uint64_t Call = 1; Call <= 10; ++Call)
    T.add(Call, 50, 4);
  for (uint64_t Call = 110; Call <= 1010; Call += 100)
    T.add(Call, 60, 4, 100);
  EXPECT_EQ(T.Calls, 1010u);
  EXPECT_EQ(T.Iterations, 4040u);
  EXPECT_EQ(T.TripsKnown, 1010u);
  EXPECT_EQ(T.Cycles, 10u * 50 + 1000u * 60);
  EXPECT_EQ(T.TimedCalls, 20u);
  EXPECT_EQ(T.TimedCycles, 10u * 50 + 10u * 60);
  EXPECT_EQ(T.MaxStride, 100u);
  uint64_t Calls = 0;
  for (const auto &B : T.B)
    Calls += B.Calls;
  EXPECT_EQ(Calls, 1010u) << "buckets hold the weighted calls";
}

TEST(LoopTotals, ASwitchedWeightedCallDoesNotMultiplyItsDisturbance) {
  LoopTotals T;
  for (uint64_t Call = 1; Call <= 10; ++Call)
    T.add(Call, Call == 5 ? 5000 : 100, 4); // a spike among them
  // Preempted: 1,000,000 cycles of which the loop had 100. The 49 calls it
  // stands for count as the last undisturbed timed call (100), not at its
  // time, nor at a mean that carries the earlier spike.
  T.add(60, 1000000, 4, 50, Standing::Once);
  EXPECT_EQ(T.Calls, 60u);
  EXPECT_EQ(T.Cycles, 9u * 100 + 5000 + 1000000 + 49u * 100);
  EXPECT_EQ(T.Disturbed, 1u);
  EXPECT_EQ(T.Iterations, 240u);
  EXPECT_EQ(T.LastCycles, 100u) << "the disturbed call is nobody's neighbour";
  EXPECT_EQ(T.SingleCycles, 9u * 100 + 5000) << "the calls timed alone";
  // Switched out inside it: its own wait is no loop time either.
  T.add(110, 1000000, 4, 50, Standing::Neighbour);
  EXPECT_EQ(T.Cycles, 9u * 100 + 5000 + 1000000 + 49u * 100 + 50u * 100);
  EXPECT_EQ(T.TimedCycles, 9u * 100 + 5000 + 2000000u) << "as timed";
}

TEST(LoopTotals, ACallTimedAloneAndDisturbedIsNoNeighbourForAStride) {
  LoopTotals T;
  for (uint64_t Call = 1; Call <= 20; ++Call)
    T.add(Call, 100, 4);
  // A slot's REF call, switched out: a millisecond of waiting, counted once
  // as timed (it stands for itself alone).
  T.add(21, 2000000, 4, 1, Standing::Once);
  EXPECT_EQ(T.LastCycles, 100u);
  // The next call stands for 3000 and was disturbed: the 2999 count as the
  // last clean call, not as the waiting one (3000 x 2,000,000 cycles).
  T.add(3021, 100, 4, 3000, Standing::Once);
  EXPECT_EQ(T.Cycles, 20u * 100 + 2000000 + 3000u * 100);
  EXPECT_EQ(T.SingleCycles, 20u * 100 + 2000000);
}

//===-- sampling schedule -------------------------------------------------===//

LoopPlan plan(std::initializer_list<int> Vs) {
  LoopPlan P;
  for (int V : Vs)
    P.Order[P.N++] = (uint8_t)V;
  return P;
}

struct Step {
  int Variant;
  Role What;
};

std::vector<Step> run(const LoopPlan &P, const ScheduleParams &SP, int Calls,
                      uint64_t Seed = 1, uint64_t Cap = ~0ull) {
  SamplerState S;
  std::vector<Step> Out;
  for (int I = 0; I < Calls; ++I) {
    Decision D = decide(P, S, SP, Seed, [Cap] { return Cap; });
    Out.push_back({D.Variant, D.What});
  }
  return Out;
}

TEST(Schedule, RotateWarmsUpThenSlotsPreSamplePost) {
  ScheduleParams SP{Mode::Rotate, /*Warmup=*/2, /*Reps=*/2, 1};
  auto Seq = run(plan({DECAN_REF, DECAN_FP, DECAN_DL1}), SP, 3 + 2 * 6);
  EXPECT_EQ(Seq[0].What, Role::Account);
  EXPECT_EQ(Seq[1].What, Role::Account);
  EXPECT_EQ(Seq[0].Variant, DECAN_REF) << "every call of an active loop is "
                                          "timed, warmup calls too";
  // Reps*N = 6 slots back to back, variants in order; each post call is
  // the next slot's pre call.
  EXPECT_EQ(Seq[2].What, Role::Pre);
  EXPECT_EQ(Seq[2].Variant, DECAN_REF);
  const int Want[] = {DECAN_REF, DECAN_FP, DECAN_DL1,
                      DECAN_REF, DECAN_FP, DECAN_DL1};
  for (int K = 0; K < 6; ++K) {
    const Step *S = &Seq[3 + 2 * K];
    EXPECT_EQ(S[0].What, Role::Sample) << K;
    EXPECT_EQ(S[0].Variant, Want[K]) << K;
    EXPECT_EQ(S[1].What, Role::Post) << K;
    EXPECT_EQ(S[1].Variant, DECAN_REF) << K;
  }
}

struct Tenths {
  int Per[10] = {};
  int Samples = 0, Variants = 0;
};
Tenths sampleTenths(const std::vector<Step> &Seq) {
  Tenths T;
  int Calls = (int)Seq.size();
  for (int I = 1; I + 1 < Calls; ++I) {
    if (Seq[I].What != Role::Sample)
      continue;
    ++T.Samples;
    ++T.Per[I * 10 / Calls];
    T.Variants += Seq[I].Variant == DECAN_LS;
    EXPECT_TRUE(Seq[I - 1].What == Role::Pre || Seq[I - 1].What == Role::Post)
        << I;
    EXPECT_EQ(Seq[I + 1].What, Role::Post) << I;
  }
  return T;
}

TEST(Schedule, RotateSamplesDecayLogarithmicallyWithoutCap) {
  ScheduleParams SP{Mode::Rotate, 1, 4, 1};
  LoopPlan P = plan({DECAN_REF, DECAN_LS});
  Tenths T = sampleTenths(run(P, SP, 200000));
  // About K*N*(1 + ln(C/(3KN))) = 8 * (1 + ln(8333)) = 80 slots: bounded.
  EXPECT_GT(T.Samples, 40);
  EXPECT_LT(T.Samples, 160);
  EXPECT_GT(T.Per[0], T.Per[9]);
  EXPECT_NEAR(T.Variants, T.Samples / 2, 1) << "variants alternate";
}

TEST(Schedule, RotateSpreadsSamplesEvenlyOnceTheCapHolds) {
  ScheduleParams SP{Mode::Rotate, 1, 4, 1};
  LoopPlan P = plan({DECAN_REF, DECAN_LS});
  // Mean gap at most 500 calls: from call 4000 on, one slot per ~503 calls.
  Tenths T = sampleTenths(run(P, SP, 200000, 1, 500));
  for (int K = 1; K < 10; ++K) {
    EXPECT_GE(T.Per[K], 25) << "tenth " << K;
    EXPECT_LE(T.Per[K], 60) << "tenth " << K;
  }
}

TEST(Schedule, RotateIsReproducibleAndSeedDependent) {
  ScheduleParams SP{Mode::Rotate, 1, 2, 1};
  LoopPlan P = plan({DECAN_REF, DECAN_FP});
  auto Calls = [](const std::vector<Step> &S) {
    std::vector<int> C;
    for (size_t I = 0; I < S.size(); ++I)
      if (S[I].What == Role::Sample)
        C.push_back((int)I);
    return C;
  };
  auto A = Calls(run(P, SP, 20000, 7)), B = Calls(run(P, SP, 20000, 7)),
       C = Calls(run(P, SP, 20000, 8));
  EXPECT_EQ(A, B);
  EXPECT_NE(A, C);
}

TEST(Schedule, RotateWithoutRepsSamplesEveryCall) {
  ScheduleParams SP{Mode::Rotate, 1, 0, 1};
  auto Seq = run(plan({DECAN_REF, DECAN_CTRL}), SP, 2 + 2 * 100);
  for (int K = 0; K < 100; ++K) {
    ASSERT_EQ(Seq[2 + 2 * K].What, Role::Sample) << "every other call";
    ASSERT_EQ(Seq[2 + 2 * K].Variant, K % 2 ? DECAN_CTRL : DECAN_REF);
  }
}

TEST(Schedule, ReplaceRunsFirstVariantAlwaysRecordsAfterWarmup) {
  ScheduleParams SP{Mode::Replace, 2, 3, 1};
  LoopPlan P = plan({DECAN_NO_DIV});
  SamplerState S;
  for (int I = 1; I <= 50; ++I) {
    Decision D = decide(P, S, SP, 1, [] { return ~0ull; });
    EXPECT_EQ(D.Variant, DECAN_NO_DIV);
    EXPECT_EQ(D.What == Role::Sample, I > 2);
  }
}

TEST(Schedule, InstanceMeasuresCallKOncePerVariant) {
  ScheduleParams SP{Mode::Instance, 5, 31, /*Instance=*/4};
  auto Seq = run(plan({DECAN_REF, DECAN_LS, DECAN_FP}), SP, 10);
  std::vector<int> Want = {0, 0, 0, 0, 1, 2, 0, 0, 0, 0};
  for (int I = 0; I < 10; ++I) {
    EXPECT_EQ(Seq[I].Variant, Want[I]) << I;
    EXPECT_EQ(Seq[I].What == Role::Sample, I >= 3 && I <= 5) << I;
  }
}

TEST(Schedule, AccountingStrideKeepsTimingWithinTheBudget) {
  // 300 cycles of overhead per timed call on 15-cycle calls, 5%: one call in
  // 401 timed costs 300/401 = 0.75 cycles a call, 5% of 15.
  EXPECT_EQ(accountingStride(300, 15, 5, 1u << 16), 401u);
  EXPECT_EQ(accountingStride(300, 100000, 5, 1u << 16), 1u) << "long calls";
  EXPECT_EQ(accountingStride(300, 15, 0, 1u << 16), 1u) << "0: every call";
  EXPECT_EQ(accountingStride(300, 0, 5, 64), 64u) << "capped";
}

/// Runs \p Calls calls as the stub and runtime do with an accounting stride
/// of at most \p Max: only decided calls are returned, with their call
/// number and weight.
struct Decided {
  uint64_t Call, Weight;
  Step S;
};
std::vector<Decided> runStrided(const LoopPlan &P, const ScheduleParams &SP,
                                uint64_t Calls, uint64_t Max,
                                uint64_t Cap = ~0ull) {
  SamplerState S;
  std::vector<Decided> Out;
  uint64_t Stride = 1, Countdown = 0;
  for (uint64_t C = 1; C <= Calls; ++C) {
    if (Countdown > 1) { // the stub: count down, run inline
      --Countdown;
      continue;
    }
    Decision D = decide(
        P, S, SP, 1, [Cap] { return Cap; }, Stride - 1);
    EXPECT_EQ(S.Calls, C) << "decided calls keep the true call number";
    Out.push_back({C, Stride, {D.Variant, D.What}});
    Stride = strideAfter(S, D.What, S.Calls, Max);
    Countdown = Stride;
  }
  return Out;
}

TEST(Schedule, StrideSkipsOnlyAccountingCallsAndKeepsTheSlots) {
  ScheduleParams SP{Mode::Rotate, 1, 4, 1};
  LoopPlan P = plan({DECAN_REF, DECAN_LS, DECAN_FP});
  const uint64_t Calls = 300000;
  std::vector<Step> Plain = run(P, SP, (int)Calls, 1, 2000);
  std::vector<Decided> Strided = runStrided(P, SP, Calls, 500, 2000);
  EXPECT_LT(Strided.size(), Calls / 50) << "most calls only counted down";
  uint64_t Weights = 0;
  std::vector<uint64_t> PlainSamples, StridedSamples;
  for (uint64_t I = 0; I < Calls; ++I)
    if (Plain[I].What == Role::Sample)
      PlainSamples.push_back(I + 1);
  for (size_t I = 0; I < Strided.size(); ++I) {
    const Decided &D = Strided[I];
    Weights += D.Weight;
    if (D.S.What == Role::Sample) {
      StridedSamples.push_back(D.Call);
      EXPECT_EQ(D.Weight, 1u) << "a sample stands for itself";
      ASSERT_GT(I, 0u);
      EXPECT_TRUE(Strided[I - 1].S.What == Role::Pre ||
                  Strided[I - 1].S.What == Role::Post);
      EXPECT_EQ(Strided[I - 1].Call + 1, D.Call) << "pre pair adjacent";
      if (I + 1 < Strided.size()) {
        EXPECT_EQ(Strided[I + 1].S.What, Role::Post);
        EXPECT_EQ(Strided[I + 1].Call, D.Call + 1) << "post pair adjacent";
      }
    }
    EXPECT_LE(D.Weight, 500u);
  }
  // The calls after the last decided one are the runtime's "tail".
  EXPECT_LE(Calls - Strided.back().Call, 500u);
  EXPECT_EQ(Weights, Strided.back().Call) << "weights count every call";
  EXPECT_EQ(StridedSamples, PlainSamples)
      << "the stride changes which calls are timed, not which are sampled";
}

TEST(Schedule, EmptyPlanNeverMeasures) {
  ScheduleParams SP{Mode::Rotate, 0, 0, 1};
  auto Seq = run(LoopPlan(), SP, 5);
  for (const Step &S : Seq)
    EXPECT_EQ(S.Variant, -1);
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
  EXPECT_EQ(C.NumVariants, unsigned(DECAN_NUM_VARIANTS)); // NO_CALL too
  for (unsigned I = 0; I < DECAN_NUM_VARIANTS; ++I)
    EXPECT_EQ(C.Variants[I], I);
  EXPECT_EQ(C.RunMode, Mode::Rotate);
  EXPECT_EQ(C.Reps, 31u);
  EXPECT_EQ(C.Instance, 1u);
  EXPECT_EQ(C.Warmup, 1u);
  EXPECT_EQ(C.MaxRecords, 100000u);
  EXPECT_EQ(C.AccountBudget, 5u) << "percent of a loop's time";
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
