//===- Signals.h - Fatal signals and exit -----------------------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The report is written once at the end of the run: at exit, or from a
/// handler of SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGFPE or SIGILL, which names
/// the loop and variant in flight and hands the signal on (the process dies
/// of it as without decan).
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
