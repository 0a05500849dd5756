//===- Signals.h - Fatal signals, exit and fork -----------------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The report is written once at the end of the run: at exit, or from a
/// handler of SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGSEGV, SIGBUS,
/// SIGFPE, SIGILL or SIGABRT, which names the loop and variant in flight and
/// hands the signal on (the process dies of it as without decan).
/// decan's handler stays in front of a handler the program installs
/// later (SignalHook.cpp interposes sigaction and signal in the shared
/// runtime): a fault inside a variant copy is still recovered, and any
/// other such signal goes to the program's handler with its own siginfo
/// and context, the report written once before it in case it _exits.
/// A fork of a measured process (pthread_atfork) starts afresh: the records
/// and threads are the parent's, so the child drops them, measures from the
/// fork on, writes its own report under its own pid, and leaves
/// `decan.<pid>.child` (its parent's pid) in DECAN_OUTPUT so that `decan
/// run` can name a child that never wrote a report.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_SIGNALS_H
#define DECAN_RUNTIME_SIGNALS_H

#include <signal.h>

namespace decan::rt {

/// Name of a handled signal ("SIGSEGV"), "SIGNAL" otherwise.
const char *signalName(int Sig);
/// The signal handlers (on an alternate stack) and the exit hook, once.
void installHooks();

/// sigaction as the program sees it: for a signal decan handles (once its
/// hooks are installed) it records \p Act as the program's action, keeps
/// decan's handler in front (a non-fault signal set to SIG_IGN is ignored
/// in the kernel) and gives the program's previous action in \p Old;
/// any other signal goes straight to the C library.
int programSigaction(int Sig, const struct sigaction *Act,
                     struct sigaction *Old);

} // namespace decan::rt

#endif // DECAN_RUNTIME_SIGNALS_H
