//===- RuntimeTest.cpp - The runtime end to end, through its C ABI --------===//
//
// Part of decan. Each test configures the process-wide runtime from a fake
// environment (reinitializeForTesting), drives it the way the plugin's
// dispatch stub does, and reads the report back with a strict JSON parser.
// Crash, signal and instance-mode tests run in forked children. Over 600
// lines on purpose: one process-wide runtime, tested end to end.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Counters.h"
#include "Guard.h"
#include "TestEnvironment.h"
#include "decan/abi.h"
#include "decan/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fenv.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

using namespace decan::rt;

namespace {

using decan::test::readReport;

std::vector<std::string> &createdDirs() {
  static std::vector<std::string> Dirs;
  return Dirs;
}

std::string freshDir() {
  char T[] = "/tmp/decan-rt-test.XXXXXX";
  const char *D = mkdtemp(T);
  if (!D)
    return "/nonexistent-decan-test-dir";
  createdDirs().push_back(D);
  return D;
}

/// Reconfigures the runtime; DECAN_OUTPUT defaults to a fresh directory.
std::string configure(std::map<std::string, std::string> E) {
  if (E.count("DECAN_LOOPS") && !E.count("DECAN_OUTPUT"))
    E["DECAN_OUTPUT"] = freshDir();
  std::string Dir = E.count("DECAN_OUTPUT") ? E["DECAN_OUTPUT"] : "";
  decan::test::reinitializeRuntime(std::move(E));
  return Dir;
}

/// At exit the runtime must not write into the tests' temporary folders.
class InertAtExit : public ::testing::Environment {
public:
  void TearDown() override {
    configure({});
    if (getpid() != MainPid)
      return;
    for (auto &D : createdDirs())
      std::filesystem::remove_all(D);
  }
  pid_t MainPid = getpid();
};
const auto *Registered = ::testing::AddGlobalTestEnvironment(new InertAtExit);

decan_loop_desc makeDesc(const char *Id, uint32_t Mask = 63,
                         const decan_machine_info *MI = nullptr,
                         void *Scratch = nullptr, uint32_t ScratchSize = 0) {
  decan_loop_desc D{};
  D.abi_version = DECAN_ABI_VERSION;
  D.variant_mask = Mask;
  D.line = 7;
  D.id = Id;
  D.function = "f";
  D.file = "f.c";
  D.scratch = Scratch;
  D.scratch_size = ScratchSize;
  D.minfo = MI;
  return D;
}

uint32_t readMxcsr() {
  uint32_t V;
  __asm__ __volatile__("stmxcsr %0" : "=m"(V));
  return V;
}
void writeMxcsr(uint32_t V) { __asm__ __volatile__("ldmxcsr %0" ::"m"(V)); }

/// What the dispatch stub does for one call; returns the variant run (-1:
/// none) and whether the original loop ran too.
struct CallResult {
  int Variant;
  bool Original;
  uint32_t CsrInside;
};
CallResult stubCall(decan_loop_desc &D, uint64_t Cycles, uint64_t Trips = 10,
                    void (*Body)() = nullptr) {
  CallResult R{-1, true, 0};
  if (!D.active || (D.active == 2 && --D.countdown > 0))
    return R;
  R.Variant = __decan_begin_call(&D);
  if (R.Variant < 0)
    return R;
  R.CsrInside = readMxcsr();
  if (Body)
    Body();
  R.Original = __decan_end_call(&D, R.Variant, Cycles, Trips) != 0;
  if (R.Original) // the original runs, timed, as the stubs do
    EXPECT_EQ(__decan_end_call(&D, R.Variant | DECAN_RERUN, Cycles, Trips), 0);
  return R;
}

const minijson::Value *findLoop(const minijson::Value &R, const char *Id) {
  for (auto &L : R["loops"].Arr)
    if (L["id"].Str == Id)
      return &L;
  return nullptr;
}

/// Every format field docs/design.md promises.
void expectDesignShape(const minijson::Value &R) {
  EXPECT_EQ(R["format"].Str, "decan-raw-3");
  EXPECT_EQ(R["version"].Str, DECAN_VERSION);
  for (const char *K : {"status", "crash", "process", "machine", "config",
                        "probe", "counters", "warnings", "loops"})
    EXPECT_NE(R.get(K), nullptr) << K;
  EXPECT_GT(R["machine"]["tsc_hz"].Num, 1e8);
  EXPECT_GT(R["probe"]["empty_region_cycles"]["median"].Num, 0);
  EXPECT_LE(R["probe"]["empty_region_cycles"]["min"].Num,
            R["probe"]["empty_region_cycles"]["median"].Num);
  EXPECT_EQ(R["process"]["pid"].Num, (double)getpid());
  // The wait for a CPU comes with the run it is a share of: the same
  // interval on the same clock, so never more than it.
  if (const minijson::Value *W = R["process"].get("main_runqueue_wait_us")) {
    const minijson::Value *Run = R["process"].get("main_runqueue_run_us");
    ASSERT_NE(Run, nullptr);
    EXPECT_LE(W->Num, Run->Num);
  }
  for (const char *K : {"mode", "loops", "variants", "reps", "instance",
                        "events", "max_records"})
    EXPECT_NE(R["config"].get(K), nullptr) << K;
  for (const char *K : {"available", "events", "message"})
    EXPECT_NE(R["counters"].get(K), nullptr) << K;
}

//===----------------------------------------------------------------------===//

TEST(Runtime, VersionAndInertWithoutLoops) {
  std::string Dir = freshDir();
  configure({{"DECAN_OUTPUT", Dir}, {"DECAN_VARIANTS", "FP"}});
  decan_loop_desc D = makeDesc("inert:L0");
  __decan_register_loops(&D, 1);
  EXPECT_EQ(D.active, 0u);
  EXPECT_EQ(D.runtime_state, nullptr);
  EXPECT_EQ(decan_active(), 0);
  EXPECT_EQ(decan_flush(), 0);
  decan_region_begin("x");
  decan_region_end();
  EXPECT_EQ(rmdir(Dir.c_str()), 0) << "inert runtime must write nothing";
  EXPECT_STREQ(decan_version(), DECAN_VERSION);
}

TEST(Runtime, RotatesEligibleVariantsAndReports) {
  configure({{"DECAN_LOOPS", "t:L0,t:L2"}, {"DECAN_REPS", "3"}});
  decan_machine_info MI{};
  MI.status[DECAN_REF] = DECAN_VARIANT_OK;
  MI.status[DECAN_LS] = DECAN_VARIANT_VERIFIER;
  MI.status[DECAN_FP] = DECAN_VARIANT_OK;
  MI.status[DECAN_DL1] = DECAN_VARIANT_OK;
  MI.status[DECAN_CTRL] = DECAN_VARIANT_NOT_BUILT;
  // The producer records what each variant does to stores.
  MI.store_policy[DECAN_LS] = DECAN_STORE_AS_LOAD;
  MI.store_policy[DECAN_FP] = DECAN_STORE_DELETED;
  MI.store_policy[DECAN_DL1] = DECAN_STORE_TO_SCRATCH;
  alignas(64) static char Scratch[256];
  decan_loop_desc Ds[3] = {
      makeDesc("t:L0", 63 & ~(1u << DECAN_NO_DIV), &MI, Scratch, 256),
      makeDesc("t:L1"), makeDesc("t:L2", 0)};
  __decan_register_loops(Ds, 3);
  EXPECT_EQ(Ds[0].active, 1u);
  EXPECT_EQ(Ds[1].active, 0u) << "not selected";
  EXPECT_EQ(Ds[2].active, 0u) << "no eligible variant";

  const uint32_t Csr = 0x1F80 | 0x2000; // masks + round down, no FTZ/DAZ
  writeMxcsr(Csr);
  std::vector<int> Seq;
  for (int I = 0; I < 2 + 2 * 12; ++I) {
    CallResult R = stubCall(Ds[0], 1000 + I);
    Seq.push_back(R.Variant);
    EXPECT_EQ(readMxcsr() & ~0x3Fu, Csr) << "MXCSR restored after the call";
    ASSERT_GE(R.Variant, 0) << "every call of an active loop is timed";
    EXPECT_EQ(R.CsrInside & ~0x3Fu,
              R.Variant == DECAN_REF ? Csr : Csr | 0x8000 | 0x0040)
        << "REF runs in the program's MXCSR, variants with FTZ/DAZ";
    EXPECT_EQ(R.Original, R.Variant != DECAN_REF);
  }
  writeMxcsr(0x1F80);
  // The warmup call, then 3 x 4 slots back to back: REF before and after
  // each sample (a slot's post call is the next one's pre call), the
  // samples in rotation order.
  std::vector<int> Want = {DECAN_REF, DECAN_REF};
  for (int Round = 0; Round < 3; ++Round)
    for (int V : {DECAN_REF, DECAN_FP, DECAN_DL1, DECAN_CTRL})
      for (int Slot : {V, (int)DECAN_REF})
        Want.push_back(Slot);
  EXPECT_EQ(Seq, Want);

  ASSERT_EQ(decan_flush(), 0);
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  expectDesignShape(R);
  EXPECT_EQ(R["status"].Str, "flushed");
  EXPECT_EQ(R["crash"].K, minijson::Value::Null);
  const minijson::Value *L0 = findLoop(R, "t:L0");
  ASSERT_NE(L0, nullptr);
  EXPECT_TRUE((*L0)["selected"].B);
  EXPECT_EQ((*L0)["line"].Num, 7);
  EXPECT_EQ((*L0)["store_policy"]["REF"].Str, "kept");
  EXPECT_EQ((*L0)["store_policy"]["FP"].Str, "deleted");
  EXPECT_EQ((*L0)["store_policy"]["DL1"].Str, "scratch");
  // Without a machine info the producer recorded nothing but REF's.
  const minijson::Value *L2 = findLoop(R, "t:L2");
  ASSERT_NE(L2, nullptr);
  EXPECT_EQ((*L2)["store_policy"]["REF"].Str, "kept");
  EXPECT_EQ((*L2)["store_policy"]["FP"].K, minijson::Value::Null);
  EXPECT_EQ((*L0)["unavailable"]["LS"].Str, "verifier");
  EXPECT_EQ((*L0)["unavailable"]["NO_DIV"].Str, "not-emitted");
  ASSERT_EQ((*L0)["threads"].Arr.size(), 1u);
  const auto &T0 = (*L0)["threads"][0];
  EXPECT_EQ(T0["thread"].Num, 0);
  EXPECT_EQ(T0["tid"].Num, (double)gettid());
  EXPECT_EQ(T0["calls_seen"].Num, 26);
  EXPECT_EQ(T0["slots"].Num, 12);
  const auto &Tot = T0["whole_run"];
  EXPECT_EQ(Tot["calls"].Num, 26) << "every call's REF run, reruns too";
  EXPECT_EQ(Tot["iterations"].Num, 260);
  EXPECT_EQ(Tot["variant_calls"].Num, 9);
  double Cycles = 0, VarCycles = 0;
  for (int I = 0; I < 26; ++I)
    (Seq[I] == DECAN_REF ? Cycles : VarCycles) += 1000 + I;
  // A rerun reports the same cycles as its variant call here (stubCall).
  EXPECT_EQ(Tot["cycles"].Num, Cycles + VarCycles);
  EXPECT_EQ(Tot["variant_cycles"].Num, VarCycles);
  const auto &Vs = T0["variants"];
  EXPECT_EQ(Vs.Obj.size(), 4u);
  for (const char *V : {"REF", "FP", "DL1", "CTRL"}) {
    const auto &VD = Vs[V];
    EXPECT_EQ(VD["calls"].Num, 3) << V;
    EXPECT_EQ(VD["records"].Arr.size(), VD["calls"].Num) << V;
    ASSERT_EQ(VD["fields"].Arr.size(), 9u);
    const char *Names[] = {"cycles",      "trips",      "flags",
                           "call",        "pre_cycles", "pre_trips",
                           "post_cycles", "post_trips", "rerun_trips"};
    for (int F = 0; F < 9; ++F)
      EXPECT_EQ(VD["fields"][F].Str, Names[F]);
    for (auto &Rec : VD["records"].Arr) {
      // cycles = 1000 + index of the call in the loop above = 999 + call
      EXPECT_EQ(Rec[0].Num, 999 + Rec[3].Num);
      EXPECT_EQ(Rec[1].Num, 10);
      EXPECT_EQ(Rec[4].Num, 998 + Rec[3].Num) << "the REF call before";
      EXPECT_EQ(Rec[5].Num, 10);
      EXPECT_EQ(Rec[6].Num, 1000 + Rec[3].Num) << "the REF call after";
      EXPECT_EQ(Rec[7].Num, 10);
      bool IsRef = std::string(V) == "REF";
      EXPECT_EQ(Rec[8].Num, IsRef ? 0 : 10) << "trips of the same input";
      // Only context switches (a busy machine) may set flags.
      EXPECT_EQ((uint64_t)Rec[2].Num & ~(uint64_t)(1 | 4 | 8), 0u);
    }
  }
  const minijson::Value *L1 = findLoop(R, "t:L1");
  ASSERT_NE(L1, nullptr);
  EXPECT_FALSE((*L1)["selected"].B);
  EXPECT_TRUE((*L1)["threads"].Arr.empty());
}

TEST(Runtime, ReplaceModeRunsFirstVariantOnly) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_MODE", "replace"},
             {"DECAN_VARIANTS", "FP,REF"},
             {"DECAN_WARMUP", "2"}});
  decan_loop_desc D = makeDesc("rep:L0");
  __decan_register_loops(&D, 1);
  for (int I = 0; I < 10; ++I) {
    CallResult R = stubCall(D, 5);
    EXPECT_EQ(R.Variant, DECAN_FP);
    EXPECT_FALSE(R.Original) << "replace mode never reruns the original";
  }
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &Vs = (*findLoop(R, "rep:L0"))["threads"][0]["variants"];
  EXPECT_EQ(Vs.Obj.size(), 1u);
  EXPECT_EQ(Vs["FP"]["calls"].Num, 8) << "2 warmup calls unrecorded";
}

