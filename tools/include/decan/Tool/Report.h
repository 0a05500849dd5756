//===- decan/Tool/Report.h - Measurements of loops and their variants -----===//
//
// Part of decan. The data model of `decan`: raw runtime reports
// (`decan-raw-3`, docs/runtime.md) are merged into one Report (RawMerger.cpp),
// which the analyses annotate and the renderers print. Each struct's
// toJSON/fromJSON, declared beside it (found by ADL, as llvm/Support/JSON.h
// expects), is its part of the analysed JSON (`decan-report-2`,
// docs/tool.md), written and read in ReportJSON.cpp: each key spelled once
// per direction, and the raw format's names wherever it has the datum.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_REPORT_H
#define DECAN_TOOL_REPORT_H

#include "decan/Tool/Pairing.h"
#include "decan/Tool/Statistics.h"
#include "decan/Tool/VariantArray.h"
#include "decan/Tool/Verdicts.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// The variant named \p Name (exact, upper case), or nullopt.
std::optional<Variant> parseVariant(llvm::StringRef Name);
/// Parses "REF,LS,..." into variants (REF is not added); "all": every
/// variant. Errors name the unknown variant and list the known ones.
llvm::Expected<std::vector<Variant>> parseVariantList(llvm::StringRef List);

/// Minimum, median and maximum of a sample.
struct Summary {
  double Min = 0, Median = 0, Max = 0;
};

/// {"min", "median", "max"}.
llvm::json::Value toJSON(const Summary &X);
bool fromJSON(const llvm::json::Value &E, Summary &X, llvm::json::Path P);

/// The median of \p Values (mean of the two middle ones for even sizes);
/// 0 for an empty sample. Sorts \p Values.
double median(std::vector<double> &Values);
/// Summary of \p Values (sorts it).
Summary summarize(std::vector<double> &Values);
/// (median - min) / min: how far a typical call is from the best one. 0 when
/// min is 0.
double stability(const Summary &S);

/// One (process, thread) row of a variant: kept in the analysed report so that
/// rank and thread imbalance stays visible after merging.
struct ThreadRow {
  std::optional<int64_t> Rank;
  uint64_t Pid = 0, Thread = 0, Tid = 0;
  uint64_t Calls = 0, Excluded = 0;
  Summary Cycles;
};

llvm::json::Value toJSON(const ThreadRow &X);
bool fromJSON(const llvm::json::Value &E, ThreadRow &X, llvm::json::Path P);

/// GROUPING (thesis 4.4.3.3): one data structure of a loop, as the
/// producer grouped its accesses, and what its variants measured.
struct MemoryGroup {
  std::string Name; ///< "(%rsi,%rax,8)", or a source name
  unsigned Accesses = 0;
  std::optional<double> SatDL1;     ///< Sat(DL1_Gk): the group in L1
  std::optional<double> SatRemoved; ///< Sat(NO_Gk): the group removed
  /// SatRemoved against LS (the share of the memory stream), when measured.
  std::optional<double> SatRemovedVsLS;
};

llvm::json::Value toJSON(const MemoryGroup &X);
bool fromJSON(const llvm::json::Value &E, MemoryGroup &X, llvm::json::Path P);

/// One thread's whole-run time in a loop (every call while the loop was
/// active, as the runtime totals it): what the OpenMP analysis (thesis 5.9)
/// compares between threads.
struct ThreadTotal {
  std::optional<int64_t> Rank;
  uint64_t Pid = 0, Thread = 0, Tid = 0;
  uint64_t Calls = 0;
  double Cycles = 0;
  /// Sat(S2L) of this thread alone (its S2L and REF medians), when both ran.
  std::optional<double> SatS2L;
};

llvm::json::Value toJSON(const ThreadTotal &X);
bool fromJSON(const llvm::json::Value &E, ThreadTotal &X, llvm::json::Path P);

