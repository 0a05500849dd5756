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

static void onSignal(int Sig, siginfo_t *Info, void *Context) {
  int SavedErrno = errno;
  // A fault inside a variant copy is decan's: the call is abandoned and
  // the program goes on (Guard.h).
  if (recoverFault(Sig, Info, Context)) {
    errno = SavedErrno;
    return;
  }
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
  if (!Proc.FinalDone.load())
    writeReport(Interrupt ? "interrupted" : "crashed", Sig, CrashLoop,
                CrashVariant);
  // Hand the signal to whoever had it before us (the default action: die
  // with this signal, so the parent sees the real cause).
  sigaction(Sig, &Proc.OldActions[Sig], nullptr);
  errno = SavedErrno;
  raise(Sig);
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
    if (sigaction(Sig, nullptr, &Old) != 0)
      continue;
    if (Old.sa_handler == SIG_IGN)
      continue; // the program asked not to hear about it
    Proc.OldActions[Sig] = Old;
    struct sigaction A;
    memset(&A, 0, sizeof(A));
    A.sa_sigaction = onSignal;
    A.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&A.sa_mask);
    sigaction(Sig, &A, nullptr);
  }
  atexit(atExit);
  pthread_atfork(beforeFork, afterForkInParent, afterForkInChild);
}

} // namespace decan::rt