TEST(Runtime, ContextSwitchIsFlaggedAndExcludedButCounted) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF"},
             {"DECAN_WARMUP", "0"},
             {"DECAN_REPS", "2"}});
  decan_loop_desc D = makeDesc("cs:L0");
  __decan_register_loops(&D, 1);
  auto Sleep = [] {
    struct timespec Ts = {0, 2000000};
    nanosleep(&Ts, nullptr);
  };
  // Sleeping inside a call is a voluntary context switch: in the first
  // slot's pre call and its sample.
  stubCall(D, 1, 1, Sleep);
  stubCall(D, 1, 1, Sleep);
  for (int I = 0; I < 7; ++I)
    stubCall(D, 2);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &T0 = (*findLoop(R, "cs:L0"))["threads"][0];
  EXPECT_EQ(T0["whole_run"]["calls"].Num, 9) << "switched calls still count";
  const auto &Ref = T0["variants"]["REF"];
  EXPECT_GE(Ref["calls"].Num, 2) << "two dense slots, then sparser ones";
  EXPECT_GE(Ref["excluded"].Num, 1);
  uint64_t Flags = (uint64_t)Ref["records"][0][2].Num;
  EXPECT_EQ(Flags & 1, 1u) << "flags bit 0 on the slept sample";
  EXPECT_EQ(Flags & 4, 4u) << "flags bit 2: its pre REF call slept too";
}

TEST(Runtime, PageFaultIsFlaggedAndExcludedLikeASwitch) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF"},
             {"DECAN_WARMUP", "0"},
             {"DECAN_REPS", "2"}});
  decan_loop_desc D = makeDesc("pf:L0");
  __decan_register_loops(&D, 1);
  // Fresh anonymous pages, each written for the first time inside a call:
  // the first touch of whichever copy runs first (issue 26).
  constexpr size_t Pages = 64;
  long Page = sysconf(_SC_PAGESIZE);
  static char *Fresh;
  static long PageSize;
  PageSize = Page;
  Fresh =
      static_cast<char *>(mmap(nullptr, Pages * Page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(Fresh, MAP_FAILED);
  static size_t Next;
  Next = 0;
  auto Touch = [] {
    for (int I = 0; I < 4; ++I)
      Fresh[(Next++) * PageSize] = 1;
  };
  stubCall(D, 1, 1, Touch);
  stubCall(D, 1, 1, Touch);
  for (int I = 0; I < 7; ++I)
    stubCall(D, 2);
  ASSERT_TRUE(writeReportNow("flushed"));
  munmap(Fresh, Pages * Page);
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &T0 = (*findLoop(R, "pf:L0"))["threads"][0];
  EXPECT_EQ(T0["whole_run"]["calls"].Num, 9) << "faulted calls still count";
  const auto &Ref = T0["variants"]["REF"];
  EXPECT_GE(Ref["excluded"].Num, 1);
  uint64_t Flags = (uint64_t)Ref["records"][0][2].Num;
  EXPECT_EQ(Flags & (DECAN_SAMPLE_SWITCHED | DECAN_SAMPLE_FAULTED),
            uint64_t(DECAN_SAMPLE_SWITCHED | DECAN_SAMPLE_FAULTED))
      << "the faulted sample: excluded (bit 0) and why (bit 7)";
  EXPECT_EQ(Flags & DECAN_SAMPLE_PRE_SWITCHED,
            uint64_t(DECAN_SAMPLE_PRE_SWITCHED))
      << "its pre REF call faulted too";
  // Later samples touch nothing new: kept.
  bool Clean = false;
  for (const auto &Rec : Ref["records"].Arr)
    Clean |= ((uint64_t)Rec[2].Num & DECAN_SAMPLE_FAULTED) == 0;
  EXPECT_TRUE(Clean);
}

/// Runs until the thread has used \p Ns more of its CPU time (a spin a
/// busy machine cannot shorten).
void spinCpu(uint64_t Ns) {
  auto Cpu = [] {
    struct timespec Ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &Ts);
    return (uint64_t)Ts.tv_sec * 1000000000ull + (uint64_t)Ts.tv_nsec;
  };
  for (uint64_t Start = Cpu(); Cpu() - Start < Ns;)
    ;
}

