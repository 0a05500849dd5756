//===- GuardTest.cpp - A fault inside a variant copy, recovered -----------===//
//
// Part of decan. The per-loop bookkeeping of a faulted variant (Guard.h),
// and, in forked children, the whole path the plugin's measure function
// takes: __decan_guard_enter before a copy, a real fault in the copy, the
// handler's return to the guard, end_call dropping the call and the
// variant, the original run, and a complete report naming the fault.
//
//===----------------------------------------------------------------------===//

#include "Guard.h"
#include "State.h"
#include "TestEnvironment.h"
#include "decan/abi.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace decan::rt;

namespace {

/// A child's runtime: every call measured, REF and one variant.
void configureChild(const std::string &Dir, const char *Variants) {
  decan::test::reinitializeRuntime({{"DECAN_LOOPS", "all"},
                                    {"DECAN_OUTPUT", Dir},
                                    {"DECAN_VARIANTS", Variants},
                                    {"DECAN_WARMUP", "0"},
                                    {"DECAN_REPS", "0"}});
}

decan_loop_desc guardDesc(const char *Id) {
  decan_loop_desc D{};
  D.abi_version = DECAN_ABI_VERSION;
  D.variant_mask = 63;
  D.line = 3;
  D.id = Id;
  D.function = "g";
  D.file = "g.c";
  return D;
}

/// A page no access may touch: what a copy that runs past the data reads.
volatile int *guardPage() {
  void *P = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return P == MAP_FAILED ? nullptr : static_cast<volatile int *>(P);
}

__attribute__((noinline)) int readingCopy(volatile int *P) { return *P; }
__attribute__((noinline)) int dividingCopy(volatile int *P) {
  volatile int Zero = 0;
  return *P / Zero;
}

/// What the measure function does for a copy other than REF: 1 when the
/// copy faulted.
__attribute__((noinline)) int guardedCall(int (*Copy)(volatile int *),
                                          volatile int *P) {
  if (__decan_guard_enter(reinterpret_cast<void *>(Copy)) != 0)
    return 1;
  Copy(P);
  return 0;
}

/// Calls of one loop as the measure function makes them, the variant's
/// copy being \p Copy on \p P; returns how many calls ran the variant.
int measuredCalls(decan_loop_desc &D, int N, int (*Copy)(volatile int *),
                  volatile int *P) {
  int Ran = 0;
  static volatile int Cell = 7;
  for (int I = 0; I < N; ++I) {
    int V = __decan_begin_call(&D);
    if (V < 0)
      continue;
    if (V != DECAN_REF) {
      ++Ran;
      guardedCall(Copy, P);
    } else {
      readingCopy(&Cell);
    }
    if (__decan_end_call(&D, V, 100, 10))
      __decan_end_call(&D, V | DECAN_RERUN, 100, 10);
  }
  return Ran;
}

std::string tempDir() {
  char T[] = "/tmp/decan-guard-test.XXXXXX";
  const char *D = mkdtemp(T);
  return D ? D : "/nonexistent-decan-guard-dir";
}

} // namespace

TEST(Guard, DescribesWhereTheCopyFaulted) {
  char Buf[64];
  describeFault({SIGSEGV, 0x402a, 0x7000, 0x4000}, Buf, sizeof(Buf));
  EXPECT_STREQ(Buf, "SIGSEGV at +0x2a (address 0x7000)");
  describeFault({SIGFPE, 0x94000, 0, 0x4000}, Buf, sizeof(Buf));
  EXPECT_STREQ(Buf, "SIGFPE in a call it makes");
  describeFault({SIGBUS, 0x3fff, 0x10, 0x4000}, Buf, sizeof(Buf));
  EXPECT_STREQ(Buf, "SIGBUS in a call it makes (address 0x10)");
}

TEST(Guard, AFaultedVariantLeavesTheRotationOnceWithItsFirstFault) {
  auto *L = new LoopState();
  EXPECT_TRUE(noteFault(*L, DECAN_LS, {SIGSEGV, 0x4010, 0x8000, 0x4000}));
  EXPECT_FALSE(noteFault(*L, DECAN_LS, {SIGFPE, 0x4020, 0, 0x4000}))
      << "said once";
  EXPECT_TRUE(noteFault(*L, DECAN_FP, {SIGFPE, 0x4020, 0, 0x4000}));
  uint32_t Both = (1u << DECAN_LS) | (1u << DECAN_FP);
  EXPECT_EQ(L->FaultedMask.load(), Both);
  EXPECT_EQ(L->DisabledMask.load(), Both) << "begin_call runs REF instead";
  EXPECT_STREQ(L->FaultText[DECAN_LS], "SIGSEGV at +0x10 (address 0x8000)");
  EXPECT_STREQ(L->FaultText[DECAN_FP], "SIGFPE at +0x20");
  delete L;
}

