//===- Signals.cpp - Fatal signals, exit and fork -------------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "Signals.h"
#include "Guard.h"
#include "Late.h"
#include "MachineFacts.h"
#include "ReportWriter.h"
#include "State.h"
#include "decan/tsc.h"

#include <algorithm>
#include <atomic>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <new>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <type_traits>
#include <ucontext.h>
#include <unistd.h>

namespace decan::rt {

// SIGABRT: abort(), a failed assert, std::terminate. SIGPIPE: a reader
// that went away (`prog | head`) ends the run, as SIGHUP and SIGQUIT do.
static const int kSignals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                               SIGSEGV, SIGBUS,  SIGFPE, SIGILL,  SIGABRT};

static bool isDecanSignal(int Sig) {
  return std::find(std::begin(kSignals), std::end(kSignals), Sig) !=
         std::end(kSignals);
}

/// Signals an instruction raises: ignoring one cannot skip it (the kernel
/// kills the process), so decan's handler stays for these even then.
static bool isFault(int Sig) {
  return Sig == SIGSEGV || Sig == SIGBUS || Sig == SIGFPE || Sig == SIGILL;
}

using SigactionFn = int (*)(int, const struct sigaction *, struct sigaction *);
static SigactionFn RealSigaction = nullptr;

/// The C library's sigaction. The shared runtime interposes the program's
/// (SignalHook.cpp), so decan's own calls go past it. Resolved before the
/// first handler is installed: dlsym is no call for a signal handler.
static int realSigaction(int Sig, const struct sigaction *A,
                         struct sigaction *Old) {
  if (!RealSigaction)
    RealSigaction =
        reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  return RealSigaction ? RealSigaction(Sig, A, Old) : sigaction(Sig, A, Old);
}

/// Signals that end a run without a fault: the report says "interrupted".
static bool isInterruption(int Sig) {
  return Sig == SIGINT || Sig == SIGTERM || Sig == SIGHUP || Sig == SIGQUIT ||
         Sig == SIGPIPE;
}

const char *signalName(int Sig) {
  switch (Sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  case SIGQUIT:
    return "SIGQUIT";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGABRT:
    return "SIGABRT";
  default:
    return "SIGNAL";
  }
}

/// Whether \p T's measured call in flight still runs at stack pointer
/// \p Sp: its code (a copy, or the outlined loop and its callees) runs at
/// most a few bytes above begin_call's frame; once an exception or a
/// longjmp left it, the program runs far above (Runtime.cpp drops it at
/// the next begin_call).
static bool inFlightAt(const ThreadState *T, uintptr_t Sp) {
  return T->InFlightLoop >= 0 && (!Sp || Sp <= T->InFlightFrame + 64);
}

/// Runs the program's handler \p P as the kernel would have: its mask, and
/// the signal itself unless SA_NODEFER, blocked meanwhile; the action reset
/// to the default first with SA_RESETHAND.
/// The program's action for \p Sig, read whole even while another thread
/// changes it: a writer makes the sequence count odd while it writes.
static struct sigaction programAction(int Sig) {
  std::atomic<uint32_t> &Seq = Proc.ProgramActionSeq[Sig];
  struct sigaction A;
  for (;;) {
    uint32_t Before = Seq.load(std::memory_order_acquire);
    if (Before & 1) {
      __builtin_ia32_pause();
      continue;
    }
    memcpy(&A, &Proc.ProgramActions[Sig], sizeof(A));
    std::atomic_thread_fence(std::memory_order_acquire);
    if (Seq.load(std::memory_order_relaxed) == Before)
      return A;
  }
}

/// Runs \p Change on the program's action for \p Sig as one step: other
/// writers wait, readers retry, and no signal reaches this thread meanwhile
/// (its handler could read or write the same action). \p Change also sets
/// the kernel's action, so the recorded and the installed one agree.
template <typename ChangeFn>
static int changeProgramAction(int Sig, ChangeFn Change) {
  sigset_t All, Saved;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Saved);
  while (Proc.ProgramActionLock.test_and_set(std::memory_order_acquire))
    __builtin_ia32_pause();
  std::atomic<uint32_t> &Seq = Proc.ProgramActionSeq[Sig];
  uint32_t S = Seq.load(std::memory_order_relaxed);
  Seq.store(S + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  int R = Change(Proc.ProgramActions[Sig]);
  Seq.store(S + 2, std::memory_order_release);
  Proc.ProgramActionLock.clear(std::memory_order_release);
  pthread_sigmask(SIG_SETMASK, &Saved, nullptr);
  return R;
}