/// Statistics of one variant of one loop over every process and thread.
struct VariantStats {
  uint64_t Calls = 0;      ///< measured calls in the statistics
  uint64_t Excluded = 0;   ///< calls dropped (context switch, failed read)
  uint64_t Iterations = 0; ///< sum of known trip counts
  uint64_t TripsKnown = 0; ///< calls whose trip count is known (nonzero)
  double TripsMedian = 0;
  uint64_t TripsMin = 0, TripsMax = 0;
  double MeanCycles = 0;
  Summary Cycles;        ///< per call
  Summary CyclesPerIter; ///< per iteration, calls with a known trip count
  double Stability = 0;  ///< of Cycles
  /// Per event of --events: its delta per call (kept calls; bit 1 of
  /// flags, a failed read, drops the call's counters only).
  std::map<std::string, Summary> Counters;
  std::vector<ThreadRow> Rows;
  /// Samples paired with REF on equal work (decan-raw-2): what the
  /// saturation and its interval come from. Empty for unpaired runs
  /// (replace and instance mode, older reports).
  std::vector<Pair> Pairs;
  /// How many samples each PairKind took, by its index.
  std::array<uint64_t, NumPairKinds> PairKinds{};
  /// Pairs left out of the saturation as disturbed (trimOutliers).
  uint64_t Outliers = 0;
};

llvm::json::Value toJSON(const VariantStats &X);
bool fromJSON(const llvm::json::Value &E, VariantStats &X, llvm::json::Path P);

/// Part of a run (by call index on each thread) and what REF did there.
struct RunPart {
  double From = 0, To = 1; ///< fraction of the run's calls
  uint64_t Calls = 0;      ///< calls of the loop in this part
  double Iterations = 0;   ///< their known iterations
  double Cycles = 0;       ///< their REF cycles
  /// Saturations from the pairs in this part (point estimates).
  VariantArray<std::optional<double>> Saturation;
  StreamsClass Streams = StreamsClass::None; ///< Algorithm 2 on them
};

llvm::json::Value toJSON(const RunPart &X);
bool fromJSON(const llvm::json::Value &E, RunPart &X, llvm::json::Path P);