TEST(Runtime, BlockedTimeIsToldFromCpuTime) {
  // A slot's REF calls are probed: the thread's CPU time and voluntary
  // context switches around them. Sleeping is blocked time, spinning is
  // CPU time (issue 26: thread pools' loops around pthread_cond_wait).
  for (bool Sleeping : {true, false}) {
    configure({{"DECAN_LOOPS", "all"},
               {"DECAN_VARIANTS", "REF"},
               {"DECAN_WARMUP", "0"},
               {"DECAN_REPS", "4"}});
    decan_loop_desc D = makeDesc(Sleeping ? "sleep:L0" : "spin:L0");
    __decan_register_loops(&D, 1);
    for (int I = 0; I < 6; ++I)
      stubCall(D, 1000, 1, Sleeping ? +[] {
        struct timespec Ts = {0, 2000000};
        nanosleep(&Ts, nullptr);
      } : +[] { spinCpu(2000000); });
    ASSERT_TRUE(writeReportNow("flushed"));
    minijson::Value R;
    ASSERT_TRUE(readReport(reportPath(), R));
    const auto &Tot = (*findLoop(R, D.id))["threads"][0]["whole_run"];
    double Probed = Tot["probed_calls"].Num;
    EXPECT_GE(Probed, 4) << "slots back to back: every call is a slot's";
    EXPECT_EQ(Tot["probed_cycles"].Num, 1000 * Probed);
    if (Sleeping) {
      EXPECT_EQ(Tot["blocked_calls"].Num, Probed);
      EXPECT_GE(Tot["probed_voluntary_switches"].Num, Probed);
      EXPECT_LT(Tot["probed_cpu_ns"].Num, 1e6 * Probed) << "asleep: no CPU";
      EXPECT_EQ(Tot["blocked_cpu_ns"].Num, Tot["probed_cpu_ns"].Num);
    } else {
      EXPECT_GE(Tot["probed_cpu_ns"].Num, 2e6 * Probed);
    }
  }
}

TEST(Runtime, DecansCostIsCpuTimeNotTheWaitInACopy) {
  // issue 26: a copy that blocks (a pool's loop around pthread_cond_wait)
  // or is preempted holds a wait on the wall clock that is no work of
  // decan's; its cost is the copy's CPU time. A copy that spins is decan's
  // work, all of it.
  for (bool Sleeping : {true, false}) {
    configure({{"DECAN_LOOPS", "all"},
               {"DECAN_VARIANTS", "REF,LS"},
               {"DECAN_WARMUP", "0"},
               {"DECAN_REPS", "4"}});
    decan_loop_desc D = makeDesc(Sleeping ? "csleep:L0" : "cspin:L0");
    __decan_register_loops(&D, 1);
    constexpr uint64_t Own = 1000; // REF's cycles, as the stub times them
    unsigned Copies = 0;
    for (int I = 0; I < 12; ++I) {
      int V = __decan_begin_call(&D);
      if (V < 0)
        continue;
      if (V != DECAN_REF) {
        ++Copies;
        if (Sleeping) {
          struct timespec Ts = {0, 2000000};
          nanosleep(&Ts, nullptr);
        } else {
          spinCpu(2000000);
        }
      }
      if (__decan_end_call(&D, V, Own, 1))
        __decan_end_call(&D, V | DECAN_RERUN, Own, 1);
    }
    ASSERT_GE(Copies, 2u);
    ASSERT_TRUE(writeReportNow("flushed"));
    minijson::Value R;
    ASSERT_TRUE(readReport(reportPath(), R));
    EXPECT_EQ(R["process"]["decan_cost_clock"].Str, "cpu");
    const auto &Tot = (*findLoop(R, D.id))["threads"][0]["whole_run"];
    double Cost = Tot["inside_cycles"].Num - Tot["timed_cycles"].Num;
    double Ms = R["machine"]["tsc_hz"].Num / 1000;
    if (Sleeping)
      EXPECT_LT(Cost, 0.5 * Ms * Copies) << "2 ms asleep in each copy";
    else
      EXPECT_GE(Cost, 1.9 * Ms * Copies) << "2 ms of CPU in each copy";
  }
}

TEST(Runtime, OneThreadAtATimeRunsALoopsCopies) {
  // The copies share the loop's scratch area: while one thread runs a
  // copy, another thread's slots time REF (issue 26: Sat(DL1) of 4-6 on an
  // OpenMP triad, the threads bouncing the area's lines between cores).
  configure(
      {{"DECAN_LOOPS", "all"}, {"DECAN_WARMUP", "0"}, {"DECAN_REPS", "3"}});
  alignas(64) static char Scratch[256];
  decan_loop_desc D = makeDesc("scr:L0", 63, nullptr, Scratch, 256);
  __decan_register_loops(&D, 1);
  int Held = DECAN_REF;
  for (int I = 0; I < 20 && Held == DECAN_REF; ++I) {
    Held = __decan_begin_call(&D);
    ASSERT_GE(Held, 0);
    if (Held == DECAN_REF)
      EXPECT_EQ(__decan_end_call(&D, Held, 1000, 10), 0);
  }
  ASSERT_NE(Held, DECAN_REF) << "a copy is in flight on this thread";
  auto Other = [&](std::vector<int> &Seen) {
    std::thread([&] {
      for (int I = 0; I < 24; ++I)
        Seen.push_back(stubCall(D, 1000).Variant);
    }).join();
  };
  std::vector<int> While, After;
  Other(While);
  EXPECT_EQ(std::count(While.begin(), While.end(), DECAN_REF), 24)
      << "only REF while another thread runs a copy";
  EXPECT_NE(__decan_end_call(&D, Held, 1000, 10), 0);
  EXPECT_EQ(__decan_end_call(&D, Held | DECAN_RERUN, 1000, 10), 0);
  Other(After);
  EXPECT_LT(std::count(After.begin(), After.end(), DECAN_REF), 24)
      << "copies again once it is free";
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  EXPECT_GE((*findLoop(R, "scr:L0"))["scratch_busy_calls"].Num, 1);
}

TEST(Runtime, PastMaxRecordsStatisticsGoOnline) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF"},
             {"DECAN_WARMUP", "0"},
             {"DECAN_REPS", "0"},
             {"DECAN_MAX_RECORDS", "5"}});
  decan_loop_desc D = makeDesc("on:L0");
  __decan_register_loops(&D, 1);
  // Samples are calls 2, 4, ..., 60: 30 of them, 5 raw, 25 online.
  for (int I = 1; I <= 60; ++I)
    stubCall(D, (uint64_t)I * 10, 3);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &Ref = (*findLoop(R, "on:L0"))["threads"][0]["variants"]["REF"];
  EXPECT_EQ(Ref["calls"].Num, 30);
  EXPECT_EQ(Ref["records"].Arr.size(), 5u);
  const auto &On = Ref["online"];
  if (Ref["excluded"].Num != 0)
    GTEST_SKIP() << "a preemption disturbed a call; exact sums differ";
  EXPECT_EQ(On["count"].Num, 25);
  EXPECT_EQ(On["min"].Num, 120);
  EXPECT_EQ(On["max"].Num, 600);
  EXPECT_EQ(On["sum"].Num, 25 * (120 + 600) / 2);
  EXPECT_EQ(On["trips_sum"].Num, 75);
}

struct Seen {
  std::vector<std::vector<uint8_t>> Calls; // [thread][call]
  std::set<int32_t> Tids;
  uint64_t Bad = 0;
};