static void runProgramHandler(int Sig, siginfo_t *Info, void *Context,
                              const struct sigaction &P) {
  sigset_t Mask, Saved;
  pthread_sigmask(SIG_SETMASK, nullptr, &Saved);
  Mask = Saved;
  for (int S = 1; S < 65; ++S)
    if (sigismember(&P.sa_mask, S) == 1)
      sigaddset(&Mask, S);
  if (P.sa_flags & SA_NODEFER)
    sigdelset(&Mask, Sig);
  else
    sigaddset(&Mask, Sig);
  pthread_sigmask(SIG_SETMASK, &Mask, nullptr);
  if (P.sa_flags & SA_RESETHAND)
    changeProgramAction(Sig, [&](struct sigaction &Program) {
      // Unless another thread has set a new action since.
      if (Program.sa_handler == P.sa_handler) {
        Program.sa_handler = SIG_DFL;
        Program.sa_flags = 0;
      }
      return 0;
    });
  if (P.sa_flags & SA_SIGINFO)
    P.sa_sigaction(Sig, Info, Context);
  else
    P.sa_handler(Sig);
  pthread_sigmask(SIG_SETMASK, &Saved, nullptr);
}

static void onSignal(int Sig, siginfo_t *Info, void *Context) {
  int SavedErrno = errno;
  // A fault inside a variant copy is decan's: the call is abandoned and
  // the program goes on (Guard.h).
  if (recoverFault(Sig, Info, Context)) {
    errno = SavedErrno;
    return;
  }
  const struct sigaction Program = programAction(Sig);
  bool Raised = Info && Info->si_code > 0; // by the kernel, not sent
  if (Program.sa_handler == SIG_IGN && !(isFault(Sig) && Raised)) {
    errno = SavedErrno; // the program ignores it (a sent fault signal)
    return;
  }
  bool ProgramHandles =
      Program.sa_handler != SIG_IGN && Program.sa_handler != SIG_DFL;
  int CrashLoop = -1, CrashVariant = -1;
  ThreadState *T = TlsThread;
  auto *UC = static_cast<ucontext_t *>(Context);
  uintptr_t Sp = UC ? (uintptr_t)UC->uc_mcontext.gregs[REG_RSP] : 0;
  bool Stale = T && T->Gen == Reg.Generation && T->InFlightLoop >= 0 &&
               !inFlightAt(T, Sp);
  if (T && T->Gen == Reg.Generation) {
    if (inFlightAt(T, Sp)) {
      CrashLoop = T->InFlightLoop;
      CrashVariant = T->InFlightVariant;
      Proc.CrashRerunOf = T->InFlightRerunOf;
    } else if (T->RegionDepth && T->RegionDepth <= kMaxRegionDepth &&
               T->Regions[T->RegionDepth - 1].Loop < kMaxLoops) {
      CrashLoop = (int)T->Regions[T->RegionDepth - 1].Loop;
      CrashVariant = DECAN_REF;
    }
  }
  if (CrashLoop < 0) // asynchronous signal: name what any thread was in
    for (uint32_t I = 0;
         I < std::min<uint32_t>(Reg.NumThreads.load(), kMaxThreads); ++I) {
      ThreadState *O = Reg.Threads[I].load();
      if (O && O->Gen == Reg.Generation && O->InFlightLoop >= 0 &&
          !(O == T && Stale)) {
        CrashLoop = O->InFlightLoop;
        CrashVariant = O->InFlightVariant;
        Proc.CrashRerunOf = O->InFlightRerunOf;
        break;
      }
    }
  bool Interrupt = isInterruption(Sig);
  if (ProgramHandles) {
    // The program's handler decides: it may go on, so this report is no
    // final one (exit writes that), but once per signal it is written
    // first, so that what was measured survives a handler that _exits.
    if (!Proc.FinalDone.load() && !Proc.ReportedBeforeHandler[Sig]) {
      Proc.ReportedBeforeHandler[Sig] = true;
      writeReport(Interrupt ? "interrupted" : "crashed", Sig, CrashLoop,
                  CrashVariant);
    }
    errno = SavedErrno;
    runProgramHandler(Sig, Info, Context, Program);
    return;
  }
  if (!Proc.FinalDone.load())
    writeReport(Interrupt ? "interrupted" : "crashed", Sig, CrashLoop,
                CrashVariant);
  // The default action: die of this signal, so the parent sees the real
  // cause.
  struct sigaction Default;
  memset(&Default, 0, sizeof(Default));
  Default.sa_handler = SIG_DFL;
  sigemptyset(&Default.sa_mask);
  realSigaction(Sig, &Default, nullptr);
  errno = SavedErrno;
  raise(Sig);
}

/// decan's action for \p Sig: the program's SA_RESTART stands, so a system
/// call its signal interrupts restarts as it would without decan.
static struct sigaction decanAction(int Sig) {
  struct sigaction A;
  memset(&A, 0, sizeof(A));
  A.sa_sigaction = onSignal;
  A.sa_flags = SA_SIGINFO | SA_ONSTACK |
               (Proc.ProgramActions[Sig].sa_flags & SA_RESTART);
  sigemptyset(&A.sa_mask);
  return A;
}