/// One loop: its measurements and what the analyses make of them.
struct LoopReport {
  std::string Id, Function, File;
  /// The shared library that holds the loop (its file name; "" the
  /// program), and the loop's name in text and HTML (LoopNames.h:
  /// "libm.so.6!f:L0", "fmt::vformat_to:L3"); "" when not named.
  std::string Object, Name;
  const std::string &name() const { return Name.empty() ? Id : Name; }
  /// "region:...": a region (decan_region_begin, or an outer loop or a
  /// function with `decan flags --regions`), REF only, enclosing loops.
  bool isRegion() const { return llvm::StringRef(Id).starts_with("region:"); }
  unsigned Line = 0;
  /// Source identity across builds (decan_loop_desc::source; "" unknown)
  /// and source iterations per iteration (0 unknown): what `decan compare`
  /// matches loops of two builds by (Compare.h).
  std::string Source;
  unsigned IterationStep = 0;
  uint32_t VariantMask = 0;
  std::map<std::string, std::string> StorePolicy;
  /// Requested variants the runtime could not run, with the reason
  /// ("verifier", "unsupported", ...).
  std::map<std::string, std::string> Unavailable;
  /// The same in words, where the producer said why (decan_variant_why).
  /// "runaway": a variant whose copy did not end within the runtime's
  /// iteration cap where REF ended (docs/variants.md, "Copies that could
  /// run forever"); none of its samples count.
  std::map<std::string, std::string> UnavailableWhy;
  /// Calls per variant whose copy ran out of iterations (no sample).
  std::map<std::string, uint64_t> CappedCalls;
  /// Variants whose copy faulted (SIGSEGV, SIGBUS, SIGFPE) in some
  /// process: that call was abandoned, the original ran, the variant left
  /// the rotation ("faulted" in Unavailable); the first fault in words
  /// ("SIGSEGV at +0x2a (address 0x7f..)", offset from the copy's entry).
  std::map<std::string, std::string> Faulted;
  /// Variants whose saturation is a bound (they drop a dependence through
  /// memory that REF has), with why.
  std::map<std::string, std::string> Bound;
  /// Variants that deleted calls REF makes (calls that may write memory,
  /// or not the variant's work): their stream analysis takes NO_CALL as
  /// the reference (thesis 4.5.2).
  std::vector<std::string> CallsDeleted;
  /// Loads whose value feeds their own address in a later iteration
  /// (pointer chasing; decan_machine_info::n_chased_load).
  unsigned ChasedLoads = 0;
  /// DL1 redirected memcpy/memset/memmove into its scratch area, lengths
  /// clamped to this many bytes (decan_machine_info::dl1_memory_call_bytes;
  /// 0: none).
  unsigned DL1MemoryCallBytes = 0;
  /// Late variants (docs/runtime.md, "Late packs"): "" (not a base
  /// copy's loop), "waiting" (no copies yet: its calls counted, about) or
  /// "installed" (copies from LateSince seconds of the run on; every
  /// sample is from after, CallsBeforeLate were not measured).
  std::string Late;
  double LateSince = 0;
  uint64_t CallsBeforeLate = 0, LateCallsSeen = 0;
  uint64_t CallsSeen = 0; ///< every call, measured or not (0: unknown)
  double TimeCycles = 0;  ///< cycles in the loop, all calls, probes removed
  double Share = 0;       ///< TimeCycles / sum over loops
  /// Whole-run totals (every call while the loop was active, all threads).
  uint64_t RunCalls = 0, RunIterations = 0, RunTripsKnown = 0;
  uint64_t UntimedCalls = 0, VariantCalls = 0, Slots = 0;
  double RunCycles = 0;     ///< as timed, probes included
  double VariantCycles = 0; ///< decan's own variant calls
  /// Runtime entry to exit over all calls (0: not measured): the loop runs
  /// and what decan added around them.
  double InsideCycles = 0;
  /// Calls that entered a rewritten binary's dispatcher, and of those the
  /// ones the runtime answered without the extended state's save (a
  /// thread's stride counting down): the dispatcher's cost lies outside
  /// InsideCycles (0 for plugin-built loops and older runtimes).
  uint64_t DispatchCalls = 0, QuickCalls = 0;
  /// Calls actually timed and their cycles (probes included): fewer than
  /// RunCalls when short calls were timed at an accounting stride (each
  /// timed call stands for MaxStride calls at most; docs/runtime.md).
  uint64_t TimedCalls = 0, MaxStride = 1;
  double TimedCycles = 0;
  /// Of RunCycles, the calls that stood for themselves alone (weight 1), as
  /// timed: the only ones whose wall time may still hold a wait for a CPU
  /// (the runtime counts a weighted call switched out inside it at its
  /// neighbour's time); unset from an older runtime.
  std::optional<double> SingleCycles;
  /// Timed REF calls of the sampling slots whose thread's CPU time was read
  /// around them (docs/runtime.md, "probed_*"): their cycles, that CPU time
  /// (in cycles) and their voluntary context switches. The gap between the
  /// two times is time the threads were blocked (a futex, a condition
  /// variable, I/O), no CPU's.
  uint64_t ProbedCalls = 0, ProbedVoluntary = 0;
  double ProbedCycles = 0, ProbedCpuCycles = 0;
  /// Of those, the calls that blocked (a voluntary context switch).
  uint64_t BlockedCalls = 0;
  double BlockedCycles = 0, BlockedCpuCycles = 0;
  /// Probed calls shorter than this on average: the probes' own system
  /// calls, inside the CPU-time window, weigh on it (a few thousand
  /// cycles), so their CPU time says little.
  static constexpr double kMinProbedCallCycles = 50000;
  /// The part of the loop's time its threads were off the CPU (blocked or
  /// preempted), from the probed calls; unset when none was probed, or
  /// their calls were too short to tell.
  std::optional<double> offCpuShare() const {
    if (!ProbedCalls || ProbedCycles < kMinProbedCallCycles * ProbedCalls)
      return std::nullopt;
    return std::clamp(1 - ProbedCpuCycles / ProbedCycles, 0.0, 1.0);
  }
  /// The part of the loop's time its threads were blocked (in the calls
  /// that switched out voluntarily); unset when none was probed.
  std::optional<double> blockedShare() const {
    if (!ProbedCalls || ProbedCycles <= 0)
      return std::nullopt;
    return std::clamp((BlockedCycles - BlockedCpuCycles) / ProbedCycles, 0.0,
                      1.0);
  }
  /// The CPU time the loop took: TimeCycles less its time off the CPU.
  /// Where that was not probed, \p Running (the run's share of time on a
  /// CPU) estimates it, for the calls timed one by one only: the runtime
  /// counts the calls of a stride at an undisturbed neighbour's time, and a
  /// weighted call switched out inside it too (docs/runtime.md, "Accounting
  /// stride"), so they hold no wait. An older runtime's report gives only
  /// the fraction f of the calls timed; it kept a weighted call's own wait:
  /// TimeCycles = CPU x (1 + f x (1/Running - 1)).
  double cpuTimeCycles(double Running = 1) const {
    std::optional<double> Off = offCpuShare();
    if (Off)
      return TimeCycles * (1 - *Off);
    if (SingleCycles) {
      double Alone =
          RunCycles > 0 ? std::clamp(*SingleCycles / RunCycles, 0.0, 1.0) : 1.0;
      return TimeCycles * (1 - Alone * (1 - Running));
    }
    // A report without the timed calls' count: every call timed.
    double Timed = RunCalls && TimedCalls
                       ? std::min(1.0, double(TimedCalls) / double(RunCalls))
                       : 1.0;
    double Over = Running + Timed * (1 - Running);
    return Over > 0 ? TimeCycles * Running / Over : TimeCycles;
  }
  unsigned Threads = 0; ///< threads (all processes) that ran the loop
  /// GROUPING: the loop's memory groups (the first DECAN_MAX_GROUPS are
  /// measured) and how many it has.
  std::vector<MemoryGroup> Groups;
  unsigned NumGroups = 0;
  /// Per thread (all processes): its whole-run time in the loop.
  std::vector<ThreadTotal> ThreadTotals;
  /// Spread of ThreadTotals' cycles: standard deviation / mean (thesis
  /// 5.9's STD), and the slowest thread / the mean; unset below 2 threads.
  std::optional<double> ThreadSpread, ThreadMaxOverMean;
  /// What decan added: inside the runtime around the timed calls, probes
  /// (\p ProbeCycles each) included, the stub's countdown
  /// (\p CountdownCycles) on the calls of a stride that were not timed,
  /// and a rewritten dispatcher's state save and restore outside the
  /// runtime's timing (\p Dispatch per entry the runtime decided, \p Quick
  /// per quick one, which stands for an untimed call instead of the
  /// stub's countdown); 0 when not measured.
  double overheadCycles(double ProbeCycles, double CountdownCycles,
                        double Dispatch = 0, double Quick = 0) const {
    double Own = std::max(0.0, TimedCycles - (double)TimedCalls * ProbeCycles);
    double Skipped = RunCalls > TimedCalls ? double(RunCalls - TimedCalls) : 0;
    double Quicks = std::min(Skipped, double(QuickCalls));
    double Full =
        DispatchCalls > QuickCalls ? double(DispatchCalls - QuickCalls) : 0;
    return std::max(0.0, InsideCycles - Own) +
           (Skipped - Quicks) * CountdownCycles + Quicks * Quick +
           Full * Dispatch;
  }
  /// TimeCycles / the program's own time (decan's cost removed).
  std::optional<double> ProgramShare;
  /// True when decan's cost per call of this loop exceeds the loop's own:
  /// the part of it decan cannot time (the stub's call into the runtime)
  /// then weighs on the program's time, and ProgramShare is a lower bound.
  bool ProgramShareLowerBound = false;
  /// True when the calls are below the precision floor: timed alone, a call
  /// loses the overlap with the code around it that it has in the program,
  /// so ProgramShare is an estimate of unknown direction (docs/tool.md).
  bool ProgramShareApproximate = false;
  /// Mean trips per call: of the whole run, and of the weighted samples.
  std::optional<double> RunMeanTrips, SampleMeanTrips;
  /// Saturation intervals (paired runs).
  VariantArray<std::optional<Interval>> SatInterval;
  /// The headline verdict: a streams class (Algorithm 2), latency-bound,
  /// inconclusive, or none when LS/FP are not measured; its confidence
  /// (share of bootstrap replicates agreeing, 0 when unknown) and, when
  /// inconclusive, why and what would settle it.
  VerdictClass Verdict = VerdictClass::None;
  double VerdictConfidence = 0;
  std::string Inconclusive;
  /// The run in quarters (and what changed between them).
  std::vector<RunPart> Parts;
  VariantArray<std::optional<VariantStats>> Variants;
  VariantArray<std::optional<double>> Saturation;
  /// Algorithm 2 class; None when LS or FP is missing.
  StreamsClass Streams = StreamsClass::None;
  /// PAMDA overview (LS vs DL1); None when LS or DL1 is missing.
  MemoryCpuClass MemoryCpu = MemoryCpuClass::None;
  std::optional<double> DL1Gain;            ///< share x (1 - Sat(DL1))
  std::optional<double> DivGain;            ///< 1 - Sat(NO_DIV)
  std::optional<double> CtrlShare;          ///< Sat(CTRL)
  unsigned RankByShare = 0, RankByGain = 0; ///< 1-based; 0 = unranked
  /// What the best fix the analyses are sure of would save of the loop
  /// (1 - Sat(V) against V's reference, for the variant PredictedGainBy),
  /// unset where no variant's cost claim is settled (Ranking.cpp).
  std::optional<double> PredictedGain;
  std::string PredictedGainBy;
  /// Place in rankedLoops' order (what a fix would save of the program),
  /// 1-based; 0 = unranked.
  unsigned Rank = 0;
  std::vector<std::string> Diagnosis;
  std::vector<std::string> Warnings;
};

