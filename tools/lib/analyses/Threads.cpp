//===- analyses/Threads.cpp - Threads of one loop (OpenMP) ----------------===//
//
// Part of decan. Thread analyses (thesis 5.9, written for OpenMP): the spread
// of the threads' whole-run time in the loop (a thread much slower than the
// others makes them wait at the barrier or the join), and S2L per thread
// (which threads pay for coherence). The advice names what the program
// uses: OpenMP's only where it loaded an OpenMP runtime or the loop is in an
// outlined OpenMP region, thread-pool terms where it loaded none.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace decan::tool::analyses {

namespace {
/// What the program's threads are, as far as the run tells.
enum class Threading { OpenMP, OtherThreads, Unknown };

Threading threadingOf(const LoopReport &L, const Report &R) {
  if (isOpenMPOutlined(L.Function) || R.ParallelRuntime == "openmp")
    return Threading::OpenMP;
  return R.ParallelRuntime == "none" ? Threading::OtherThreads
                                     : Threading::Unknown;
}

/// The imbalance advice in the program's own terms.
const char *imbalanceAdvice(Threading How) {
  switch (How) {
  case Threading::OpenMP:
    return ": imbalanced, the others wait for the slowest at the barrier; "
           "balance the work (schedule(dynamic), smaller chunks)";
  case Threading::OtherThreads:
    return ": imbalanced, the others wait for the slowest (at a join, a "
           "condition variable or a barrier); split the work into smaller "
           "items that idle threads take from a shared queue";
  case Threading::Unknown:
    break;
  }
  return ": imbalanced, the others wait for the slowest; balance the work "
         "between the threads (smaller work items, handed out dynamically)";
}
} // namespace

static void threadAnalysis(LoopReport &L, const Thresholds &T, bool TooShort,
                           Threading How) {
  L.ThreadSpread.reset();
  L.ThreadMaxOverMean.reset();
  for (ThreadTotal &TT : L.ThreadTotals)
    TT.SatS2L.reset();
  // The threads of the runs REF was measured in: in replace mode each
  // variant has runs of its own, whose totals are that variant's time.
  auto RefRun = [&](const ThreadTotal &TT) {
    return !L.Variants[Variant::REF] ||
           llvm::any_of(L.Variants[Variant::REF]->Rows,
                        [&](const ThreadRow &R) { return R.Pid == TT.Pid; });
  };
  std::vector<const ThreadTotal *> Ran;
  for (const ThreadTotal &TT : L.ThreadTotals)
    if (TT.Calls && TT.Cycles > 0 && RefRun(TT))
      Ran.push_back(&TT);
  if (Ran.size() < 2)
    return;
  double Sum = 0, Max = 0;
  for (const ThreadTotal *TT : Ran) {
    Sum += TT->Cycles;
    Max = std::max(Max, TT->Cycles);
  }
  double Mean = Sum / Ran.size(), Var = 0;
  for (const ThreadTotal *TT : Ran)
    Var += (TT->Cycles - Mean) * (TT->Cycles - Mean);
  double Std = std::sqrt(Var / Ran.size());
  L.ThreadSpread = Std / Mean;
  L.ThreadMaxOverMean = Max / Mean;
  std::string S =
      formatv("threads ({0}thesis 5.9): {1} threads ran "
              "this loop; time per thread {2:F0} cycles on "
              "average, standard deviation {3} of it, the "
              "slowest {4:F2}x the mean",
              How == Threading::OpenMP ? "OpenMP, " : "", Ran.size(), Mean,
              pct(*L.ThreadSpread), *L.ThreadMaxOverMean)
          .str();
  S += *L.ThreadSpread >= T.ThreadImbalance ? imbalanceAdvice(How)
                                            : ": balanced";
  L.Diagnosis.push_back(S);
  // S2L per thread, from each thread's medians.
  if (TooShort || !L.Variants[Variant::REF] || !L.Variants[Variant::S2L])
    return;
  double Lo = 0, Hi = 0;
  unsigned N = 0;
  for (ThreadTotal &TT : L.ThreadTotals)
    for (const ThreadRow &R : L.Variants[Variant::REF]->Rows) {
      if (R.Pid != TT.Pid || R.Tid != TT.Tid || R.Cycles.Median <= 0)
        continue;
      // The same thread; in replace mode (S2L ran in a run of its own) the
      // thread of the same index and rank.
      const ThreadRow *Match = nullptr;
      for (const ThreadRow &X : L.Variants[Variant::S2L]->Rows)
        if (X.Calls && X.Cycles.Median > 0 && X.Pid == R.Pid && X.Tid == R.Tid)
          Match = &X;
      if (!Match)
        for (const ThreadRow &X : L.Variants[Variant::S2L]->Rows)
          if (X.Calls && X.Cycles.Median > 0 && X.Pid != R.Pid &&
              X.Thread == R.Thread && X.Rank == R.Rank)
            Match = &X;
      if (!Match)
        continue;
      TT.SatS2L = Match->Cycles.Median / R.Cycles.Median;
      Lo = N ? std::min(Lo, *TT.SatS2L) : *TT.SatS2L;
      Hi = N ? std::max(Hi, *TT.SatS2L) : *TT.SatS2L;
      ++N;
    }
  if (N > 1)
    L.Diagnosis.push_back(
        formatv("S2L per thread: Sat(S2L) from {0:F2} to {1:F2} over {2} "
                "threads{3}",
                Lo, Hi, N,
                1 - Hi >= T.StoreCost
                    ? ": every thread pays for writing shared lines"
                : 1 - Lo >= T.StoreCost
                    ? ": some threads pay for writing, others not"
                    : ": no thread pays for coherence")
            .str());
}

void threads(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    threadAnalysis(L, C.T, S.TooShort, threadingOf(L, C.R));
  });
}

} // namespace decan::tool::analyses
