//===- ReportJSON.cpp - The analysed JSON, each struct in and out ---------===//
//
// Part of decan. One toJSON/fromJSON pair per struct of Report.h, so each
// key is spelled once per direction, beside its other direction
// (docs/tool.md, "Analysed JSON"). Rules:
//
//  * every member is written, an unset optional as null; nothing written is
//    left unread, except the tool's "version" (which decan wrote the file)
//    and Saturation[REF] (1 by definition, set on reading);
//  * reading takes every key as optional (a missing key leaves the member's
//    default): a hand-written report of a few keys is a report. A present
//    key of the wrong type is an error naming its path;
//  * `decan-report-1` is upgraded to this format before reading
//    (upgradeReport1): its renamed keys, and the defaults its readers took
//    from other keys.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LoopNames.h"
#include "decan/Tool/Report.h"

using namespace llvm;

namespace decan::tool {

namespace {
/// A per-variant member (`std::array` by variant index) seen as the JSON
/// object {"REF": ..., "LS": ...} of the variants that have a value.
template <typename T> struct PerVariant { VariantArray<std::optional<T>> &Of; };

template <typename T>
json::Object perVariant(const VariantArray<std::optional<T>> &A) {
  json::Object O;
  for (Variant V : AllVariants)
    if (A[V])
      O[variantName(V)] = *A[V];
  return O;
}

template <typename T>
bool fromJSON(const json::Value &E, PerVariant<T> Out, json::Path P) {
  const json::Object *O = E.getAsObject();
  if (!O) {
    P.report("expected an object by variant");
    return false;
  }
  for (auto &X : Out.Of)
    X.reset();
  for (const auto &KV : *O) {
    // A name this decan does not know: a variant of a later one, skipped.
    std::optional<Variant> V = parseVariant(KV.first);
    if (!V)
      continue;
    T X{};
    if (!fromJSON(KV.second, X, P.field(KV.first)))
      return false;
    Out.Of[*V] = std::move(X);
  }
  return true;
}

/// {"key": value, ...} of a std::map (json::Value has no such constructor).
template <typename T> json::Object mapJSON(const std::map<std::string, T> &M) {
  json::Object O;
  for (const auto &[K, V] : M)
    O[K] = V;
  return O;
}

/// A member kept as the JSON object it was read from ("machine", "config").
struct AsObject {
  json::Object &Of;
};

bool fromJSON(const json::Value &E, AsObject Out, json::Path P) {
  if (const json::Object *O = E.getAsObject()) {
    Out.Of = *O;
    return true;
  }
  P.report("expected object");
  return false;
}

/// How many samples each PairKind took, as {"exact": n, ...}.
struct ByPairKind {
  std::array<uint64_t, NumPairKinds> &Of;
};

json::Object byPairKind(const std::array<uint64_t, NumPairKinds> &A) {
  json::Object O;
  for (unsigned K = 0; K < NumPairKinds; ++K)
    O[pairKindName(static_cast<PairKind>(K))] = A[K];
  return O;
}

bool fromJSON(const json::Value &E, ByPairKind Out, json::Path P) {
  // Keys from the kinds' name table: ObjectMapper takes literals only.
  const json::Object *O = E.getAsObject();
  if (!O) {
    P.report("expected an object by pair kind");
    return false;
  }
  for (unsigned K = 0; K < NumPairKinds; ++K) {
    StringRef Name = pairKindName(static_cast<PairKind>(K));
    if (const json::Value *N = O->get(Name))
      if (!json::fromJSON(*N, Out.Of[K], P.field(Name)))
        return false;
  }
  return true;
}

/// Maps the members of the object \p Key of \p E (a part of a struct
/// written as an object of its own: "whole_run", "verdict", ...) with
/// \p Map, when \p E has it.
template <typename F>
bool mapObject(const json::Value &E, StringLiteral Key, json::Path P, F Map) {
  const json::Object *O = E.getAsObject();
  const json::Value *Sub = O ? O->get(Key) : nullptr;
  if (!Sub || Sub->getAsNull())
    return true;
  json::ObjectMapper M(*Sub, P.field(Key));
  return M && Map(M);
}
} // namespace

//===----------------------------------------------------------------------===//
// Samples and rows
//===----------------------------------------------------------------------===//

json::Value toJSON(const Summary &X) {
  return json::Object{{"min", X.Min}, {"median", X.Median}, {"max", X.Max}};
}

bool fromJSON(const json::Value &E, Summary &X, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.mapOptional("min", X.Min) &&
         O.mapOptional("median", X.Median) && O.mapOptional("max", X.Max);
}

json::Value toJSON(const ThreadRow &X) {
  return json::Object{{"rank", X.Rank},     {"pid", X.Pid},
                      {"thread", X.Thread}, {"tid", X.Tid},
                      {"calls", X.Calls},   {"excluded", X.Excluded},
                      {"cycles", X.Cycles}};
}

bool fromJSON(const json::Value &E, ThreadRow &X, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.map("rank", X.Rank) && O.mapOptional("pid", X.Pid) &&
         O.mapOptional("thread", X.Thread) && O.mapOptional("tid", X.Tid) &&
         O.mapOptional("calls", X.Calls) &&
         O.mapOptional("excluded", X.Excluded) &&
         O.mapOptional("cycles", X.Cycles);
}

json::Value toJSON(const MemoryGroup &X) {
  return json::Object{
      {"name", X.Name},
      {"accesses", X.Accesses},
      {"saturation", json::Object{{"dl1", X.SatDL1},
                                  {"removed", X.SatRemoved},
                                  {"removed_vs_ls", X.SatRemovedVsLS}}}};
}

bool fromJSON(const json::Value &E, MemoryGroup &X, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.mapOptional("name", X.Name) &&
         O.mapOptional("accesses", X.Accesses) &&
         mapObject(E, "saturation", P, [&](json::ObjectMapper &S) {
           return S.map("dl1", X.SatDL1) && S.map("removed", X.SatRemoved) &&
                  S.map("removed_vs_ls", X.SatRemovedVsLS);
         });
}

json::Value toJSON(const ThreadTotal &X) {
  return json::Object{{"rank", X.Rank},
                      {"pid", X.Pid},
                      {"thread", X.Thread},
                      {"tid", X.Tid},
                      {"calls", X.Calls},
                      {"cycles", X.Cycles},
                      {"s2l_saturation", X.SatS2L}};
}

bool fromJSON(const json::Value &E, ThreadTotal &X, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.map("rank", X.Rank) && O.mapOptional("pid", X.Pid) &&
         O.mapOptional("thread", X.Thread) && O.mapOptional("tid", X.Tid) &&
         O.mapOptional("calls", X.Calls) && O.mapOptional("cycles", X.Cycles) &&
         O.map("s2l_saturation", X.SatS2L);
}

json::Value toJSON(const VariantStats &X) {
  return json::Object{{"calls", X.Calls},
                      {"excluded", X.Excluded},
                      {"iterations", X.Iterations},
                      {"trips_known", X.TripsKnown},
                      {"trips", json::Object{{"min", X.TripsMin},
                                             {"median", X.TripsMedian},
                                             {"max", X.TripsMax}}},
                      {"cycles", X.Cycles},
                      {"mean_cycles", X.MeanCycles},
                      {"cycles_per_iteration", X.CyclesPerIter},
                      {"stability", X.Stability},
                      {"counters", mapJSON(X.Counters)},
                      {"rows", X.Rows},
                      {"pairs", X.Pairs},
                      {"pair_kinds", byPairKind(X.PairKinds)},
                      {"outliers", X.Outliers}};
}

bool fromJSON(const json::Value &E, VariantStats &X, json::Path P) {
  json::ObjectMapper O(E, P);
  ByPairKind Kinds{X.PairKinds};
  return O && O.mapOptional("calls", X.Calls) &&
         O.mapOptional("excluded", X.Excluded) &&
         O.mapOptional("iterations", X.Iterations) &&
         O.mapOptional("trips_known", X.TripsKnown) &&
         mapObject(E, "trips", P,
                   [&](json::ObjectMapper &T) {
                     return T.mapOptional("min", X.TripsMin) &&
                            T.mapOptional("median", X.TripsMedian) &&
                            T.mapOptional("max", X.TripsMax);
                   }) &&
         O.mapOptional("cycles", X.Cycles) &&
         O.mapOptional("mean_cycles", X.MeanCycles) &&
         O.mapOptional("cycles_per_iteration", X.CyclesPerIter) &&
         O.mapOptional("stability", X.Stability) &&
         O.mapOptional("counters", X.Counters) &&
         O.mapOptional("rows", X.Rows) && O.mapOptional("pairs", X.Pairs) &&
         O.mapOptional("pair_kinds", Kinds) &&
         O.mapOptional("outliers", X.Outliers);
}

json::Value toJSON(const RunPart &X) {
  return json::Object{
      {"from", X.From},      {"to", X.To},
      {"calls", X.Calls},    {"iterations", X.Iterations},
      {"cycles", X.Cycles},  {"saturation", perVariant(X.Saturation)},
      {"streams", X.Streams}};
}

bool fromJSON(const json::Value &E, RunPart &X, json::Path P) {
  json::ObjectMapper O(E, P);
  PerVariant<double> Sat{X.Saturation};
  return O && O.mapOptional("from", X.From) && O.mapOptional("to", X.To) &&
         O.mapOptional("calls", X.Calls) &&
         O.mapOptional("iterations", X.Iterations) &&
         O.mapOptional("cycles", X.Cycles) &&
         O.mapOptional("saturation", Sat) &&
         O.mapOptional("streams", X.Streams);
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// What the loop is and what could run of it: the producer's and the
/// runtime's facts.
static json::Object loopIdentityJSON(const LoopReport &X) {
  return json::Object{{"id", X.Id},
                      {"name", X.name()},
                      {"object", X.Object},
                      {"function", X.Function},
                      {"file", X.File},
                      {"line", X.Line},
                      {"source", X.Source},
                      {"iteration_step", X.IterationStep},
                      {"variant_mask", X.VariantMask},
                      {"store_policy", mapJSON(X.StorePolicy)},
                      {"unavailable", mapJSON(X.Unavailable)},
                      {"unavailable_why", mapJSON(X.UnavailableWhy)},
                      {"capped_calls", mapJSON(X.CappedCalls)},
                      {"faulted", mapJSON(X.Faulted)},
                      {"bound", mapJSON(X.Bound)},
                      {"calls_deleted", X.CallsDeleted},
                      {"chased_loads", X.ChasedLoads},
                      {"dl1_memory_call_bytes", X.DL1MemoryCallBytes},
                      {"late", X.Late},
                      {"late_since_s", X.LateSince},
                      {"calls_before_late", X.CallsBeforeLate},
                      {"late_calls_seen", X.LateCallsSeen},
                      {"groups", X.Groups},
                      {"n_groups", X.NumGroups}};
}

static bool loopIdentityFromJSON(json::ObjectMapper &O, LoopReport &X) {
  return O.mapOptional("id", X.Id) && O.mapOptional("name", X.Name) &&
         O.mapOptional("object", X.Object) &&
         O.mapOptional("function", X.Function) &&
         O.mapOptional("file", X.File) && O.mapOptional("line", X.Line) &&
         O.mapOptional("source", X.Source) &&
         O.mapOptional("iteration_step", X.IterationStep) &&
         O.mapOptional("variant_mask", X.VariantMask) &&
         O.mapOptional("store_policy", X.StorePolicy) &&
         O.mapOptional("unavailable", X.Unavailable) &&
         O.mapOptional("unavailable_why", X.UnavailableWhy) &&
         O.mapOptional("capped_calls", X.CappedCalls) &&
         O.mapOptional("faulted", X.Faulted) &&
         O.mapOptional("bound", X.Bound) &&
         O.mapOptional("calls_deleted", X.CallsDeleted) &&
         O.mapOptional("chased_loads", X.ChasedLoads) &&
         O.mapOptional("dl1_memory_call_bytes", X.DL1MemoryCallBytes) &&
         O.mapOptional("late", X.Late) &&
         O.mapOptional("late_since_s", X.LateSince) &&
         O.mapOptional("calls_before_late", X.CallsBeforeLate) &&
         O.mapOptional("late_calls_seen", X.LateCallsSeen) &&
         O.mapOptional("groups", X.Groups) &&
         O.mapOptional("n_groups", X.NumGroups);
}

/// Every call of the loop while it was active (the runtime's "whole_run",
/// summed over threads), and its threads.
static json::Object wholeRunJSON(const LoopReport &X) {
  return json::Object{{"calls", X.RunCalls},
                      {"iterations", X.RunIterations},
                      {"trips_known", X.RunTripsKnown},
                      {"cycles", X.RunCycles},
                      {"untimed_calls", X.UntimedCalls},
                      {"variant_calls", X.VariantCalls},
                      {"variant_cycles", X.VariantCycles},
                      {"inside_cycles", X.InsideCycles},
                      {"dispatch_calls", X.DispatchCalls},
                      {"quick_calls", X.QuickCalls},
                      {"timed_calls", X.TimedCalls},
                      {"timed_cycles", X.TimedCycles},
                      {"single_cycles", X.SingleCycles},
                      {"probed_calls", X.ProbedCalls},
                      {"probed_cycles", X.ProbedCycles},
                      {"probed_cpu_cycles", X.ProbedCpuCycles},
                      {"probed_voluntary_switches", X.ProbedVoluntary},
                      {"blocked_calls", X.BlockedCalls},
                      {"blocked_cycles", X.BlockedCycles},
                      {"blocked_cpu_cycles", X.BlockedCpuCycles},
                      {"off_cpu", X.offCpuShare()},
                      {"blocked", X.blockedShare()},
                      {"max_stride", X.MaxStride},
                      {"slots", X.Slots},
                      {"threads", X.Threads},
                      {"mean_trips", X.RunMeanTrips},
                      {"sample_mean_trips", X.SampleMeanTrips}};
}

static bool wholeRunFromJSON(json::ObjectMapper &O, LoopReport &X) {
  return O.mapOptional("calls", X.RunCalls) &&
         O.mapOptional("iterations", X.RunIterations) &&
         O.mapOptional("trips_known", X.RunTripsKnown) &&
         O.mapOptional("cycles", X.RunCycles) &&
         O.mapOptional("untimed_calls", X.UntimedCalls) &&
         O.mapOptional("variant_calls", X.VariantCalls) &&
         O.mapOptional("variant_cycles", X.VariantCycles) &&
         O.mapOptional("inside_cycles", X.InsideCycles) &&
         O.mapOptional("dispatch_calls", X.DispatchCalls) &&
         O.mapOptional("quick_calls", X.QuickCalls) &&
         O.mapOptional("timed_calls", X.TimedCalls) &&
         O.mapOptional("timed_cycles", X.TimedCycles) &&
         O.mapOptional("single_cycles", X.SingleCycles) &&
         O.mapOptional("probed_calls", X.ProbedCalls) &&
         O.mapOptional("probed_cycles", X.ProbedCycles) &&
         O.mapOptional("probed_cpu_cycles", X.ProbedCpuCycles) &&
         O.mapOptional("probed_voluntary_switches", X.ProbedVoluntary) &&
         O.mapOptional("blocked_calls", X.BlockedCalls) &&
         O.mapOptional("blocked_cycles", X.BlockedCycles) &&
         O.mapOptional("blocked_cpu_cycles", X.BlockedCpuCycles) &&
         O.mapOptional("max_stride", X.MaxStride) &&
         O.mapOptional("slots", X.Slots) &&
         O.mapOptional("threads", X.Threads) &&
         O.map("mean_trips", X.RunMeanTrips) &&
         O.map("sample_mean_trips", X.SampleMeanTrips);
}

json::Value toJSON(const LoopReport &X) {
  // Saturation[REF] is 1 by definition (set on reading).
  auto Sat = X.Saturation;
  Sat[Variant::REF].reset();
  json::Object O = loopIdentityJSON(X);
  json::Object Measured{
      {"calls_seen", X.CallsSeen},
      {"time_cycles", X.TimeCycles},
      {"share", X.Share},
      {"whole_run", wholeRunJSON(X)},
      {"thread_totals", X.ThreadTotals},
      {"thread_spread", json::Object{{"std_over_mean", X.ThreadSpread},
                                     {"max_over_mean", X.ThreadMaxOverMean}}},
      {"program_share", X.ProgramShare},
      {"program_share_is_lower_bound", X.ProgramShareLowerBound},
      {"program_share_is_approximate", X.ProgramShareApproximate},
      {"variants", perVariant(X.Variants)},
      {"saturation", perVariant(Sat)},
      {"saturation_interval", perVariant(X.SatInterval)},
      {"verdict", json::Object{{"class", X.Verdict},
                               {"confidence", X.VerdictConfidence},
                               {"inconclusive", X.Inconclusive}}},
      {"parts", X.Parts},
      {"streams", X.Streams},
      {"memory_cpu", X.MemoryCpu},
      {"dl1_gain", X.DL1Gain},
      {"div_gain", X.DivGain},
      {"ctrl_share", X.CtrlShare},
      {"rank_by_share", X.RankByShare},
      {"rank_by_dl1_gain", X.RankByGain},
      {"predicted_gain", X.PredictedGain},
      {"predicted_gain_by", X.PredictedGainBy},
      {"rank", X.Rank},
      {"diagnosis", X.Diagnosis},
      {"warnings", X.Warnings}};
  for (auto &KV : Measured)
    O[KV.first] = std::move(KV.second);
  return O;
}

bool fromJSON(const json::Value &E, LoopReport &X, json::Path P) {
  json::ObjectMapper O(E, P);
  PerVariant<VariantStats> Vars{X.Variants};
  PerVariant<double> Sat{X.Saturation};
  PerVariant<Interval> SatI{X.SatInterval};
  bool OK =
      O && loopIdentityFromJSON(O, X) &&
      O.mapOptional("calls_seen", X.CallsSeen) &&
      O.mapOptional("time_cycles", X.TimeCycles) &&
      O.mapOptional("share", X.Share) &&
      mapObject(
          E, "whole_run", P,
          [&](json::ObjectMapper &W) { return wholeRunFromJSON(W, X); }) &&
      O.mapOptional("thread_totals", X.ThreadTotals) &&
      mapObject(E, "thread_spread", P,
                [&](json::ObjectMapper &S) {
                  return S.map("std_over_mean", X.ThreadSpread) &&
                         S.map("max_over_mean", X.ThreadMaxOverMean);
                }) &&
      O.map("program_share", X.ProgramShare) &&
      O.mapOptional("program_share_is_lower_bound", X.ProgramShareLowerBound) &&
      O.mapOptional("program_share_is_approximate",
                    X.ProgramShareApproximate) &&
      O.mapOptional("variants", Vars) && O.mapOptional("saturation", Sat) &&
      O.mapOptional("saturation_interval", SatI) &&
      mapObject(E, "verdict", P,
                [&](json::ObjectMapper &V) {
                  return V.mapOptional("class", X.Verdict) &&
                         V.mapOptional("confidence", X.VerdictConfidence) &&
                         V.mapOptional("inconclusive", X.Inconclusive);
                }) &&
      O.mapOptional("parts", X.Parts) && O.mapOptional("streams", X.Streams) &&
      O.mapOptional("memory_cpu", X.MemoryCpu) &&
      O.map("dl1_gain", X.DL1Gain) && O.map("div_gain", X.DivGain) &&
      O.map("ctrl_share", X.CtrlShare) &&
      O.mapOptional("rank_by_share", X.RankByShare) &&
      O.mapOptional("rank_by_dl1_gain", X.RankByGain) &&
      O.map("predicted_gain", X.PredictedGain) &&
      O.mapOptional("predicted_gain_by", X.PredictedGainBy) &&
      O.mapOptional("rank", X.Rank) &&
      O.mapOptional("diagnosis", X.Diagnosis) &&
      O.mapOptional("warnings", X.Warnings);
  if (OK && X.Variants[Variant::REF])
    X.Saturation[Variant::REF] = 1.0;
  return OK;
}

//===----------------------------------------------------------------------===//
// Processes and the report
//===----------------------------------------------------------------------===//

json::Value toJSON(const ProcessInfo &X) {
  json::Value Crash = nullptr;
  if (!X.CrashSignal.empty())
    Crash = json::Object{{"signal", X.CrashSignal},
                         {"loop", X.CrashLoop},
                         {"variant", X.CrashVariant},
                         {"rerun_after", X.CrashRerunAfter}};
  return json::Object{{"source", X.Source},
                      {"pid", X.Pid},
                      {"ppid", X.ParentPid},
                      {"forked", X.Forked},
                      {"program", X.Program},
                      {"rank", X.Rank},
                      {"host", X.Host},
                      {"status", X.Status},
                      {"crash", std::move(Crash)},
                      {"run", X.Run},
                      {"wall_cycles", X.WallCycles},
                      {"cpu_cycles", X.CpuCycles},
                      {"runqueue_wait_cycles", X.WaitCycles},
                      {"threads", X.Threads},
                      {"decan_cost_on_cpu", X.CostOnCpu}};
}

bool fromJSON(const json::Value &E, ProcessInfo &X, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.mapOptional("source", X.Source) &&
         O.mapOptional("pid", X.Pid) && O.mapOptional("ppid", X.ParentPid) &&
         O.mapOptional("forked", X.Forked) &&
         O.mapOptional("program", X.Program) && O.map("rank", X.Rank) &&
         O.mapOptional("host", X.Host) && O.mapOptional("status", X.Status) &&
         mapObject(E, "crash", P,
                   [&](json::ObjectMapper &C) {
                     return C.mapOptional("signal", X.CrashSignal) &&
                            C.mapOptional("loop", X.CrashLoop) &&
                            C.mapOptional("variant", X.CrashVariant) &&
                            C.mapOptional("rerun_after", X.CrashRerunAfter);
                   }) &&
         O.mapOptional("run", X.Run) &&
         O.mapOptional("wall_cycles", X.WallCycles) &&
         O.mapOptional("cpu_cycles", X.CpuCycles) &&
         O.mapOptional("runqueue_wait_cycles", X.WaitCycles) &&
         O.mapOptional("threads", X.Threads) &&
         O.mapOptional("decan_cost_on_cpu", X.CostOnCpu);
}

json::Value toJSON(const Report &X) {
  return json::Object{
      {"tool", "decan"},
      {"format", AnalysedFormat},
      {"version", DECAN_TOOL_VERSION},
      {"runtime_version", X.Version},
      {"machine", json::Object(X.Machine)},
      {"config", json::Object(X.Config)},
      // The runtime's "probe", its medians over processes, in cycles.
      {"probe", json::Object{{"empty_region_cycles", X.ProbeCycles},
                             {"call_cost_cycles", X.ProbeCallCycles},
                             {"slot_fixed_cycles", X.SlotFixedCycles},
                             {"countdown_cycles", X.CountdownCycles},
                             {"dispatch_cycles", X.DispatchCycles},
                             {"dispatch_quick_cycles", X.DispatchQuickCycles}}},
      {"process_cycles", X.ProcessCycles},
      {"overhead_cycles", X.OverheadCycles},
      {"coverage", X.Coverage},
      {"parallel_runtime", X.ParallelRuntime},
      {"processes", X.Processes},
      {"warnings", X.Warnings},
      {"loops", X.Loops}};
}

bool fromJSON(const json::Value &E, Report &X, json::Path P) {
  json::ObjectMapper O(E, P);
  AsObject Machine{X.Machine}, Config{X.Config};
  bool Ok =
      O && O.mapOptional("runtime_version", X.Version) &&
      O.mapOptional("machine", Machine) && O.mapOptional("config", Config) &&
      mapObject(
          E, "probe", P,
          [&](json::ObjectMapper &Pr) {
            return Pr.mapOptional("empty_region_cycles", X.ProbeCycles) &&
                   Pr.mapOptional("call_cost_cycles", X.ProbeCallCycles) &&
                   Pr.mapOptional("slot_fixed_cycles", X.SlotFixedCycles) &&
                   Pr.mapOptional("countdown_cycles", X.CountdownCycles) &&
                   Pr.mapOptional("dispatch_cycles", X.DispatchCycles) &&
                   Pr.mapOptional("dispatch_quick_cycles",
                                  X.DispatchQuickCycles);
          }) &&
      O.mapOptional("process_cycles", X.ProcessCycles) &&
      O.mapOptional("overhead_cycles", X.OverheadCycles) &&
      O.map("coverage", X.Coverage) &&
      O.mapOptional("parallel_runtime", X.ParallelRuntime) &&
      O.mapOptional("processes", X.Processes) &&
      O.mapOptional("warnings", X.Warnings) &&
      // A report without loops is not a report of anything.
      O.map("loops", X.Loops);
  // Reports from before loops had names.
  if (Ok && any_of(X.Loops, [](const LoopReport &L) { return L.Name.empty(); }))
    nameLoops(X.Loops);
  return Ok;
}

//===----------------------------------------------------------------------===//
// Versions
//===----------------------------------------------------------------------===//

/// `decan-report-1` as `decan-report-2`: the probe's four numbers in one
/// "probe" object, a variant's "trips.known_calls" as "trips_known" (the
/// whole run's name), and the defaults that format's readers took from
/// other keys when an older writer left them out.
static void upgradeReport1(json::Object &R) {
  json::Array NoLoops;
  json::Object NoVariants;
  json::Object Probe;
  Probe["empty_region_cycles"] = R.getNumber("probe_cycles").value_or(0);
  Probe["call_cost_cycles"] =
      R.getNumber("probe_call_cycles")
          .value_or(*Probe.getNumber("empty_region_cycles"));
  Probe["slot_fixed_cycles"] = R.getNumber("slot_fixed_cycles").value_or(0);
  Probe["countdown_cycles"] = R.getNumber("countdown_cycles").value_or(0);
  for (StringRef K : {"probe_cycles", "probe_call_cycles", "slot_fixed_cycles",
                      "countdown_cycles"})
    R.erase(K);
  R["probe"] = std::move(Probe);
  if (!R.get("runtime_version"))
    if (std::optional<StringRef> V = R.getString("version"))
      R["runtime_version"] = *V;
  json::Array *Loops = R.getArray("loops");
  for (json::Value &LV : Loops ? *Loops : NoLoops) {
    json::Object *L = LV.getAsObject();
    if (!L)
      continue;
    if (json::Object *Run = L->getObject("whole_run")) {
      if (!Run->get("timed_calls") && Run->get("calls"))
        (*Run)["timed_calls"] = *Run->get("calls");
      if (!Run->get("timed_cycles") && Run->get("cycles"))
        (*Run)["timed_cycles"] = *Run->get("cycles");
    }
    json::Object *Vars = L->getObject("variants");
    for (auto &KV : Vars ? *Vars : NoVariants) {
      json::Object *S = KV.second.getAsObject();
      if (!S)
        continue;
      if (json::Object *T = S->getObject("trips"))
        if (json::Value *K = T->get("known_calls")) {
          (*S)["trips_known"] = std::move(*K);
          T->erase("known_calls");
        }
      if (!S->get("mean_cycles"))
        if (json::Object *C = S->getObject("cycles"))
          if (std::optional<double> M = C->getNumber("median"))
            (*S)["mean_cycles"] = *M;
    }
  }
  R["format"] = AnalysedFormat;
}

Expected<Report> reportFromJSON(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O || O->getString("tool") != "decan")
    return createStringError("not a decan report (no \"tool\":\"decan\")");
  std::optional<StringRef> Format = O->getString("format");
  json::Value Upgraded = nullptr;
  const json::Value *In = &V;
  // Reports from before the format had a name read as its first version.
  if (!Format || *Format == "decan-report-1") {
    Upgraded = json::Object(*O);
    upgradeReport1(*Upgraded.getAsObject());
    In = &Upgraded;
  } else if (*Format != AnalysedFormat) {
    return createStringError("unknown report format '%s' (this decan reads "
                             "decan-report-1 and %s)",
                             Format->str().c_str(), AnalysedFormat);
  }
  Report R;
  json::Path::Root Root("report");
  if (!fromJSON(*In, R, Root))
    return createStringError("a decan report that does not read: %s",
                             toString(Root.getError()).c_str());
  return R;
}

} // namespace decan::tool