/// Saturation[REF] is not written: it is 1 wherever REF was measured, and
/// set so on reading.
llvm::json::Value toJSON(const LoopReport &X);
bool fromJSON(const llvm::json::Value &E, LoopReport &X, llvm::json::Path P);

/// What ran: one entry per raw report merged.
struct ProcessInfo {
  std::string Source; ///< raw report file name
  int64_t Pid = 0;
  /// Its parent when it started (decan, a launcher, a measured process that
  /// forked or started it); Forked: a fork without exec of a measured one.
  int64_t ParentPid = 0;
  bool Forked = false;
  std::string Program; ///< argv[0]
  std::optional<int64_t> Rank;
  std::string Host, Status, CrashSignal, CrashLoop, CrashVariant;
  std::string CrashRerunAfter; ///< crash in the original after this variant
  unsigned Run = 0; ///< program run (decan run --max-runs, per-variant modes)
  double WallCycles = 0, CpuCycles = 0; ///< the process's own time
  /// Its main thread's wait for a CPU other processes held (run queue).
  double WaitCycles = 0;
  unsigned Threads = 0;
  /// Its runtime counted decan's own cost on the threads' CPU (raw
  /// "decan_cost_clock": "cpu"), not on the wall clock with their waits.
  bool CostOnCpu = false;
};