TEST(Runtime, EightThreadsLoseNoRecord) {
  constexpr int kThreads = 8, kCalls = 100000;
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_WARMUP", "0"},
             {"DECAN_REPS", "0"},
             {"DECAN_MAX_RECORDS", "200000"}});
  static decan_loop_desc D = makeDesc("thr:L0");
  __decan_register_loops(&D, 1);
  std::vector<std::thread> Ts;
  for (int T = 0; T < kThreads; ++T)
    Ts.emplace_back([] {
      for (uint64_t I = 1; I <= kCalls; ++I) {
        int V = __decan_begin_call(&D);
        if (V >= 0 && __decan_end_call(&D, V, I, V))
          __decan_end_call(&D, V | DECAN_RERUN, I, V);
      }
    });
  for (auto &T : Ts)
    T.join();
  Seen S;
  S.Calls.assign(kThreads + 1, std::vector<uint8_t>(kCalls + 1, 0));
  ASSERT_TRUE(visitRecords(
      "thr:L0",
      [](void *Ctx, uint32_t Thread, int32_t Tid, int V, const uint64_t *R,
         unsigned) {
        auto &S = *static_cast<Seen *>(Ctx);
        S.Tids.insert(Tid);
        // cycles carry the call index, trips the variant the runtime chose;
        // samples are calls 2, 4, 6... (back-to-back slots share their REF
        // calls, warmup 0).
        if (Thread > 8 || R[0] != R[3] || R[1] != (uint64_t)V || R[3] == 0 ||
            R[3] > kCalls || R[3] % 2 != 0 || R[4] != R[3] - 1 ||
            (R[3] < kCalls && R[6] != R[3] + 1) ||
            R[8] != (V == DECAN_REF ? 0u : (uint64_t)V))
          ++S.Bad;
        else
          ++S.Calls[Thread][R[3]];
      },
      &S));
  EXPECT_EQ(S.Bad, 0u);
  EXPECT_EQ(S.Tids.size(), (size_t)kThreads);
  uint64_t Threads = 0;
  for (auto &C : S.Calls) {
    uint64_t Once = 0;
    for (int I = 1; I <= kCalls; ++I)
      Once += C[I] == 1;
    if (Once) {
      ++Threads;
      EXPECT_EQ(Once, (uint64_t)kCalls / 2)
          << "every sample recorded exactly once";
    }
  }
  EXPECT_EQ(Threads, (uint64_t)kThreads);
}

TEST(Runtime, ShortCallsGetAStrideAndEveryCallStillCounts) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF,LS"},
             {"DECAN_REPS", "2"}});
  decan_loop_desc D = makeDesc("stride:L0");
  __decan_register_loops(&D, 1);
  // 3-cycle calls: the runtime's own work per timed call is far more.
  constexpr uint64_t kCalls = 200000;
  uint64_t Timed = 0;
  for (uint64_t I = 0; I < kCalls; ++I)
    Timed += stubCall(D, 3, 4).Variant >= 0;
  EXPECT_EQ(D.active, 2u) << "the stub counts down";
  EXPECT_LT(Timed, kCalls / 20);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &T0 = (*findLoop(R, "stride:L0"))["threads"][0];
  EXPECT_EQ(T0["calls_seen"].Num, kCalls) << "tail included";
  const auto &Tot = T0["whole_run"];
  EXPECT_EQ(Tot["calls"].Num, kCalls);
  EXPECT_EQ(Tot["iterations"].Num, 4 * kCalls);
  EXPECT_EQ(Tot["timed_calls"].Num, Timed) << "REF calls and reruns";
  EXPECT_GT(Tot["max_stride"].Num, 20);
  EXPECT_GT(T0["variants"]["LS"]["calls"].Num, 2) << "samples still come";

  // A second thread: once one of its calls reaches the runtime (within a
  // stride), every call of every thread does again, and each thread counts
  // its own stride down there: few are timed, every one is counted.
  uint64_t Seen = 0, Timed2 = 0;
  std::thread([&] {
    for (uint64_t I = 0; I < 70000; ++I) {
      Timed2 += stubCall(D, 3, 4).Variant >= 0;
      Seen += D.active == 1; // from the call that reached the runtime on
    }
  }).join();
  EXPECT_EQ(D.active, 1u);
  EXPECT_GT(Seen, 1000u);
  EXPECT_LT(Timed2, Seen / 20);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R2;
  ASSERT_TRUE(readReport(reportPath(), R2));
  const auto &T1 = (*findLoop(R2, "stride:L0"))["threads"][1];
  EXPECT_EQ(T1["whole_run"]["calls"].Num, Seen) << "its tail included";
  EXPECT_GT(T1["whole_run"]["max_stride"].Num, 20);
}

/// A rewritten dispatcher's quick call (DECAN_QUICK_CALL, before the
/// extended state is saved), from assembly: the vector registers hold a
/// pattern across it, as the program's would.
int quickCallKeepingVectors(decan_loop_desc *D, bool &VectorsKept) {
  alignas(16) uint64_t In[32], Out[32];
  for (unsigned K = 0; K < 32; ++K)
    In[K] = 0x0123456789abcdefull * (K + 1);
  int Ret;
  __asm__ __volatile__(
#define DECAN_XMM(N) "movdqu " #N "*16(%[in]), %%xmm" #N "\n"
      DECAN_XMM(0) DECAN_XMM(1) DECAN_XMM(2) DECAN_XMM(3) DECAN_XMM(4)
          DECAN_XMM(5) DECAN_XMM(6) DECAN_XMM(7) DECAN_XMM(8) DECAN_XMM(9)
              DECAN_XMM(10) DECAN_XMM(11) DECAN_XMM(12) DECAN_XMM(13)
                  DECAN_XMM(14) DECAN_XMM(15)
#undef DECAN_XMM
                      "movq %%rsp, %%rbx\n"
                      "subq $128, %%rsp\n"
                      "andq $-16, %%rsp\n"
                      "movq %[d], %%rdi\n"
                      "call decan_rewritten_quick_call\n"
                      "movq %%rbx, %%rsp\n"
                      "movl %%eax, %[r]\n"
#define DECAN_XMM(N) "movdqu %%xmm" #N ", " #N "*16(%[out])\n"
      DECAN_XMM(0) DECAN_XMM(1) DECAN_XMM(2) DECAN_XMM(3) DECAN_XMM(4)
          DECAN_XMM(5) DECAN_XMM(6) DECAN_XMM(7) DECAN_XMM(8) DECAN_XMM(9)
              DECAN_XMM(10) DECAN_XMM(11) DECAN_XMM(12) DECAN_XMM(13)
                  DECAN_XMM(14) DECAN_XMM(15)
#undef DECAN_XMM
      : [r] "=m"(Ret)
      : [in] "r"(In), [out] "r"(Out), [d] "r"(D)
      : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
        "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory",
        "cc");
  VectorsKept = memcmp(In, Out, sizeof(In)) == 0;
  return Ret;
}

TEST(Runtime, ADispatchersQuickCallCountsAThreadsStrideDown) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF,LS"},
             {"DECAN_REPS", "2"}});
  decan_loop_desc D = makeDesc("quick:L0");
  __decan_register_loops(&D, 1);
  for (uint64_t I = 0; I < 100000; ++I)
    stubCall(D, 3, 4);
  ASSERT_EQ(D.active, 2u);
  // A second thread: each call that reaches the dispatcher asks the quick
  // question first; only the calls the runtime decides go on to the full
  // begin_call (stubCall), and every one is counted as before.
  uint64_t Seen = 0, Quick = 0, Entered = 0;
  bool Kept = true;
  std::thread([&] {
    for (uint64_t I = 0; I < 50000; ++I) {
      if (D.active == 2 && --D.countdown > 0)
        continue;
      ++Seen;
      ++Entered;
      bool K = true;
      if (quickCallKeepingVectors(&D, K) < 0)
        ++Quick;
      else
        stubCall(D, 3, 4);
      Kept &= K;
    }
  }).join();
  EXPECT_TRUE(Kept) << "the quick call touches general registers only";
  EXPECT_GT(Quick, Entered / 2) << "most calls counted down there";
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  EXPECT_GT(R["probe"]["dispatch_centicycles"].Num,
            R["probe"]["dispatch_quick_centicycles"].Num)
      << "a full entry saves the extended state too";
  EXPECT_GT(R["probe"]["dispatch_quick_centicycles"].Num, 0);
  const auto &T1 = (*findLoop(R, "quick:L0"))["threads"][1]["whole_run"];
  EXPECT_EQ(T1["quick_calls"].Num, Quick);
  // (The thread's first call has no record yet: not counted.)
  EXPECT_EQ(T1["dispatch_calls"].Num, Entered - 1);
  EXPECT_EQ(T1["calls"].Num, Seen)
      << "quick calls count as calls of the stride";
}

TEST(Runtime, AnIsolatedSpikeIsNotMultipliedByTheStride) {
  configure(
      {{"DECAN_LOOPS", "all"}, {"DECAN_VARIANTS", "REF"}, {"DECAN_REPS", "2"}});
  decan_loop_desc D = makeDesc("spike:L0");
  __decan_register_loops(&D, 1);
  constexpr uint64_t kCalls = 200000, kSpike = 3000000;
  bool Spiked = false;
  for (uint64_t I = 0; I < kCalls; ++I) {
    bool Now = !Spiked && I >= kCalls / 2;
    if (stubCall(D, Now ? kSpike : 3, 4).Variant >= 0 && Now)
      Spiked = true; // an interrupt in the one call that was timed
  }
  ASSERT_TRUE(Spiked);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &Tot = (*findLoop(R, "spike:L0"))["threads"][0]["whole_run"];
  EXPECT_EQ(Tot["calls"].Num, kCalls);
  EXPECT_GT(Tot["max_stride"].Num, 20);
  EXPECT_LE(Tot["cycles"].Num, 3.0 * kCalls + kSpike)
      << "the spike counts once, not once per call it stood for";
}

