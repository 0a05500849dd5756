//===- analyses/Blocked.cpp - Loops that mostly wait ----------------------===//
//
// Part of decan. A loop around pthread_cond_wait, a futex or a read spends
// its time blocked, off the CPU: its timed calls are the wait, not its
// instructions, and its variants time the same wait. The runtime reads
// the thread's CPU time and voluntary context switches around a slot's
// REF calls (LoopReport::Probed*): a loop blocked for at least MinBlocked
// of its time says "blocked", draws no bound verdict and no gain, and
// the other analyses leave it alone (forEachLoop).
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool::analyses {

void blocked(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    std::optional<double> B = L.blockedShare();
    if (!B || *B < C.T.MinBlocked)
      return;
    S.Blocked = true;
    for (Variant V : AllVariants) {
      S.Sat[V].reset();
      S.Boot[V].clear();
      S.SatI[V].reset();
    }
    L.Verdict = VerdictClass::Blocked;
    std::string Share = L.ProgramShare
                            ? formatv("; its CPU time is {0} of the program's",
                                      pct(*L.ProgramShare))
                                  .str()
                            : "";
    L.Diagnosis.push_back(
        formatv("blocked: its threads were off the CPU {0} of its time, "
                "waiting (a condition variable, a lock, I/O: {1:F1} voluntary "
                "context switches per call over {2}){3}. No bound verdict "
                "and no gain: what it waits for (the threads that wake it, a "
                "device) bounds it, not its instructions",
                pct(*B), (double)L.ProbedVoluntary / (double)L.ProbedCalls,
                plural(L.ProbedCalls, "timed call"), Share)
            .str());
  });
}

} // namespace decan::tool::analyses
