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
/// A fork of a measured process (pthread_atfork) starts afresh: the records
/// and threads are the parent's, so the child drops them, measures from the
/// fork on, writes its own report under its own pid, and leaves
/// `decan.<pid>.child` (its parent's pid) in DECAN_OUTPUT so that `decan
/// run` can name a child that never wrote a report.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_SIGNALS_H
#define DECAN_RUNTIME_SIGNALS_H

namespace decan::rt {

/// Name of a handled signal ("SIGSEGV"), "SIGNAL" otherwise.
const char *signalName(int Sig);
/// The signal handlers (on an alternate stack) and the exit hook, once.
void installHooks();

} // namespace decan::rt

#endif // DECAN_RUNTIME_SIGNALS_H
