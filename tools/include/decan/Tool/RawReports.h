//===- decan/Tool/RawReports.h - What the raw reports of a run say --------===//
//
// Part of decan. After each run of the program: its raw reports read into
// the merger (and kept with --raw-dir), the processes that wrote them (or
// did not), and where a crashed process was.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_RAWREPORTS_H
#define DECAN_TOOL_RAWREPORTS_H

#include "decan/Tool/Report.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace decan::tool {

/// Adds every raw report of \p Dir to \p M (a copy of each to \p KeepDir,
/// named after run \p Run, unless ""); returns how many were added.
unsigned collectRawReports(llvm::StringRef Dir, RawMerger &M,
                           llvm::raw_ostream &Log, llvm::StringRef KeepDir,
                           unsigned Run);

/// A run of more than one process (a program that forks, or starts other
/// programs): one line per process with what it measured, and a warning
/// naming each child that wrote no report. The runtime leaves
/// `decan.<pid>.child` (the parent's pid) in a fork and `decan.<pid>.exec`
/// (the program exec'd) in \p Dir.
void describeProcesses(llvm::ArrayRef<ProcessInfo> Procs,
                       llvm::ArrayRef<LoopReport> Loops, llvm::StringRef Dir,
                       llvm::raw_ostream &Log);

/// Where a crashed or interrupted process was: "in loop f:L0, variant
/// LS", "in loop f:L0, in the original loop run after variant LS", or
/// "outside any measured loop".
std::string whereItWas(const ProcessInfo &P);

} // namespace decan::tool

#endif // DECAN_TOOL_RAWREPORTS_H