TEST(Runtime, AStrideBackToOneLeavesNoTailCall) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF,LS"},
             {"DECAN_REPS", "2"}});
  decan_loop_desc D = makeDesc("tail:L0");
  __decan_register_loops(&D, 1);
  // Short calls until a stride has come and a sample (a slot's middle
  // call, at a stride of 1) is the last call before the report.
  uint64_t Calls = 0;
  bool SampledAtStride = false;
  while (!SampledAtStride && Calls < 1000000) {
    ++Calls;
    SampledAtStride = stubCall(D, 3, 4).Variant == DECAN_LS && D.active == 2 &&
                      Calls > 100000;
  }
  ASSERT_TRUE(SampledAtStride);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &T0 = (*findLoop(R, "tail:L0"))["threads"][0];
  EXPECT_EQ(T0["whole_run"]["tail_calls"].Num, 0);
  EXPECT_EQ(T0["whole_run"]["calls"].Num, Calls);
  EXPECT_EQ(T0["calls_seen"].Num, Calls);
}

TEST(Runtime, ZeroAccountBudgetTimesEveryCall) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF"},
             {"DECAN_ACCOUNT_BUDGET", "0"}});
  decan_loop_desc D = makeDesc("nostride:L0");
  __decan_register_loops(&D, 1);
  for (int I = 0; I < 5000; ++I)
    ASSERT_GE(stubCall(D, 3, 4).Variant, 0);
  EXPECT_EQ(D.active, 1u);
}

// A loop nest (`decan flags --nests`) gets no accounting stride, however
// short its calls: a call its stub counted down would run its inner loops'
// stubs, whose timed calls would then count inside the nest's estimate too.
TEST(Runtime, ANestTimesEveryCall) {
  configure({{"DECAN_LOOPS", "all"}, {"DECAN_VARIANTS", "REF"}});
  decan_loop_desc D = makeDesc("nest:N0");
  D.flags = DECAN_DESC_NEST;
  __decan_register_loops(&D, 1);
  for (int I = 0; I < 5000; ++I)
    ASSERT_GE(stubCall(D, 3, 4).Variant, 0);
  EXPECT_EQ(D.active, 1u);
}

decan_loop_desc *NestedInner = nullptr;
void callNestedInner() { stubCall(*NestedInner, 500, 5); }

TEST(Runtime, ALoopThatRunsMeasuredLoopsIsNotMeasuredTheyAre) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF,LS"},
             {"DECAN_REPS", "20"},
             {"DECAN_ACCOUNT_BUDGET", "0"}});
  decan_loop_desc Ds[2] = {makeDesc("outer:L0"), makeDesc("inner:L0")};
  __decan_register_loops(Ds, 2);
  NestedInner = &Ds[1];
  // The outer loop's calls 1..9 run no measured loop; from call 10 on,
  // every third one runs the inner loop (a callee that grows a buffer).
  int Timed = 0;
  for (int I = 0; I < 60; ++I)
    Timed += stubCall(Ds[0], 5000, 10,
                      I >= 9 && I % 3 == 0 ? callNestedInner : nullptr)
                 .Variant >= 0;
  EXPECT_EQ(Ds[0].active, 0u) << "the outer loop stops being timed";
  EXPECT_EQ(Timed, 10);
  EXPECT_EQ(Ds[1].active, 1u);
  for (int I = 0; I < 30; ++I)
    stubCall(Ds[1], 500, 5);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  // What it measured before held the inner loop's work, or may have (a
  // strided inner loop shows one call in k): left out of the report.
  EXPECT_TRUE((*findLoop(R, "outer:L0"))["threads"].Arr.empty());
  const auto &In = (*findLoop(R, "inner:L0"))["threads"][0];
  EXPECT_EQ(In["whole_run"]["calls"].Num, 31) << "the nested call and 30 more";
  bool Warned = false;
  for (auto &W : R["warnings"].Arr)
    Warned |= W.Str.find("outer:L0 calls measured loops (inner:L0): not "
                         "measured") != std::string::npos;
  EXPECT_TRUE(Warned);
  NestedInner = nullptr;
}

TEST(Runtime, ThreadsReportParsesWithPerThreadCounts) {
  constexpr int kThreads = 8, kCalls = 10000;
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_WARMUP", "0"},
             {"DECAN_REPS", "0"},
             {"DECAN_MAX_RECORDS", "100"}});
  static decan_loop_desc D = makeDesc("thr2:L0");
  __decan_register_loops(&D, 1);
  std::vector<std::thread> Ts;
  for (int T = 0; T < kThreads; ++T)
    Ts.emplace_back([] {
      for (int I = 0; I < kCalls; ++I)
        stubCall(D, 50);
    });
  for (auto &T : Ts)
    T.join();
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &Threads = (*findLoop(R, "thr2:L0"))["threads"].Arr;
  ASSERT_EQ(Threads.size(), (size_t)kThreads);
  std::set<double> Idx;
  for (auto &T : Threads) {
    Idx.insert(T["thread"].Num);
    EXPECT_EQ(T["calls_seen"].Num, kCalls);
    EXPECT_EQ(T["whole_run"]["calls"].Num, kCalls) << "every call accounted";
    double Calls = 0, Kept = 0;
    for (auto &V : T["variants"].Obj) {
      Calls += V["calls"].Num;
      Kept += V["records"].Arr.size() + V["online"]["count"].Num +
              V["excluded"].Num;
      EXPECT_LE(V["records"].Arr.size(), 100u);
    }
    EXPECT_EQ(Calls, kCalls / 2) << "back-to-back slots: every other call";
    EXPECT_GE(Kept, Calls) << "records + online + excluded cover every call";
  }
  EXPECT_EQ(Idx.size(), (size_t)kThreads);
}

TEST(Runtime, CountersFallBackWithoutPmu) {
  configure({{"DECAN_LOOPS", "all"},
             {"DECAN_VARIANTS", "REF"},
             {"DECAN_WARMUP", "0"},
             {"DECAN_EVENTS", "cycles,task-clock,not-an-event"}});
  bool HasPmu = false;
  {
    perf_event_attr A;
    char Err[256];
    PerfCounter C;
    HasPmu = encodeEvent("cycles", A, Err, sizeof(Err)) &&
             C.open(A, "cycles", Err, sizeof(Err));
  }
  decan_loop_desc D = makeDesc("pmu:L0");
  __decan_register_loops(&D, 1);
  for (int I = 0; I < 5; ++I)
    stubCall(D, 100, 1, [] {
      volatile double X = 0;
      for (int J = 0; J < 200000; ++J)
        X = X + 1;
    });
  EXPECT_FALSE(countersAvailable()) << "'not-an-event' cannot be counted";
  EXPECT_EQ(numWorkingEvents(), HasPmu ? 2u : 1u);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const auto &C = R["counters"];
  EXPECT_FALSE(C["available"].B);
  std::map<std::string, std::string> Unavail;
  for (auto &U : C["unavailable"].Arr)
    Unavail[U["name"].Str] = U["error"].Str;
  EXPECT_NE(Unavail["not-an-event"].find("unknown event 'not-an-event'"),
            std::string::npos);
  if (!HasPmu) {
    EXPECT_NE(Unavail["cycles"].find("perf_event_open(cycles)"),
              std::string::npos);
    EXPECT_NE(C["message"].Str.find("cycles"), std::string::npos);
  }
  const auto &T0 = (*findLoop(R, "pmu:L0"))["threads"][0];
  EXPECT_EQ(T0["whole_run"]["calls"].Num, 5) << "the run goes on with rdtsc";
  const auto &Ref = T0["variants"]["REF"];
  EXPECT_EQ(Ref["calls"].Num, 2) << "samples at calls 2 and 5";
  const auto &Fields = Ref["fields"].Arr;
  ASSERT_EQ(Fields.size(), HasPmu ? 11u : 10u);
  EXPECT_EQ(Fields.back().Str, "task-clock");
  for (auto &Rec : Ref["records"].Arr)
    EXPECT_GT(Rec[Fields.size() - 1].Num, 0) << "task-clock delta";
}

TEST(Runtime, RegionsAppearAsRefOnlyLoops) {
  configure({{"DECAN_LOOPS", "region:inner"}, {"DECAN_WARMUP", "1"}});
  for (int I = 0; I < 4; ++I) {
    decan_region_begin("outer");
    decan_region_begin("inner");
    volatile int X = 0;
    for (int J = 0; J < 1000; ++J)
      X = X + J;
    decan_region_end();
    decan_region_end();
  }
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const minijson::Value *In = findLoop(R, "region:inner");
  const minijson::Value *Out = findLoop(R, "region:outer");
  ASSERT_NE(In, nullptr);
  ASSERT_NE(Out, nullptr);
  EXPECT_TRUE((*In)["region"].B);
  EXPECT_EQ((*In)["variant_mask"].Num, 1);
  EXPECT_FALSE((*Out)["selected"].B);
  EXPECT_TRUE((*Out)["threads"].Arr.empty());
  const auto &Vs = (*In)["threads"][0]["variants"];
  ASSERT_EQ(Vs.Obj.size(), 1u);
  const auto &Ref = Vs["REF"];
  EXPECT_EQ(Ref["calls"].Num, 3);
  for (auto &Rec : Ref["records"].Arr) {
    EXPECT_GT(Rec[0].Num, 100) << "a 1000-iteration body takes cycles";
    EXPECT_EQ(Rec[1].Num, 0);
  }
}

