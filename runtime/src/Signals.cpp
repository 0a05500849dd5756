//===- Signals.cpp - Fatal signals and exit -------------------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "Signals.h"
#include "Late.h"
#include "ReportWriter.h"
#include "State.h"

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

// SIGABRT: abort(), a failed assert, std::terminate.
static const int kSignals[] = {SIGINT, SIGTERM, SIGSEGV, SIGBUS,
                               SIGFPE, SIGILL,  SIGABRT};

const char *signalName(int Sig) {
  switch (Sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
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

static void onSignal(int Sig, siginfo_t *, void *Context) {
  int SavedErrno = errno;
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
  bool Interrupt = Sig == SIGINT || Sig == SIGTERM;
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

void installHooks() {
  if (Proc.HooksInstalled)
    return;
  Proc.HooksInstalled = true;
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
}

} // namespace decan::rt
