//===- ReportWriter.h - The decan-raw-3 report ------------------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writes the process's report (docs/runtime.md, "Report format"): the
/// process, machine, configuration, probe and counter facts, and every
/// loop's whole-run totals and samples per thread. Async-signal-safe: a
/// crash handler writes it too.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_REPORTWRITER_H
#define DECAN_RUNTIME_REPORTWRITER_H

namespace decan::rt {

/// Builds the report's path and its temporary (no malloc, no stdio).
void buildPaths();
/// Writes the report with \p Status; \p Sig and the crashed loop and
/// variant (-1: none) when a signal ends the run.
bool writeReport(const char *Status, int Sig, int CrashLoop, int CrashVariant);

} // namespace decan::rt

#endif // DECAN_RUNTIME_REPORTWRITER_H