/// A copy reading an inaccessible page, and one dividing by zero: each
/// call is abandoned once, its variant dropped, and the program ends as
/// it would have, with a complete report naming the faults.
TEST(Guard, FaultsInVariantCopiesAreRecoveredAndReported) {
  std::string Dir = tempDir();
  static decan_loop_desc Read = guardDesc("read:L0");
  static decan_loop_desc Div = guardDesc("div:L0");
  fflush(nullptr);
  pid_t Child = fork();
  if (Child == 0) {
    configureChild(Dir, "REF,LS");
    __decan_register_loops(&Read, 1);
    __decan_register_loops(&Div, 1);
    volatile int *Bad = guardPage();
    static volatile int Good = 5;
    int RanLs = measuredCalls(Read, 40, readingCopy, Bad);
    int RanDiv = measuredCalls(Div, 40, dividingCopy, &Good);
    exit(RanLs == 1 && RanDiv == 1 ? 0 : 10 + RanLs);
  }
  int St = 0;
  ASSERT_EQ(waitpid(Child, &St, 0), Child);
  ASSERT_TRUE(WIFEXITED(St)) << "the program must not die of it: " << St;
  EXPECT_EQ(WEXITSTATUS(St), 0) << "LS ran once in each loop";
  minijson::Value R;
  ASSERT_TRUE(decan::test::readReport(
      Dir + "/decan." + std::to_string(Child) + ".json", R));
  EXPECT_EQ(R["status"].Str, "complete");
  bool SaidIt = false;
  for (const auto &L : R["loops"].Arr) {
    const std::string F = L["faulted"]["LS"].Str;
    if (L["id"].Str == "read:L0")
      EXPECT_EQ(F.rfind("SIGSEGV at +0x", 0), 0u) << F;
    if (L["id"].Str == "div:L0")
      EXPECT_EQ(F.rfind("SIGFPE at +0x", 0), 0u) << F;
    EXPECT_EQ(L["runaway"].get("LS"), nullptr);
    EXPECT_EQ(L["threads"][0]["variants"]["LS"]["records"].Arr.size(), 0u)
        << "the faulted call is no sample";
  }
  for (const auto &W : R["warnings"].Arr)
    SaidIt |= W.Str.find("read:L0: LS faulted (SIGSEGV") == 0;
  EXPECT_TRUE(SaidIt);
  std::filesystem::remove_all(Dir);
}

/// The guard covers the copy only: a fault in the original run after it
/// (end_call disarmed the guard), or a signal the program sends itself, is
/// the program's and kills it as before.
TEST(Guard, FaultsOutsideTheCopyStayTheProgramsOwn) {
  for (int Case = 0; Case < 2; ++Case) {
    std::string Dir = tempDir();
    static decan_loop_desc D = guardDesc("own:L0");
    fflush(nullptr);
    pid_t Child = fork();
    if (Child == 0) {
      configureChild(Dir, "REF,LS");
      __decan_register_loops(&D, 1);
      static volatile int Good = 5;
      for (int I = 0; I < 40; ++I) {
        int V = __decan_begin_call(&D);
        if (V == DECAN_LS && __decan_guard_enter(nullptr) == 0) {
          if (Case == 1)
            raise(SIGSEGV); // sent, not a fault: not recovered
          readingCopy(&Good);
          if (__decan_end_call(&D, V, 100, 10))
            readingCopy(guardPage()); // the original run faults
          _exit(98);
        }
        if (V >= 0 && __decan_end_call(&D, V, 100, 10))
          __decan_end_call(&D, V | DECAN_RERUN, 100, 10);
      }
      _exit(97);
    }
    int St = 0;
    ASSERT_EQ(waitpid(Child, &St, 0), Child);
    ASSERT_TRUE(WIFSIGNALED(St)) << "case " << Case << ": status " << St;
    EXPECT_EQ(WTERMSIG(St), SIGSEGV);
    minijson::Value R;
    ASSERT_TRUE(decan::test::readReport(
        Dir + "/decan." + std::to_string(Child) + ".json", R));
    EXPECT_EQ(R["status"].Str, "crashed");
    std::filesystem::remove_all(Dir);
  }
}
