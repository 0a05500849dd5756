//===- SignalHook.cpp - The program's signal handlers, behind decan's -----===//
//
// Part of decan. Free of LLVM; no exceptions. Built into libdecan_rt.so
// only, which comes before libc in symbol lookup (as DlopenHook.cpp).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A program that installs its own SIGSEGV, SIGINT, ... handler after
/// start-up would replace decan's: a fault inside a variant copy would then
/// reach the program's handler (which may print and exit), and an
/// interrupt its handler ends with would write no report. sigaction,
/// signal and their BSD and System V forms pass through
/// Signals.cpp's programSigaction instead: the program's action is
/// recorded and reported back to it as its own, and decan's handler hands
/// the signal on to it (Signals.h).
//===----------------------------------------------------------------------===//

#include "Signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#define DECAN_EXPORT extern "C" __attribute__((visibility("default")))

DECAN_EXPORT int sigaction(int Sig, const struct sigaction *Act,
                           struct sigaction *Old) {
  return decan::rt::programSigaction(Sig, Act, Old);
}

/// signal() and its forms as the C library defines them: \p Flags and
/// whether the handler's own signal is blocked while it runs.
static __sighandler_t setHandler(int Sig, __sighandler_t Handler, int Flags,
                                 bool BlockItself) {
  if (Handler == SIG_ERR || Sig < 1 || Sig >= NSIG) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction A, Old;
  memset(&A, 0, sizeof(A));
  A.sa_handler = Handler;
  sigemptyset(&A.sa_mask);
  if (BlockItself)
    sigaddset(&A.sa_mask, Sig);
  A.sa_flags = Flags;
  if (decan::rt::programSigaction(Sig, &A, &Old) < 0)
    return SIG_ERR;
  return Old.sa_handler;
}

DECAN_EXPORT __sighandler_t signal(int Sig, __sighandler_t Handler) {
  return setHandler(Sig, Handler, SA_RESTART, true);
}

DECAN_EXPORT __sighandler_t bsd_signal(int Sig, __sighandler_t Handler) {
  return setHandler(Sig, Handler, SA_RESTART, true);
}

DECAN_EXPORT __sighandler_t sysv_signal(int Sig, __sighandler_t Handler) {
  return setHandler(Sig, Handler, SA_RESETHAND | SA_NODEFER, false);
}

DECAN_EXPORT __sighandler_t __sysv_signal(int Sig, __sighandler_t Handler) {
  return setHandler(Sig, Handler, SA_RESETHAND | SA_NODEFER, false);
}