int programSigaction(int Sig, const struct sigaction *Act,
                     struct sigaction *Old) {
  if (!Proc.HooksInstalled || !isDecanSignal(Sig))
    return realSigaction(Sig, Act, Old);
  struct sigaction New;
  if (Act)
    New = *Act; // Act may be Old
  return changeProgramAction(Sig, [&](struct sigaction &Program) {
    struct sigaction Before = Program;
    if (!Act) {
      if (Old)
        *Old = Before;
      return 0;
    }
    Program = New;
    int R;
    if (New.sa_handler == SIG_IGN && !isFault(Sig)) {
      R = realSigaction(Sig, &New, nullptr); // ignored: nothing to hand on
    } else {
      struct sigaction A = decanAction(Sig);
      R = realSigaction(Sig, &A, nullptr);
    }
    if (R != 0)
      Program = Before; // refused (EINVAL): the program's action stands
    else if (Old)
      *Old = Before;
    return R;
  });
}

static void atExit() {
  requestLatePacksAtExit();
  if (!Proc.FinalDone.exchange(true))
    writeReport("complete", 0, -1, -1);
}

/// Before a fork: the registry is consistent in the child.
static void beforeFork() {
  Proc.ForkedFrom = (int)getpid();
  pthread_mutex_lock(&Reg.Mutex);
}

static void afterForkInParent() { pthread_mutex_unlock(&Reg.Mutex); }

/// The child of a fork: one thread (the forking one) goes on, and every
/// record so far is the parent's, in the parent's report. The child forgets
/// them and the other threads, measures from now on (its own time, its own
/// counters) and writes its own report at its exit.
static void afterForkInChild() {
  pthread_mutex_unlock(&Reg.Mutex);
  if (!Proc.Active)
    return; // reconfigured inert since (tests): nothing measured, no report
  ThreadState *T = TlsThread;
  // A variant in flight: the program's FP environment comes back (its
  // end_call is stale now, and the stub runs the original loop).
  if (T && T->Gen == Reg.Generation && T->InFlightLoop >= 0 &&
      T->InFlightVariant != DECAN_REF && T->InFlightRerunOf < 0 &&
      Cfg.Fp == FpEnv::Ftz)
    setMxcsr((T->SavedMxcsr & ~kMxcsrFlags) | (getMxcsr() & kMxcsrFlags));
  uint32_t NL = std::min<uint32_t>(Reg.NumLoops.load(), kMaxLoops);
  long Page = sysconf(_SC_PAGESIZE);
  for (uint32_t I = 0; I < NL; ++I)
    if (LoopState *L = Reg.Loops[I].load()) {
      L->Threads.store(0);
      // A strided loop's next call reaches the runtime, so the child counts
      // its calls from the first (the countdown so far was the parent's).
      // The descriptor is written only where its module is still mapped.
      unsigned char InCore;
      uintptr_t At = reinterpret_cast<uintptr_t>(L->Desc);
      if (L->Strided.exchange(false) && L->Desc &&
          mincore(reinterpret_cast<void *>(At & ~(uintptr_t)(Page - 1)),
                  (size_t)Page, &InCore) == 0 &&
          L->Desc->active == 2)
        L->Desc->countdown = 0;
    }
  uint32_t NT = std::min<uint32_t>(Reg.NumThreads.load(), kMaxThreads);
  for (uint32_t I = 0; I < NT; ++I)
    Reg.Threads[I].store(nullptr);
  Reg.NumThreads.store(0);
  ++Reg.Generation; // this thread's state is stale: a new one at next call
  Proc.WriterTid.store(0);
  Proc.CrashRerunOf = -1;
  Proc.Forked = true;
  Proc.ParentPid = Proc.ForkedFrom;
  Facts.CpuStartUs = processCpuUs();
  Facts.RunqueueWaitStartUs = mainThreadRunqueueWaitUs();
  Facts.TscStart = decan_tsc_start();
  // Names the child to decan run, report or not (an exec of a program
  // without decan's runtime writes none).
  char Path[sizeof(Cfg.OutputDir) + 48];
  snprintf(Path, sizeof(Path), "%s/decan.%d.child", Cfg.OutputDir,
           (int)getpid());
  int Fd = open(Path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd >= 0) {
    char Line[24];
    int N = snprintf(Line, sizeof(Line), "%d\n", Proc.ForkedFrom);
    ssize_t W = write(Fd, Line, (size_t)N);
    (void)W;
    close(Fd);
  }
}

void installHooks() {
  if (Proc.HooksInstalled)
    return;
  Proc.HooksInstalled = true;
  Proc.ParentPid = (int)getppid();
  for (int Sig : kSignals) {
    struct sigaction Old;
    if (realSigaction(Sig, nullptr, &Old) != 0)
      continue;
    changeProgramAction(Sig, [&](struct sigaction &Program) {
      Program = Old;
      return 0;
    });
    if (Old.sa_handler == SIG_IGN && !isFault(Sig))
      continue; // the program asked not to hear about it
    struct sigaction A = decanAction(Sig);
    realSigaction(Sig, &A, nullptr);
  }
  atexit(atExit);
  pthread_atfork(beforeFork, afterForkInParent, afterForkInChild);
}

} // namespace decan::rt
