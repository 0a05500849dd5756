//===- Progress.cpp - A run's progress line on a terminal -----------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Progress.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace decan::tool {

Progress::Progress(bool Enabled, unsigned Run, unsigned Planned,
                   StringRef What) {
  if (!Enabled)
    return;
  Start = std::chrono::steady_clock::now();
  Thread = std::thread([this, Run, Planned, What = What.str()] {
    static const char Spin[] = "|/-\\";
    for (unsigned Tick = 0; !Done; ++Tick) {
      double S = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - Start)
                     .count();
      unsigned Width = 20, Fill = Planned ? Width * (Run - 1) / Planned : 0;
      std::string Bar(Fill, '=');
      Bar += '>';
      Bar.resize(Width, ' ');
      errs() << formatv("\rdecan: run {0}/{1} [{2}] {3} {4:F1}s {5}\033[K", Run,
                        Planned, Bar, Spin[Tick % 4], S, What);
      errs().flush();
      for (int I = 0; I < 5 && !Done; ++I)
        std::this_thread::sleep_for(std::chrono::milliseconds(40));
    }
    errs() << "\r\033[K";
    errs().flush();
  });
}

Progress::~Progress() {
  Done = true;
  if (Thread.joinable())
    Thread.join();
}

} // namespace decan::tool