llvm::json::Value toJSON(const ProcessInfo &X);
bool fromJSON(const llvm::json::Value &E, ProcessInfo &X, llvm::json::Path P);

/// A merged, analysed run.
struct Report {
  std::string Version; ///< of the runtime that measured (the tool's is in JSON)
  llvm::json::Object Machine;
  llvm::json::Object Config;
  double ProbeCycles = 0; ///< median cycles of an empty probed region
  /// What the probes add to a call longer than they are (less than
  /// ProbeCycles: a real body overlaps the start probe's TSC read); what is
  /// taken off each timed call. ProbeCycles where the runtime did not say.
  double ProbeCallCycles = 0;
  double SlotFixedCycles = 0; ///< fixed cost of a sampling slot
  /// The stub's countdown on a call that does not reach the runtime.
  double CountdownCycles = 0;
  /// A rewritten dispatcher's cost outside the runtime's timing: per entry
  /// the runtime decided, per quick one (0: none, or an older runtime).
  double DispatchCycles = 0, DispatchQuickCycles = 0;
  /// What decan added to loop \p L (LoopReport::overheadCycles at this
  /// run's rates).
  double overheadOf(const LoopReport &L) const {
    return L.overheadCycles(ProbeCallCycles, CountdownCycles, DispatchCycles,
                            DispatchQuickCycles);
  }
  /// The processes' own time (their threads' CPU time; wall time where
  /// the runtime did not read it) and what decan added to it (variant
  /// calls, probes, slots).
  double ProcessCycles = 0, OverheadCycles = 0;
  /// Part of the program's time in the measured loops (sum of shares).
  std::optional<double> Coverage;
  std::vector<ProcessInfo> Processes;
  std::vector<std::string> Warnings;
  /// Paths of the shared objects the processes loaded (the runtime's
  /// "objects"), first seen first; not part of the analysed JSON (what
  /// `decan run` hands to the rewriter, not a result).
  std::vector<std::string> Objects;
  /// The parallel runtime the processes loaded: "openmp" (libgomp, libomp
  /// or libiomp5 among Objects), "none" (objects listed, none of those), ""
  /// unknown (an older report, or no objects listed): what the thread
  /// advice may name (analyses/Threads.cpp).
  std::string ParallelRuntime;
  std::vector<LoopReport> Loops;

