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

#include <atomic>
#include <filesystem>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

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

namespace {

/// Three actions a program's threads switch between. Each blocks its own
/// marker signal while its handler runs, so a handler that finds another
/// marker blocked (or none) ran with a mix of two actions.
constexpr int kThreads = 3;
int marker(int K) { return SIGRTMIN + 1 + K; }
std::atomic<int> Mixed{0}, Handled{0};

template <int K> void onTermAs(int, siginfo_t *, void *) {
  sigset_t Now;
  pthread_sigmask(SIG_SETMASK, nullptr, &Now);
  for (int J = 0; J < kThreads; ++J)
    if ((sigismember(&Now, marker(J)) == 1) != (J == K))
      Mixed.fetch_add(1);
  Handled.fetch_add(1);
}

struct sigaction actionOf(int K) {
  static void (*const Handlers[kThreads])(int, siginfo_t *, void *) = {
      onTermAs<0>, onTermAs<1>, onTermAs<2>};
  struct sigaction A =
      action(Handlers[K], SA_SIGINFO | (K == 1 ? SA_RESTART : 0));
  sigaddset(&A.sa_mask, marker(K));
  return A;
}

/// Which of the three actions \p A is; -1 for a mix of two.
int whichAction(const struct sigaction &A) {
  for (int K = 0; K < kThreads; ++K) {
    struct sigaction Want = actionOf(K);
    bool Same = A.sa_sigaction == Want.sa_sigaction &&
                (A.sa_flags & SA_RESTART) == (Want.sa_flags & SA_RESTART);
    for (int J = 0; J < kThreads; ++J)
      Same = Same && sigismember(&A.sa_mask, marker(J)) == (J == K);
    if (Same)
      return K;
  }
  return -1;
}

} // namespace

/// Threads that set their actions at once while the signal arrives: every
/// old action each reads is one a thread set, whole, and each delivery runs
/// one action's handler with that action's mask.
TEST(Signals, ThreadsSettingActionsAtOnceNeverMixThem) {
  auto [St, Status] = inChild([]() -> int {
    struct sigaction First = actionOf(0);
    programSigaction(SIGTERM, &First, nullptr);
    std::atomic<bool> Stop{false};
    std::atomic<int> Torn{0};
    std::vector<std::thread> Setters;
    for (int K = 0; K < kThreads; ++K)
      Setters.emplace_back([K, &Stop, &Torn] {
        struct sigaction Mine = actionOf(K), Old;
        while (!Stop.load()) {
          if (programSigaction(SIGTERM, &Mine, &Old) != 0 ||
              whichAction(Old) < 0)
            Torn.fetch_add(1);
        }
      });
    for (int I = 0; I < 20000; ++I)
      raise(SIGTERM);
    Stop = true;
    for (std::thread &T : Setters)
      T.join();
    if (Handled.load() != 20000)
      return 10;
    return Torn.load() == 0 && Mixed.load() == 0 ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(St)) << St;
  EXPECT_EQ(WEXITSTATUS(St), 0) << "11: a mixed action was read or ran";
  EXPECT_EQ(Status, "complete");
}