TEST(Runtime, PlacedRegionsTimeTheOutermostActivation) {
  // Regions the plugin placed: a function (recursive here) and an outer
  // loop in it; active only with DECAN_REGIONS=1.
  configure(
      {{"DECAN_LOOPS", "all"}, {"DECAN_WARMUP", "0"}, {"DECAN_REGIONS", "1"}});
  static decan_loop_desc Ds[2] = {makeDesc("region:f", 1),
                                  makeDesc("region:f:L0", 1)};
  for (decan_loop_desc &D : Ds)
    D.flags = DECAN_DESC_REGION;
  __decan_register_loops(Ds, 2);
  ASSERT_EQ(Ds[0].active, 1u);
  auto Work = [] {
    volatile int X = 0;
    for (int J = 0; J < 2000; ++J)
      X = X + J;
  };
  // One thread: the timed activation stays open in the descriptor (3) with
  // its depth in `countdown`, so the stubs keep recursion to themselves.
  __decan_region_enter(&Ds[0]);
  EXPECT_EQ(Ds[0].active, 3u);
  EXPECT_EQ(Ds[0].countdown, 1);
  Work();
  Ds[0].countdown = 0; // what the leave stub does at depth 0
  __decan_region_leave(&Ds[0]);
  EXPECT_EQ(Ds[0].active, 1u) << "no stride before 16 timed activations";
  for (int I = 0; I < 2; ++I) {
    __decan_region_enter(&Ds[0]);
    __decan_region_enter(&Ds[0]); // a nested call that reached the runtime
    __decan_region_enter(&Ds[1]);
    Work();
    __decan_region_leave(&Ds[1]);
    __decan_region_leave(&Ds[0]);
    __decan_region_leave(&Ds[0]);
  }
  // An exception unwinds through the loop region: its leave never runs,
  // and the function's leave drops it untimed.
  __decan_region_enter(&Ds[0]);
  __decan_region_enter(&Ds[1]);
  Work();
  __decan_region_leave(&Ds[0]);
  // A leave with no enter of its own changes nothing.
  __decan_region_leave(&Ds[1]);
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  const minijson::Value *F = findLoop(R, "region:f");
  const minijson::Value *L = findLoop(R, "region:f:L0");
  ASSERT_NE(F, nullptr);
  ASSERT_NE(L, nullptr);
  EXPECT_TRUE((*F)["region"].B);
  EXPECT_EQ((*F)["threads"][0]["whole_run"]["calls"].Num, 4);
  EXPECT_EQ((*L)["threads"][0]["whole_run"]["calls"].Num, 2)
      << "the unwound activation is not timed";
  for (auto &Rec : (*F)["threads"][0]["variants"]["REF"]["records"].Arr)
    EXPECT_GT(Rec[0].Num, 1000) << "a 2000-iteration body takes cycles";
}

TEST(Runtime, PlacedRegionsStayInertWithoutDecanRegions) {
  configure({{"DECAN_LOOPS", "all"}});
  static decan_loop_desc D = makeDesc("region:g", 1);
  D.flags = DECAN_DESC_REGION;
  __decan_register_loops(&D, 1);
  EXPECT_EQ(D.active, 0u) << "one load and a branch in the program";
}

// A rewritten binary's RW segment, as the MC rewriter lays it out: header,
// descriptors, then strings and data, every pointer an offset.
struct alignas(64) FakeSegment {
  decan_rewritten_header H;
  decan_loop_desc D[2];
  decan_machine_info MI;
  char Strings[64];
  alignas(64) char Scratch[128];
};

template <typename T> T offsetOf(FakeSegment &S, const void *P) {
  return reinterpret_cast<T>(static_cast<const char *>(P) -
                             reinterpret_cast<char *>(&S));
}

void buildSegment(FakeSegment &S) {
  memset(&S, 0, sizeof(S));
  memcpy(S.H.magic, "DECANRW1", 8);
  S.H.abi_version = DECAN_ABI_VERSION;
  S.H.count = 2;
  S.H.descs_offset = offsetof(FakeSegment, D);
  strcpy(S.Strings, "rw:L0");
  strcpy(S.Strings + 8, "rw");
  strcpy(S.Strings + 16, "rw.c");
  strcpy(S.Strings + 24, "rw:L1");
  S.MI.status[DECAN_REF] = DECAN_VARIANT_OK;
  S.MI.status[DECAN_FP] = DECAN_VARIANT_UNSUPPORTED;
  for (int I = 0; I < 2; ++I) {
    decan_loop_desc &D = S.D[I];
    D.abi_version = DECAN_ABI_VERSION;
    D.variant_mask = 63;
    D.id = offsetOf<const char *>(S, S.Strings + (I ? 24 : 0));
    D.function = offsetOf<const char *>(S, S.Strings + 8);
    D.file = I ? nullptr : offsetOf<const char *>(S, S.Strings + 16);
    D.scratch = offsetOf<void *>(S, S.Scratch);
    D.scratch_size = sizeof(S.Scratch);
    D.minfo = I ? nullptr : offsetOf<const decan_machine_info *>(S, &S.MI);
  }
}

TEST(Runtime, RelocatesRewrittenSegments) {
  configure({{"DECAN_LOOPS", "rw:L0"}, {"DECAN_VARIANTS", "REF,FP"}});
  static FakeSegment RW, RO;
  buildSegment(RW);
  buildSegment(RO);
  ElfW(Phdr) P[3] = {};
  P[0].p_type = PT_LOAD;
  P[0].p_flags = PF_R | PF_X; // code: never looked at
  P[0].p_vaddr = reinterpret_cast<uintptr_t>(&RO);
  P[0].p_memsz = sizeof(RO);
  P[1].p_type = PT_LOAD;
  P[1].p_flags = PF_R | PF_W;
  P[1].p_vaddr = reinterpret_cast<uintptr_t>(&RW);
  P[1].p_memsz = sizeof(RW);
  P[2] = P[1];
  P[2].p_type = PT_NOTE;
  EXPECT_EQ(scanSegments(0, P, 3), 1u);
  EXPECT_EQ(RO.H.relocated, 0u);
  EXPECT_EQ(RW.H.relocated, 1u);
  // The rewritten dispatchers' entry, which arms the fault guard (Guard.h).
  EXPECT_EQ(RW.H.begin_call, &decan_rewritten_begin_call);
  EXPECT_EQ(RW.H.end_call, &__decan_end_call);
  EXPECT_STREQ(RW.D[0].id, "rw:L0");
  EXPECT_STREQ(RW.D[0].function, "rw");
  EXPECT_STREQ(RW.D[0].file, "rw.c");
  EXPECT_STREQ(RW.D[1].file, "");
  EXPECT_EQ(RW.D[0].scratch, RW.Scratch);
  EXPECT_EQ(RW.D[0].minfo, &RW.MI);
  EXPECT_EQ(RW.D[1].minfo, nullptr);
  EXPECT_EQ(RW.D[0].active, 1u);
  EXPECT_EQ(RW.D[1].active, 0u) << "not selected";
  EXPECT_EQ(scanSegments(0, P, 3), 0u) << "relocated only once";
  // The filled entry point works like the ABI's.
  int V = RW.H.begin_call(&RW.D[0]);
  EXPECT_EQ(V, DECAN_REF) << "a warmup call is timed as REF";
  EXPECT_EQ(RW.H.end_call(&RW.D[0], V, 10, 1), 0);
  FakeSegment Bad;
  buildSegment(Bad);
  Bad.H.magic[7] = '2';
  EXPECT_FALSE(relocateRewritten(&Bad.H));
}

/// Runs `Child` in a forked process; returns its wait status.
template <typename F> int inChild(F Child) {
  fflush(nullptr);
  pid_t P = fork();
  if (P == 0) {
    Child();
    _exit(99);
  }
  int St = 0;
  waitpid(P, &St, 0);
  return St;
}

std::string childReport(const std::string &Dir, pid_t Pid) {
  return Dir + "/decan." + std::to_string(Pid) + ".json";
}