  const LoopReport *findLoop(llvm::StringRef Id) const;
};

/// Report::ParallelRuntime of a process set that loaded \p Objects.
std::string parallelRuntimeOf(llvm::ArrayRef<std::string> Objects);

/// Whether \p Function is an outlined OpenMP region (clang's
/// ".omp_outlined.", GCC's "._omp_fn.").
bool isOpenMPOutlined(llvm::StringRef Function);

/// The analysed JSON (docs/tool.md): {"tool":"decan", "format", "version"
/// (the tool's: which decan wrote it; not read back), "machine", ...,
/// "loops": [...]}.
llvm::json::Value toJSON(const Report &R);
bool fromJSON(const llvm::json::Value &E, Report &R, llvm::json::Path P);

/// The analysed format this tool writes; it reads the one before too.
inline constexpr const char *AnalysedFormat = "decan-report-2";
/// The raw format the runtime writes (runtime/src/ReportWriter.cpp);
/// RawMerger reads it and the two before it.
inline constexpr const char *RawFormat = "decan-raw-3";

/// The part of its run (0 to 1) that the main thread of a raw report's
/// \p Process waited for a CPU other processes held: its
/// "main_runqueue_wait_us" over "main_runqueue_run_us", the same interval
/// on the same clock (a runtime without the latter: over "wall_cycles" at
/// \p TscHz, a calibrated rate). Never above 1; none when unknown.
std::optional<double> runqueueWaitShare(const llvm::json::Object *Process,
                                        double TscHz);

