//===- Process.cpp - The measured program's lifetime ----------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace decan::tool {

char ProgramKilled::ID = 0;

std::string signalName(int Sig) {
  if (const char *A = sigabbrev_np(Sig))
    return std::string("SIG") + A;
  return "signal " + std::to_string(Sig);
}

//===-- Signals to decan, passed on --------------------------------------===//

static const int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
/// Where signals go: the program's pid, or its process group (negative).
static volatile sig_atomic_t ChildPid = 0;
static volatile sig_atomic_t Interrupts = 0;

static void forwardSignal(int Sig, siginfo_t *Info, void *) {
  // The terminal signals its whole foreground process group, the program
  // included: passing it on would deliver it twice.
  if (Info && Info->si_code == SI_KERNEL)
    return;
  int SavedErrno = errno;
  // Counted only from kill: at a terminal, a program may take Ctrl-C as
  // often as it likes (a shell, an interpreter's prompt).
  int Count = Sig == SIGINT ? Interrupts + 1 : Interrupts;
  Interrupts = Count;
  if (Sig == SIGINT && Count >= 2)
    Sig = SIGKILL; // the sender insists: no more waiting for the program
  if (ChildPid != 0)
    ::kill(ChildPid, Sig);
  errno = SavedErrno;
}

namespace {
/// decan's handlers for the forwarded signals while the program runs, and
/// those signals blocked until the child's pid is known.
class ForwardingScope {
public:
  ForwardingScope() {
    sigset_t Block;
    sigemptyset(&Block);
    for (int Sig : kForwarded)
      sigaddset(&Block, Sig);
    pthread_sigmask(SIG_BLOCK, &Block, &OldMask);
    struct sigaction A = {};
    A.sa_sigaction = forwardSignal;
    A.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&A.sa_mask);
    for (int Sig : kForwarded)
      sigaction(Sig, &A, &Old[Sig]);
    Interrupts = 0;
  }
  /// In the child, before exec: the program gets the dispositions decan
  /// was started with (ignored stays ignored, as under nohup) and its mask.
  void restoreInChild() const {
    for (int Sig : kForwarded) {
      struct sigaction A = {};
      A.sa_handler = Old[Sig].sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
      sigemptyset(&A.sa_mask);
      sigaction(Sig, &A, nullptr);
    }
    pthread_sigmask(SIG_SETMASK, &OldMask, nullptr);
  }
  /// In decan once the child exists: pending signals reach it (\p Target:
  /// its pid, or its process group as -pid) now.
  void started(pid_t Target) {
    ChildPid = Target;
    pthread_sigmask(SIG_SETMASK, &OldMask, nullptr);
  }
  /// The child exited (not yet reaped): nothing more is passed on.
  void finished() { ChildPid = 0; }
  ~ForwardingScope() {
    sigset_t Block;
    sigemptyset(&Block);
    for (int Sig : kForwarded)
      sigaddset(&Block, Sig);
    pthread_sigmask(SIG_BLOCK, &Block, nullptr); // no handler runs midway
    ChildPid = 0;
    for (int Sig : kForwarded)
      sigaction(Sig, &Old[Sig], nullptr);
    pthread_sigmask(SIG_SETMASK, &OldMask, nullptr);
  }

private:
  struct sigaction Old[NSIG] = {};
  sigset_t OldMask;
};
} // namespace

Expected<int> runProgram(const std::vector<std::string> &Cmd,
                         const std::vector<std::string> &Env, bool QuietStdout,
                         function_ref<void()> Poll, StringRef ExecPath) {
  std::string Path = ExecPath.empty() ? Cmd[0] : ExecPath.str();
  // Everything the child touches is ready before fork: between fork and
  // exec it may only make async-signal-safe calls (decan has threads).
  std::vector<char *> Argv, Envp;
  for (const std::string &A : Cmd)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  for (const std::string &E : Env)
    Envp.push_back(const_cast<char *>(E.c_str()));
  Envp.push_back(nullptr);
  // exec's failure comes back through a pipe that exec closes.
  int ErrPipe[2];
  if (pipe2(ErrPipe, O_CLOEXEC) != 0)
    return createStringError("cannot start '%s': %s", Cmd[0].c_str(),
                             std::strerror(errno));
  // Without a controlling terminal (scripts, CI, batch jobs) the program
  // gets a process group of its own, so that a signal passed on reaches the
  // processes it started too. At a terminal it stays in decan's group: the
  // terminal's signals reach it directly, and job control (fg, bg, reading
  // the terminal) treats it as decan.
  int Tty = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
  bool OwnGroup = Tty < 0;
  if (Tty >= 0)
    close(Tty);
  ForwardingScope Signals;
  pid_t Decan = getpid();
  pid_t Pid = fork();
  if (Pid == 0) {
    // The program dies with decan, even of SIGKILL. The death signal
    // follows the thread that forked (this one, which waits below); a
    // decan that died before prctl is caught by the parent check.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != Decan)
      _exit(127);
    if (OwnGroup)
      setpgid(0, 0);
    Signals.restoreInChild();
    if (QuietStdout) {
      int Null = open("/dev/null", O_WRONLY);
      if (Null >= 0 && Null != 1) {
        dup2(Null, 1);
        close(Null);
      }
    }
    execve(Path.c_str(), Argv.data(), Envp.data());
    int Err = errno;
    ssize_t W = write(ErrPipe[1], &Err, sizeof(Err));
    (void)W;
    _exit(127);
  }
  int ForkErr = errno;
  close(ErrPipe[1]);
  if (Pid < 0) {
    close(ErrPipe[0]);
    return createStringError("cannot start '%s': %s", Cmd[0].c_str(),
                             std::strerror(ForkErr));
  }
  // Both sides set the group: whichever runs first, none is signalled
  // before it exists.
  if (OwnGroup)
    setpgid(Pid, Pid);
  Signals.started(OwnGroup ? -Pid : Pid);
  int ExecErr = 0;
  ssize_t R;
  while ((R = read(ErrPipe[0], &ExecErr, sizeof(ExecErr))) < 0 &&
         errno == EINTR)
    ;
  close(ErrPipe[0]);
  // Waits for the exit without reaping it: until the child is reaped its
  // pid cannot be reused, so a signal passed on never hits another process.
  for (;;) {
    siginfo_t Info = {};
    int W = waitid(P_PID, Pid, &Info, WEXITED | WNOWAIT | (Poll ? WNOHANG : 0));
    if (W < 0 && errno == EINTR)
      continue;
    if (W < 0 || Info.si_pid == Pid)
      break;
    Poll();
    usleep(20000);
  }
  Signals.finished();
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  if (R == sizeof(ExecErr))
    return createStringError("cannot start '%s': %s", Cmd[0].c_str(),
                             std::strerror(ExecErr));
  return Status;
}