TEST(Runtime, CrashInVariantLeavesValidReportNamingIt) {
  std::string Dir = freshDir();
  static decan_loop_desc D = makeDesc("crash:L0");
  pid_t Child = fork();
  if (Child == 0) {
    configure({{"DECAN_LOOPS", "all"},
               {"DECAN_OUTPUT", Dir},
               {"DECAN_VARIANTS", "REF,LS"},
               {"DECAN_WARMUP", "0"},
               {"DECAN_REPS", "0"}});
    __decan_register_loops(&D, 1);
    // Back-to-back slots (pre REF, sample, post REF = next pre), samples
    // REF, LS, REF, LS... at calls 2, 4, 6, 8: the 8th call is the second LS
    // sample.
    for (int I = 0; I < 7; ++I)
      stubCall(D, 77);
    int V = __decan_begin_call(&D);
    if (V != DECAN_LS)
      _exit(98);
    *static_cast<volatile int *>(nullptr) = 1; // SIGSEGV "inside the variant"
    _exit(99);
  }
  int St = 0;
  ASSERT_EQ(waitpid(Child, &St, 0), Child);
  ASSERT_TRUE(WIFSIGNALED(St)) << "the crash must stay a crash";
  EXPECT_EQ(WTERMSIG(St), SIGSEGV);
  minijson::Value R;
  ASSERT_TRUE(readReport(childReport(Dir, Child), R));
  EXPECT_EQ(R["status"].Str, "crashed");
  EXPECT_EQ(R["crash"]["signal"].Str, "SIGSEGV");
  EXPECT_EQ(R["crash"]["loop"].Str, "crash:L0");
  EXPECT_EQ(R["crash"]["variant"].Str, "LS");
  EXPECT_EQ(R["crash"]["rerun_after"].K, minijson::Value::Null);
  const auto &T0 = (*findLoop(R, "crash:L0"))["threads"][0];
  EXPECT_EQ(T0["whole_run"]["calls"].Num, 7) << "every call before the crash";
  const auto &Vs = T0["variants"];
  EXPECT_EQ(Vs["REF"]["records"].Arr.size(), 2u);
  EXPECT_EQ(Vs["LS"]["records"].Arr.size(), 1u) << "the crashed call is not";
}

TEST(Runtime, CrashInTheOriginalAfterAVariantNamesBoth) {
  std::string Dir = freshDir();
  static decan_loop_desc D = makeDesc("crash2:L0");
  pid_t Child = fork();
  if (Child == 0) {
    configure({{"DECAN_LOOPS", "all"},
               {"DECAN_OUTPUT", Dir},
               {"DECAN_VARIANTS", "REF,FP"},
               {"DECAN_WARMUP", "0"},
               {"DECAN_REPS", "0"}});
    __decan_register_loops(&D, 1);
    for (int I = 0; I < 3; ++I) // samples: call 2 REF, call 4 FP
      stubCall(D, 77);
    int V = __decan_begin_call(&D);
    if (V != DECAN_FP || !__decan_end_call(&D, V, 50, 10))
      _exit(98);
    *static_cast<volatile int *>(nullptr) = 1; // in the original run
    _exit(99);
  }
  int St = 0;
  ASSERT_EQ(waitpid(Child, &St, 0), Child);
  ASSERT_TRUE(WIFSIGNALED(St)) << "status " << St;
  minijson::Value R;
  ASSERT_TRUE(readReport(childReport(Dir, Child), R));
  EXPECT_EQ(R["crash"]["loop"].Str, "crash2:L0");
  EXPECT_EQ(R["crash"]["variant"].Str, "REF");
  EXPECT_EQ(R["crash"]["rerun_after"].Str, "FP");
}

TEST(Runtime, SigtermOutsideCallsIsInterrupted) {
  std::string Dir = freshDir();
  static decan_loop_desc D = makeDesc("term:L0");
  pid_t Child = fork();
  if (Child == 0) {
    configure({{"DECAN_LOOPS", "all"}, {"DECAN_OUTPUT", Dir}});
    __decan_register_loops(&D, 1);
    for (int I = 0; I < 4; ++I)
      stubCall(D, 5);
    kill(getpid(), SIGTERM);
    _exit(99);
  }
  int St = 0;
  ASSERT_EQ(waitpid(Child, &St, 0), Child);
  ASSERT_TRUE(WIFSIGNALED(St));
  EXPECT_EQ(WTERMSIG(St), SIGTERM);
  minijson::Value R;
  ASSERT_TRUE(readReport(childReport(Dir, Child), R));
  EXPECT_EQ(R["status"].Str, "interrupted");
  EXPECT_EQ(R["crash"]["signal"].Str, "SIGTERM");
  EXPECT_EQ(R["crash"]["loop"].K, minijson::Value::Null);
  const auto &T0 = (*findLoop(R, "term:L0"))["threads"][0];
  EXPECT_EQ(T0["calls_seen"].Num, 4);
  EXPECT_EQ(T0["whole_run"]["calls"].Num, 4);
  EXPECT_EQ(T0["variants"].Obj.size(), 1u) << "call 2 is the one sample";
}

TEST(Runtime, NormalExitWritesCompleteReportAndRankFile) {
  std::string Dir = freshDir();
  static decan_loop_desc D = makeDesc("exit:L0");
  pid_t Child = fork();
  if (Child == 0) {
    setenv("PMI_RANK", "3", 1); // the rank is read from the real environment
    configure({{"DECAN_LOOPS", "all"}, {"DECAN_OUTPUT", Dir}});
    __decan_register_loops(&D, 1);
    for (int I = 0; I < 3; ++I)
      stubCall(D, 5);
    exit(0);
  }
  int St = 0;
  ASSERT_EQ(waitpid(Child, &St, 0), Child);
  ASSERT_TRUE(WIFEXITED(St));
  EXPECT_EQ(WEXITSTATUS(St), 0);
  minijson::Value R;
  ASSERT_TRUE(readReport(Dir + "/decan.rank3.json", R));
  EXPECT_EQ(R["status"].Str, "complete");
  EXPECT_EQ(R["process"]["rank"].Num, 3);
}

TEST(Runtime, AForkWritesItsOwnReportOfItsOwnCalls) {
  std::string Dir = freshDir();
  static decan_loop_desc D = makeDesc("fork:L0");
  pid_t Parent = fork();
  if (Parent == 0) {
    setenv("PMI_RANK", "5", 1); // a rank's fork must not take its file
    configure({{"DECAN_LOOPS", "all"}, {"DECAN_OUTPUT", Dir}});
    __decan_register_loops(&D, 1);
    for (int I = 0; I < 5; ++I)
      stubCall(D, 5);
    fflush(nullptr);
    pid_t Child = fork();
    if (Child == 0) {
      for (int I = 0; I < 3; ++I)
        stubCall(D, 5);
      exit(0);
    }
    int St = 0;
    waitpid(Child, &St, 0);
    FILE *F = fopen((Dir + "/child.pid").c_str(), "w");
    fprintf(F, "%d\n", (int)Child);
    fclose(F);
    exit(WIFEXITED(St) ? WEXITSTATUS(St) : 9);
  }
  int St = 0;
  ASSERT_EQ(waitpid(Parent, &St, 0), Parent);
  ASSERT_TRUE(WIFEXITED(St));
  ASSERT_EQ(WEXITSTATUS(St), 0);
  int Child = 0;
  FILE *F = fopen((Dir + "/child.pid").c_str(), "r");
  ASSERT_TRUE(F);
  ASSERT_EQ(fscanf(F, "%d", &Child), 1);
  fclose(F);
  minijson::Value P, C;
  ASSERT_TRUE(readReport(Dir + "/decan.rank5.json", P));
  ASSERT_TRUE(
      readReport(Dir + "/decan.rank5." + std::to_string(Child) + ".json", C));
  // (The parent is itself a fork of this test process: "forked" either way.)
  EXPECT_EQ(P["process"]["pid"].Num, Parent);
  EXPECT_EQ((*findLoop(P, "fork:L0"))["threads"][0]["whole_run"]["calls"].Num,
            5);
  EXPECT_EQ(C["process"]["pid"].Num, Child);
  EXPECT_EQ(C["process"]["ppid"].Num, Parent);
  EXPECT_TRUE(C["process"]["forked"].B);
  const auto &CT = (*findLoop(C, "fork:L0"))["threads"];
  ASSERT_EQ(CT.Arr.size(), 1u) << "the parent's thread is the parent's";
  EXPECT_EQ(CT[0]["whole_run"]["calls"].Num, 3) << "only the calls after fork";
  // The child is named to decan run, report or not.
  std::ifstream Marker(Dir + "/decan." + std::to_string(Child) + ".child");
  int From = 0;
  Marker >> From;
  EXPECT_EQ(From, Parent);
}