/// Merges any number of raw reports (threads, ranks, re-runs; `decan-raw-1`
/// to `-3`) into one Report; RawMerger.cpp.
class RawMerger {
public:
  /// Adds one raw report; \p Source names it in errors and in the report.
  llvm::Error add(const llvm::json::Value &Raw, llvm::StringRef Source);
  /// Reads and adds a raw report file.
  llvm::Error addFile(llvm::StringRef Path);
  /// Number of reports added.
  unsigned size() const { return Count; }
  /// Tags the processes added from now on with program run \p R.
  void setRun(unsigned R) { Run = R; }
  /// Calls measured so far for (loop, variant), over all reports.
  uint64_t calls(llvm::StringRef Loop, Variant V) const;
  /// Loop ids seen so far.
  std::vector<std::string> loopIds() const;
  /// The merged report, statistics computed, not yet analysed.
  Report finish() const;

private:
  struct Pool {
    std::vector<double> Cycles, PerIter, Trips;
    std::map<std::string, std::vector<double>> Counters;
    uint64_t Calls = 0, Excluded = 0, Iterations = 0, TripsKnown = 0;
    uint64_t OnlineCount = 0;
    double OnlineMin = 0, OnlineMax = 0, OnlineSum = 0;
    std::vector<ThreadRow> Rows;
    std::vector<Pair> Pairs;
    std::array<uint64_t, NumPairKinds> PairKinds{};
  };
  struct LoopPool {
    LoopReport Info;        // identity fields only
    uint64_t CallsSeen = 0; // all calls, measured or not (runtime's count)
    uint64_t RunCalls = 0, RunIterations = 0, RunTripsKnown = 0;
    uint64_t Untimed = 0, VariantCalls = 0, Slots = 0;
    double RunCycles = 0, VariantCycles = 0, InsideCycles = 0;
    uint64_t DispatchCalls = 0, QuickCalls = 0;
    uint64_t TimedCalls = 0, MaxStride = 1;
    double TimedCycles = 0;
    std::optional<double> SingleCycles = 0; ///< unset once a thread lacks it
    uint64_t ProbedCalls = 0, ProbedVoluntary = 0, BlockedCalls = 0;
    double ProbedCycles = 0, ProbedCpuNs = 0, BlockedCycles = 0,
           BlockedCpuNs = 0;
    unsigned Threads = 0;
    std::array<RunPart, 4> Parts;
    VariantArray<std::optional<Pool>> Variants;
  };
  std::vector<LoopPool> Loops;
  /// Loops[LoopIndex[id]]: a library registers tens of thousands of loops.
  std::map<std::string, size_t, std::less<>> LoopIndex;
  std::vector<ProcessInfo> Processes;
  std::vector<std::string> Warnings, Objects;
  llvm::json::Object Machine, Config;
  std::string Version;
  std::vector<double> Probe, ProbeCall;
  double SlotFixed = 0, Countdown = 0, Dispatch = 0, DispatchQuick = 0;
  unsigned Count = 0, Run = 0;
  LoopPool &loop(llvm::StringRef Id, llvm::StringRef Object);
  ProcessInfo addProcess(const llvm::json::Object &Raw, llvm::StringRef Source);
  llvm::Error addLoop(const llvm::json::Object &Loop, const ProcessInfo &PI,
                      unsigned Format, llvm::StringRef Source);
  llvm::Error addThread(const llvm::json::Object &Thread, const ProcessInfo &PI,
                        LoopPool &LP, unsigned Format, llvm::StringRef Id,
                        llvm::StringRef Source);
  void addWholeRun(const llvm::json::Object &Thread, const ProcessInfo &PI,
                   LoopPool &LP, unsigned Format);
  llvm::Error addVariant(const llvm::json::Object &Samples, ThreadRow Row,
                         Pool &P, std::vector<ThreadSample> &Taken, bool IsRef,
                         const llvm::Twine &Where);
  static VariantStats stats(const Pool &P);
};

/// Reads an analysed report back, of this format or the one before
/// (`decan-report-1`, upgraded on reading).
llvm::Expected<Report> reportFromJSON(const llvm::json::Value &V);
/// Reads a file holding either an analysed report or a raw report (which is
/// merged and returned unanalysed: call analyse()).
llvm::Expected<Report> readReportFile(llvm::StringRef Path, bool &WasRaw);

/// The JSON document in file \p Path; errors name the file.
llvm::Expected<llvm::json::Value> readJSONFile(llvm::StringRef Path);

} // namespace decan::tool

#endif // DECAN_TOOL_REPORT_H