//===-- Run directories --------------------------------------------------===//

static constexpr const char *kOwnerFile = "owner";

Error RunDirectory::create() {
  SmallString<128> P;
  if (std::error_code EC = sys::fs::createUniqueDirectory("decan-run", P))
    return createStringError("cannot create a temporary directory: %s",
                             EC.message().c_str());
  Path = P.str().str();
  std::string Owner = Path + "/" + kOwnerFile;
  LockFd = ::open(Owner.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  // The pid is written once the lock is held: a reclaimer that sees it
  // and gets the lock knows its owner is gone.
  if (LockFd < 0 || flock(LockFd, LOCK_EX) != 0)
    return createStringError("cannot lock '%s': %s", Owner.c_str(),
                             std::strerror(errno));
  std::string Pid = std::to_string(getpid()) + "\n";
  if (::write(LockFd, Pid.data(), Pid.size()) != (ssize_t)Pid.size())
    return createStringError("cannot write '%s': %s", Owner.c_str(),
                             std::strerror(errno));
  return Error::success();
}

RunDirectory::~RunDirectory() {
  if (!Path.empty())
    sys::fs::remove_directories(Path);
  if (LockFd >= 0)
    ::close(LockFd);
}

/// Raw reports under \p Dir (a run's `runN/decan.*.json`, a discovery
/// run's), in name order.
static std::vector<std::string> rawReportsUnder(StringRef Dir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    StringRef Name = sys::path::filename(I->path());
    if (Name.starts_with("decan.") && Name.ends_with(".json") &&
        I->type() == sys::fs::file_type::regular_file)
      Out.push_back(I->path());
  }
  llvm::sort(Out);
  return Out;
}

/// Reclaims one stale run directory \p Dir, whose owner was \p Owner ("" when
/// unknown).
static void reclaim(StringRef Dir, StringRef Owner, raw_ostream &Log) {
  std::vector<std::string> Reports = rawReportsUnder(Dir);
  if (!Reports.empty()) {
    SmallString<128> Keep;
    if (!sys::fs::createUniqueDirectory("decan-stranded", Keep)) {
      unsigned Moved = 0;
      for (const std::string &R : Reports) {
        // run1/decan.123.json -> run1.decan.123.json, as --raw-dir names them
        StringRef Parent = sys::path::filename(sys::path::parent_path(R));
        std::string To =
            (Keep + "/" + Parent + "." + sys::path::filename(R)).str();
        if (!sys::fs::rename(R, To) || !sys::fs::copy_file(R, To))
          ++Moved;
      }
      Log << formatv("decan: a decan run that ended abruptly{0} left {1} raw "
                     "report(s): kept in {2} (decan report reads them)\n",
                     Owner.empty() ? std::string()
                                   : " (pid " + Owner.str() + ")",
                     Moved, Keep.str());
    } else {
      Log << "decan: a decan run that ended abruptly left raw reports in "
          << Dir << "\n";
      return; // nothing deleted
    }
  }
  sys::fs::remove_directories(Dir);
}

void RunDirectory::reclaimStale(raw_ostream &Log) {
  SmallString<128> Tmp;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Tmp);
  std::error_code EC;
  auto Now = std::chrono::system_clock::now();
  for (sys::fs::directory_iterator I(Tmp, EC), E; I != E && !EC;
       I.increment(EC)) {
    StringRef Dir = I->path();
    if (!sys::path::filename(Dir).starts_with("decan-run-"))
      continue;
    struct stat St;
    // Only our own directories, never through a symlink.
    if (::lstat(Dir.str().c_str(), &St) != 0 || !S_ISDIR(St.st_mode) ||
        St.st_uid != ::getuid())
      continue;
    auto Age = Now - std::chrono::system_clock::from_time_t(St.st_mtime);
    std::string OwnerPath = (Dir + "/" + kOwnerFile).str();
    int Fd = ::open(OwnerPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (Fd < 0) {
      // No owner file: a decan killed just after creating it, or one from
      // before owner files, which may still be running: a day old.
      if (errno == ENOENT && Age > std::chrono::hours(24))
        reclaim(Dir, "", Log);
      continue;
    }
    if (flock(Fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(Fd); // its decan lives
      continue;
    }
    char Buf[32] = {};
    ssize_t N = ::read(Fd, Buf, sizeof(Buf) - 1);
    std::string Owner = StringRef(Buf, N > 0 ? N : 0).trim().str();
    // An empty owner file: its decan may be between creating and locking.
    if (!Owner.empty() || Age > std::chrono::minutes(1))
      reclaim(Dir, Owner, Log);
    ::close(Fd);
  }
}

} // namespace decan::tool
