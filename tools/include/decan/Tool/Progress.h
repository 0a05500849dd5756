//===- decan/Tool/Progress.h - A run's progress line on a terminal --------===//
//
// Part of decan. While the program runs: a bar over the planned runs and a
// spinner with the elapsed time of the current run, on standard error,
// erased when the run ends.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_PROGRESS_H
#define DECAN_TOOL_PROGRESS_H

#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace decan::tool {

class Progress {
public:
  /// Draws "run \p Run/\p Planned [bar] \p What" until destroyed; nothing
  /// unless \p Enabled.
  Progress(bool Enabled, unsigned Run, unsigned Planned, llvm::StringRef What);
  ~Progress();

private:
  std::atomic<bool> Done{false};
  std::chrono::steady_clock::time_point Start;
  std::thread Thread;
};

} // namespace decan::tool

#endif // DECAN_TOOL_PROGRESS_H
