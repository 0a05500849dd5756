//===- analyses/Crashes.cpp - Where a process crashed ---------------------===//
//
// Part of decan. A process that crashed in a loop (in a variant, or in the
// original run after one): the loop's data stop at the crash.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

void crashes(AnalysisContext &C) {
  const Report &R = C.R;
  forEachLoop(
      C,
      [&](LoopReport &L, LoopState &) {
        for (const ProcessInfo &P : R.Processes)
          if (!P.CrashSignal.empty() && P.CrashLoop == L.Id &&
              P.Status != "interrupted")
            L.Warnings.push_back(
                formatv("{0} crashed ({1}) in {2}: data stop at the crash",
                        P.CrashRerunAfter.empty()
                            ? "variant " + (P.CrashVariant.empty()
                                                ? "?"
                                                : P.CrashVariant)
                            : "the original loop run after variant " +
                                  P.CrashRerunAfter,
                        P.CrashSignal,
                        P.Rank ? formatv("rank {0}", *P.Rank).str()
                               : formatv("pid {0}", P.Pid).str())
                    .str());
      },
      /*Blocked=*/true);
}

} // namespace decan::tool::analyses
