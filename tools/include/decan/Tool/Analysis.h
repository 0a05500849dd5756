//===- decan/Tool/Analysis.h - Differential analyses of a report ----------===//
//
// Part of decan. The analyses of the DECAN thesis (sections 4.5.2-4.5.5 and
// 5.4): saturations, LS/FP streams (Algorithm 2), DL1 data location and
// return on investment, expensive instructions (NO_DIV), loop overhead
// (CTRL), and the coherence checks that flag measurements one should not
// trust. Every threshold lives in Thresholds and is documented in
// docs/tool.md; nothing is hidden: doubtful data gives a warning, never a
// dropped loop.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_ANALYSIS_H
#define DECAN_TOOL_ANALYSIS_H

#include "decan/Tool/Report.h"

#include <functional>
#include <string>
#include <vector>

namespace decan::tool {

/// The numbers that turn saturations into words.
struct Thresholds {
  /// Algorithm 2's "Sat = 1": a stream whose saturation reaches this fully
  /// saturates REF (timer noise keeps a real 1 from showing as exactly 1).
  double Full = 0.9;
  /// Algorithm 2's "Sat_LS >> Sat_FP": the gap that makes one stream the
  /// bound.
  double Gap = 0.2;
  /// Relative noise assumed even for perfectly stable samples.
  double NoiseFloor = 0.05;
  /// A variant that removes work measured slower than the loop by more
  /// than this measured something else (page faults, placement): no claim
  /// rests on it.
  double MaxVariantSat = 1.1;
  /// REF against its REF neighbours further than this from 1: the pairing
  /// was disturbed, no claim rests on the loop's saturations.
  double MaxRefTwinOff = 0.1;
  /// A loop whose threads were blocked (off the CPU after a voluntary
  /// context switch: a futex, I/O) for at least this part of its time
  /// mostly waits: "blocked", no bound verdict.
  double MinBlocked = 0.5;
  /// Stability (median-min)/min above which samples are called unstable.
  double Unstable = 0.2;
  /// Fewer measured calls than this per variant: too few for a median.
  unsigned MinCalls = 5;
  /// A probe costing more than this fraction of a call hides the loop.
  double MaxProbeShare = 0.05;
  /// Excluded (context-switched) calls above this fraction are flagged.
  double MaxExcluded = 0.1;
  /// Sat(DL1) at or above: data are in L1; at or above DL1InL2: in L2 (the
  /// thesis, 4.5.4); below: L3 or memory.
  double DL1InL1 = 0.9, DL1InL2 = 0.5;
  /// 1 - Sat(NO_DIV) at or above this: divisions/sqrt are a bottleneck.
  double DivCost = 0.1;
  /// 1 - Sat(NO_STORE) (and 1 - Sat(S2L)) at or above this: the stores
  /// (their writes) are a cost worth naming.
  double StoreCost = 0.1;
  /// 1 - Sat(NO_RED) at or above this: the reduction chain's latency costs.
  double RedCost = 0.1;
  /// Sat(PREFETCH) - 1 at or above this: one more L1 access per access slows
  /// the loop, the load ports are near saturation.
  double PortSlowdown = 0.1;
  /// 1 - Sat(NO_Gk) at or above this: a memory group (array) costs.
  double GroupCost = 0.1;
  /// Threads' whole-run times in a loop with a standard deviation of at
  /// least this share of their mean: imbalanced (thesis 5.9).
  double ThreadImbalance = 0.1;
  /// Sat(CTRL) at or above this: loop control alone takes most of a call.
  double CtrlHigh = 0.5;
  /// Loop structure (thesis 5.4.3): the loops of one source loop (vector
  /// body, peel, remainder: same function and line) where the loops other
  /// than the busiest take more than this part of the group's time.
  double MaxTailShare = 0.1;
  /// A verdict needs this share of bootstrap replicates to agree with it.
  double Confidence = 0.9;
  /// Saturations move by about this much between identical runs (more
  /// than a run's own bootstrap shows): a replicate supports a class only
  /// when the class holds within +-Margin of every saturation it reads.
  double Margin = 0.02;
  /// Bootstrap replicates per saturation.
  unsigned Bootstrap = 400;
  /// Calls shorter than this many probe costs: the loop's program share is
  /// approximate (a call timed alone loses its overlap with the code
  /// around it).
  double PrecisionFactor = 10;
  /// Calls shorter than this many probe costs are below the precision
  /// floor: their loop gets no verdict. Above it the short-call term below
  /// (up to 1) keeps every interval honest: on bench/truth, calls of 1.5-3
  /// probe costs read high by at most 1.7 probe costs, and never lower
  /// than their pairs' interval, so an interval reaching down to 0 still
  /// holds the truth and the claims that rest on its upper end stand;
  /// under 1.5 the probes are most of the call.
  double MinCallProbes = 1.5;
  /// A call timed alone between the probes runs slower than in the
  /// program, where the out-of-order core overlaps it with its neighbours,
  /// so a variant's saturation reads high by up to about this many probe
  /// costs per call (bench/truth): each interval reaches down by
  /// ShortCallProbes x probe / mean call, and every claim must hold down
  /// to there.
  double ShortCallProbes = 3;
  /// The samples' mean trip count may differ from the run's by this much.
  double MaxTripsDrift = 0.25;
  /// REF's cost per iteration varying by more than this between parts of
  /// the run is a phase change.
  double PhaseCost = 0.3;
};

/// Algorithm 2 (thesis 4.5.3) on Sat(LS) and Sat(FP):
///  - Sat_LS - Sat_FP >= Gap: memory-bound; Sat_FP - Sat_LS >= Gap: FP-bound;
///  - else both >= Full: balanced (the ideal: streams overlap, both saturate);
///  - else both < Full: unsaturated (stream interaction, front end, or shared
///    resources relieved in the variants);
///  - else (one saturates, the other is within Gap): balanced.
StreamsClass classifyStreams(double SatLS, double SatFP, const Thresholds &T);

/// One sentence explaining \p C for these saturations, with Algorithm 2's
/// suggested strategies.
std::string explainStreams(StreamsClass C, double SatLS, double SatFP,
                           const Thresholds &T);

/// The PAMDA performance overview (thesis 5.4.2): the memory subsystem's
/// part from Sat(LS), the CPU's from Sat(DL1) (the loop with ideal memory),
/// classified like Algorithm 2: MemoryBound (LS dominates), CpuBound (DL1
/// dominates), Balanced, Unsaturated (poor overlap: fixing either side
/// pays).
MemoryCpuClass classifyMemoryCpu(double SatLS, double SatDL1,
                                 const Thresholds &T);

/// Potential gain of making every access hit L1 (thesis 4.5.4):
/// share x (1 - Sat(DL1)), never negative.
double dl1Gain(double Share, double SatDL1);

/// Where the data of a loop live, judged from Sat(DL1): "L1", "L2",
/// "L3 or memory".
llvm::StringRef dataLocation(double SatDL1, const Thresholds &T);

/// Sat(V) = T(V)/T(REF) on median cycles per call, or nullopt when either is
/// missing or REF is 0: for unpaired runs (replace, instance mode).
std::optional<double> saturation(const LoopReport &L, Variant V);

/// A classification re-derived on every bootstrap replicate: the label of
/// the point estimate and the share of replicates that agree with it.
struct Classified {
  std::string Label;
  double Agreement = 0;
  /// The labels replicates gave, with their shares, most frequent first.
  std::vector<std::pair<std::string, double>> Labels;
};

/// Applies \p Classify to the point values and to each replicate (arrays
/// of equal length, one per input). A point whose class changes when its
/// values move by up to \p Margin (every corner of the box is tried), or
/// down by up to \p Margin + \p Below (a short call's bias), is labelled
/// kNearThreshold (Verdicts.h): it supports no class.
Classified
classifyReplicates(const std::vector<double> &Point,
                   const std::vector<std::vector<double>> &Replicates,
                   const std::function<std::string(const double *)> &Classify,
                   double Margin = 0, double Below = 0);

/// Fills shares, saturations, analyses, rankings, diagnosis and warnings of
/// every loop of \p R: the analyses of analysisList() (AnalysisList.h), in
/// order. Idempotent.
void analyse(Report &R, const Thresholds &T = Thresholds());

/// Each loop's share of the loops' time (Share) and of the program's own
/// time (ProgramShare, decan's cost removed), and the loops' coverage of
/// the program: the "shares" analysis, for callers that rank loops before
/// analysing them. Program shares of the loops that add up to more than 1
/// are scaled to 1: then it returns their sum. \p OverheadKept, if given,
/// says whether decan's cost had to stay in the program's time (timed on
/// the wall clock, it came to the processes' CPU time or more).
std::optional<double> computeShares(Report &R, bool *OverheadKept = nullptr);

/// The program's own time: its processes' CPU time (wall time where the
/// runtime did not read CPU time).
double programCycles(const Report &R);

/// The part of the run the main threads waited for a CPU that other
/// processes held (processes with CPU and wall time only).
double cpuWaitShare(const Report &R);

/// decan's own cost in the processes' CPU time: Report::OverheadCycles as
/// the runtime counted it on the threads' CPU, or (an older runtime's, on
/// the wall clock) less the part the main threads waited for a CPU.
double decanCostCycles(const Report &R);

/// What decan added, as a part of the program's own time (its CPU time
/// less decanCostCycles); unset where that cost came to the CPU time or
/// more (an older runtime's wall-clock cost: it stays in the program's
/// time, and the program shares are lower bounds).
std::optional<double> decanAddedShare(const Report &R);

/// "time: wall 2.31 s, CPU 1.12 s: 1.19 s waiting/preempted ...", or ""
/// where the processes' CPU time is unknown: the table's footer line.
std::string wallCpuText(const Report &R);

/// Coherence checks of one loop (part of analyse()): appends to L.Warnings.
void checkCoherence(LoopReport &L, double ProbeCycles, const Thresholds &T);

/// What a fix of \p L would save of the loops' time: share x predicted
/// gain (the best gain whose cost claim is settled), or the share itself
/// where no claim is (all of it may be at stake).
double rankingKey(const LoopReport &L);
/// The order every report prints loops in: by rankingKey, the larger share
/// first where keys tie; regions after the loops, by program share.
bool ranksBefore(const LoopReport &A, const LoopReport &B);
/// The loops of \p R in ranksBefore's order: the table, the HTML page,
/// the remarks and `decan compare` all list loops this way.
std::vector<const LoopReport *> rankedLoops(const Report &R);

} // namespace decan::tool

#endif // DECAN_TOOL_ANALYSIS_H
