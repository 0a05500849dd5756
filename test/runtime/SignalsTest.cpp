//===- SignalsTest.cpp - The program's handlers behind decan's ------------===//
//
// Part of decan. What a program that sets its own signal handlers after
// start-up sees (Signals.h, programSigaction; the shared runtime's
// sigaction and signal call it): its own actions, its handler run with its
// siginfo, and the report written once before that handler in case it
// ends the process.
//
//===----------------------------------------------------------------------===//

#include "Signals.h"
#include "TestEnvironment.h"
#include "decan/abi.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace decan::rt;

namespace {

std::string tempDir() {
  char T[] = "/tmp/decan-signals-test.XXXXXX";
  const char *D = mkdtemp(T);
  return D ? D : "/nonexistent-decan-signals-dir";
}

/// A measured child's runtime (hooks installed), reporting into \p Dir.
void configureChild(const std::string &Dir) {
  decan::test::reinitializeRuntime(
      {{"DECAN_LOOPS", "all"}, {"DECAN_OUTPUT", Dir}, {"DECAN_WARMUP", "0"}});
}

struct sigaction action(void (*Handler)(int, siginfo_t *, void *),
                        int Flags = SA_SIGINFO) {
  struct sigaction A;
  memset(&A, 0, sizeof(A));
  A.sa_sigaction = Handler;
  A.sa_flags = Flags;
  sigemptyset(&A.sa_mask);
  return A;
}

volatile sig_atomic_t Calls = 0;
char *Page = nullptr;
void *SeenAddress = nullptr;

/// Makes the page readable: the faulting read succeeds when it resumes.
void onSegv(int, siginfo_t *Info, void *) {
  Calls = Calls + 1;
  SeenAddress = Info->si_addr;
  mprotect(Page, 4096, PROT_READ | PROT_WRITE);
}

void onInt(int, siginfo_t *, void *) { Calls = Calls + 1; }

/// Runs \p Body in a child measured into a fresh directory; returns the
/// child's wait status and the report's status ("" when none was written).
std::pair<int, std::string> inChild(int (*Body)()) {
  std::string Dir = tempDir();
  fflush(nullptr);
  pid_t Child = fork();
  if (Child == 0) {
    configureChild(Dir);
    exit(Body()); // atexit writes the final report
  }
  int St = 0;
  waitpid(Child, &St, 0);
  minijson::Value R;
  std::string Status;
  std::string Path = Dir + "/decan." + std::to_string(Child) + ".json";
  if (std::filesystem::exists(Path) && decan::test::readReport(Path, R))
    Status = R["status"].Str;
  std::filesystem::remove_all(Dir);
  return {St, Status};
}

} // namespace

/// A program's SIGSEGV handler set after start-up sees its own fault, with
/// its own address, and the program goes on (a guard-page allocator, a
/// garbage collector's write barrier); it sees its handler as installed.
TEST(Signals, TheProgramsFaultHandlerGetsItsOwnFault) {
  auto [St, Status] = inChild([]() -> int {
    Page = static_cast<char *>(
        mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    struct sigaction A = action(onSegv), Seen;
    if (programSigaction(SIGSEGV, &A, nullptr) != 0 ||
        programSigaction(SIGSEGV, nullptr, &Seen) != 0)
      return 10;
    if (Seen.sa_sigaction != onSegv)
      return 11; // the program must see its own handler
    struct sigaction Kernel;
    sigaction(SIGSEGV, nullptr, &Kernel); // the C library's, in this test
    if (Kernel.sa_sigaction == onSegv)
      return 12; // decan's stays in front
    int V = *reinterpret_cast<volatile int *>(Page + 8);
    return Calls == 1 && SeenAddress == Page + 8 && V == 0 ? 0 : 13;
  });
  ASSERT_TRUE(WIFEXITED(St)) << St;
  EXPECT_EQ(WEXITSTATUS(St), 0);
  EXPECT_EQ(Status, "complete") << "exit replaced the one written before";
}

/// An interrupt handler that lets the program go on: the program goes on
/// and its report is complete; SA_RESETHAND makes the next one the
/// default's, which ends the run with an "interrupted" report.
TEST(Signals, AnInterruptGoesToTheProgramsHandlerAsTheKernelWouldSendIt) {
  auto [St, Status] = inChild([]() -> int {
    struct sigaction A = action(onInt, SA_SIGINFO | SA_RESETHAND), Old;
    if (programSigaction(SIGINT, &A, &Old) != 0 || Old.sa_handler != SIG_DFL)
      return 10;
    raise(SIGINT);
    if (Calls != 1)
      return 11;
    struct sigaction Now;
    programSigaction(SIGINT, nullptr, &Now);
    if (Now.sa_handler != SIG_DFL)
      return 12;   // SA_RESETHAND
    raise(SIGINT); // the default now: the process ends of it
    return 13;
  });
  ASSERT_TRUE(WIFSIGNALED(St)) << St;
  EXPECT_EQ(WTERMSIG(St), SIGINT);
  EXPECT_EQ(Status, "interrupted");
}

/// A signal the program ignores stays ignored; one it handles after that
/// reaches its handler, and the program's exit writes the final report.
TEST(Signals, IgnoredStaysIgnoredAndAHandlerSetLaterRuns) {
  auto [St, Status] = inChild([]() -> int {
    struct sigaction Ign;
    memset(&Ign, 0, sizeof(Ign));
    Ign.sa_handler = SIG_IGN;
    sigemptyset(&Ign.sa_mask);
    programSigaction(SIGTERM, &Ign, nullptr);
    raise(SIGTERM);
    struct sigaction A = action(onInt);
    programSigaction(SIGTERM, &A, nullptr);
    raise(SIGTERM);
    return Calls == 1 ? 0 : 10;
  });
  ASSERT_TRUE(WIFEXITED(St)) << St;
  EXPECT_EQ(WEXITSTATUS(St), 0);
  EXPECT_EQ(Status, "complete");
}