TEST(Runtime, InstanceModeMeasuresCallKThenExits) {
  std::string Dir = freshDir();
  static decan_loop_desc D = makeDesc("inst:L0");
  pid_t Child = fork();
  if (Child == 0) {
    configure({{"DECAN_LOOPS", "all"},
               {"DECAN_OUTPUT", Dir},
               {"DECAN_MODE", "instance"},
               {"DECAN_INSTANCE", "3"},
               {"DECAN_VARIANTS", "REF,FP"}});
    __decan_register_loops(&D, 1);
    for (int I = 1; I <= 100; ++I)
      stubCall(D, (uint64_t)I);
    _exit(7); // not reached: the runtime exits after call 4
  }
  int St = 0;
  ASSERT_EQ(waitpid(Child, &St, 0), Child);
  ASSERT_TRUE(WIFEXITED(St));
  EXPECT_EQ(WEXITSTATUS(St), 0);
  minijson::Value R;
  ASSERT_TRUE(readReport(childReport(Dir, Child), R));
  EXPECT_EQ(R["status"].Str, "complete");
  const auto &Vs = (*findLoop(R, "inst:L0"))["threads"][0]["variants"];
  ASSERT_EQ(Vs["REF"]["records"].Arr.size(), 1u);
  ASSERT_EQ(Vs["FP"]["records"].Arr.size(), 1u);
  EXPECT_EQ(Vs["REF"]["records"][0][3].Num, 3);
  EXPECT_EQ(Vs["FP"]["records"][0][3].Num, 4);
}

} // namespace

TEST(Runtime, LoopsPastCapacityStayInactiveAndReportStaysValid) {
  configure({{"DECAN_LOOPS", "all"}, {"DECAN_REPS", "2"}});
  const unsigned Cap = maxLoops(), N = Cap + 100;
  std::vector<std::string> Ids(N);
  std::vector<decan_loop_desc> Ds(N);
  for (unsigned I = 0; I < N; ++I) {
    Ids[I] = "cap:L" + std::to_string(I);
    Ds[I] = makeDesc(Ids[I].c_str(), 1u << DECAN_REF);
  }
  // Two registrations, as two modules would: the second starts past the
  // capacity already.
  __decan_register_loops(Ds.data(), Cap - 10);
  __decan_register_loops(Ds.data() + Cap - 10, N - (Cap - 10));
  for (unsigned I = 0; I < N; ++I) {
    ASSERT_EQ(Ds[I].active, I < Cap ? 1u : 0u) << I;
    ASSERT_EQ(Ds[I].runtime_state == nullptr, I >= Cap) << I;
  }
  // Calls on both sides of the capacity; past it the original runs alone.
  for (unsigned I : {0u, Cap - 1, Cap, N - 1})
    for (int C = 0; C < 4; ++C) {
      CallResult R = stubCall(Ds[I], 500);
      if (I >= Cap)
        EXPECT_EQ(R.Variant, -1);
    }
  EXPECT_EQ(__decan_begin_call(&Ds[Cap]), -1);
  decan_region_begin("past-capacity");
  decan_region_end();

  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value R;
  ASSERT_TRUE(readReport(reportPath(), R));
  expectDesignShape(R);
  EXPECT_EQ(R["loops"].Arr.size(), Cap);
  unsigned Warned = 0;
  for (auto &W : R["warnings"].Arr)
    Warned += W.Str.find("loops registered") != std::string::npos;
  EXPECT_EQ(Warned, 1u);
  std::set<std::string> Seen;
  for (auto &L : R["loops"].Arr)
    Seen.insert(L["id"].Str);
  EXPECT_EQ(Seen.size(), (size_t)Cap);
  EXPECT_TRUE(Seen.count(Ids[Cap - 1]));
  EXPECT_FALSE(Seen.count(Ids[Cap]));
  const minijson::Value *Last = findLoop(R, Ids[Cap - 1].c_str());
  ASSERT_NE(Last, nullptr);
  ASSERT_EQ((*Last)["threads"].Arr.size(), 1u);
  EXPECT_EQ((*Last)["threads"][0]["whole_run"]["calls"].Num, 4);
  EXPECT_EQ((*Last)["threads"][0]["variants"]["REF"]["calls"].Num, 1);
}

volatile double DenormIn = 1e-300, DenormScale = 1e-10, DenormOut = 0;
void denormalBody() { DenormOut = DenormIn * DenormScale; }

/// Runs denormalBody inside a sampled call of `Variant` under
/// DECAN_FP_ENV=`Env` ("" = unset); returns the result and the report's
/// config.fp_env.
std::pair<double, std::string> denormalUnder(const char *FpEnvValue,
                                             const char *Variant) {
  std::map<std::string, std::string> E = {{"DECAN_LOOPS", "fp:L0"},
                                          {"DECAN_WARMUP", "0"},
                                          {"DECAN_REPS", "0"},
                                          {"DECAN_VARIANTS", Variant}};
  if (*FpEnvValue)
    E["DECAN_FP_ENV"] = FpEnvValue;
  configure(E);
  decan_loop_desc D = makeDesc("fp:L0");
  __decan_register_loops(&D, 1);
  writeMxcsr(0x1F80); // the program's own setting: no FTZ, no DAZ
  DenormOut = -1;
  EXPECT_EQ(stubCall(D, 100).Variant, DECAN_REF) << "the slot's pre call";
  CallResult R = stubCall(D, 100, 1, denormalBody);
  EXPECT_EQ(R.Variant, variantIndex(Variant, strlen(Variant)));
  EXPECT_EQ(readMxcsr() & ~0x3Fu, 0x1F80u) << "the program's MXCSR after";
  double Out = DenormOut;
  EXPECT_TRUE(writeReportNow("flushed"));
  minijson::Value Rep;
  EXPECT_TRUE(readReport(reportPath(), Rep));
  return {Out, Rep["config"]["fp_env"].Str};
}

TEST(Runtime, FpEnvFtzFlushesDenormalsInVariantsOnly) {
  double Plain = DenormIn * DenormScale;
  ASSERT_GT(Plain, 0.0) << "1e-310 is a denormal, not zero, without FTZ";

  for (const char *Ftz : {"", "ftz"}) {
    auto [Out, FpEnvText] = denormalUnder(Ftz, "FP");
    EXPECT_EQ(Out, 0.0) << "default/ftz: a variant's denormal is flushed";
    EXPECT_EQ(FpEnvText.rfind("ftz:", 0), 0u) << FpEnvText;
    auto [RefOut, Text] = denormalUnder(Ftz, "REF");
    EXPECT_EQ(RefOut, Plain) << "REF is the program's loop: its environment";
  }
  auto [Out, FpEnvText] = denormalUnder("keep", "FP");
  EXPECT_EQ(Out, Plain) << "keep: variants too run in the program's MXCSR";
  EXPECT_EQ(FpEnvText.rfind("keep:", 0), 0u) << FpEnvText;

  configure({{"DECAN_LOOPS", "none"}, {"DECAN_FP_ENV", "daz"}});
  ASSERT_TRUE(writeReportNow("flushed"));
  minijson::Value Rep;
  ASSERT_TRUE(readReport(reportPath(), Rep));
  EXPECT_EQ(Rep["config"]["fp_env"].Str.rfind("ftz:", 0), 0u);
  ASSERT_EQ(Rep["warnings"].Arr.size(), 1u);
  EXPECT_NE(Rep["warnings"][0].Str.find("DECAN_FP_ENV"), std::string::npos);
}

uint16_t readX87ControlWord() {
  uint16_t W;
  __asm__ __volatile__("fnstcw %0" : "=m"(W));
  return W;
}

TEST(Runtime, OwnFpWorkLeavesTheProgramsFlagsAndModes) {
  // The program's state: one flag raised, rounding upwards (x87 and SSE).
  feclearexcept(FE_ALL_EXCEPT);
  feraiseexcept(FE_DIVBYZERO);
  ASSERT_EQ(fesetround(FE_UPWARD), 0);
  const uint16_t Cw = readX87ControlWord();
  const uint32_t Csr = readMxcsr();
  auto Unchanged = [&](const char *After) {
    EXPECT_EQ(fetestexcept(FE_ALL_EXCEPT), FE_DIVBYZERO) << After;
    EXPECT_EQ(fegetround(), FE_UPWARD) << After;
    EXPECT_EQ(readX87ControlWord(), Cw) << After;
    EXPECT_EQ(readMxcsr(), Csr) << After;
  };
  for (const char *Fp : {"keep", "ftz"}) {
    SCOPED_TRACE(Fp);
    // Startup: TSC calibration in doubles.
    configure({{"DECAN_LOOPS", "all"},
               {"DECAN_VARIANTS", "REF,FP"},
               {"DECAN_WARMUP", "0"},
               {"DECAN_REPS", "0"},
               {"DECAN_MAX_RECORDS", "2"},
               {"DECAN_FP_ENV", Fp}});
    Unchanged("initialization");
    decan_loop_desc D = makeDesc("fpw:L0");
    __decan_register_loops(&D, 1);
    // Past DECAN_MAX_RECORDS: Welford statistics, inexact means.
    for (int I = 1; I <= 12; ++I)
      stubCall(D, (uint64_t)I * 7 + 1, 3);
    Unchanged("measured calls with online statistics");
    ASSERT_EQ(decan_flush(), 0);
    Unchanged("writing the report");
  }
  fesetround(FE_TONEAREST);
  feclearexcept(FE_ALL_EXCEPT);
}
