//===- ReportJSONTest.cpp - The analysed JSON: round trip and schema ------===//
//
// Part of decan. A Report with every member set to a value no reader would
// default to goes out and back in: a member left out of toJSON or fromJSON
// loses its value and the second JSON differs from the first. The keys
// written are the documented list (docs/tool.md), and the structs' sizes
// catch a member added without either.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <set>

using namespace decan::tool;
using namespace llvm;

namespace {

/// Distinct values, none a default: a member that comes back as its
/// default, or as another member's value, is seen.
struct Filler {
  double N = 0;
  double real() { return N += 1.25; }
  uint64_t count() { return static_cast<uint64_t>(N += 3); }
  std::string text() { return "t" + std::to_string(count()); }
};

Summary summary(Filler &F) { return {F.real(), F.real(), F.real()}; }

VariantStats variantStats(Filler &F) {
  VariantStats S;
  S.Calls = F.count();
  S.Excluded = F.count();
  S.Iterations = F.count();
  S.TripsKnown = F.count();
  S.TripsMedian = F.real();
  S.TripsMin = F.count();
  S.TripsMax = F.count();
  S.MeanCycles = F.real();
  S.Cycles = summary(F);
  S.CyclesPerIter = summary(F);
  S.Stability = F.real();
  S.Counters["<event>"] = summary(F);
  ThreadRow Row;
  Row.Rank = static_cast<int64_t>(F.count());
  Row.Pid = F.count();
  Row.Thread = F.count();
  Row.Tid = F.count();
  Row.Calls = F.count();
  Row.Excluded = F.count();
  Row.Cycles = summary(F);
  S.Rows = {Row};
  Pair P;
  P.Var = F.real();
  P.Ref = F.real();
  P.Work = F.real();
  P.Weight = F.real();
  P.Call = F.count();
  P.RunPos = F.real();
  S.Pairs = {P};
  for (uint64_t &K : S.PairKinds)
    K = F.count();
  S.Outliers = F.count();
  return S;
}

/// Members about what the loop is and what of it could run.
void fillIdentity(LoopReport &L, Filler &F) {
  L.Id = F.text();
  L.Name = F.text();
  L.Object = F.text();
  L.Function = F.text();
  L.File = F.text();
  L.Line = static_cast<unsigned>(F.count());
  L.Source = F.text();
  L.IterationStep = static_cast<unsigned>(F.count());
  L.VariantMask = static_cast<uint32_t>(F.count());
  L.StorePolicy["LS"] = F.text();
  L.Unavailable["DL1"] = F.text();
  L.UnavailableWhy["DL1"] = F.text();
  L.CappedCalls["LS"] = F.count();
  L.Faulted["FP"] = F.text();
  L.Bound["S2L"] = F.text();
  L.CallsDeleted = {F.text()};
  L.ChasedLoads = static_cast<unsigned>(F.count());
  L.DL1MemoryCallBytes = static_cast<unsigned>(F.count());
  L.Late = F.text();
  L.LateSince = F.real();
  L.CallsBeforeLate = F.count();
  L.LateCallsSeen = F.count();
  MemoryGroup G;
  G.Name = F.text();
  G.Accesses = static_cast<unsigned>(F.count());
  G.SatDL1 = F.real();
  G.SatRemoved = F.real();
  G.SatRemovedVsLS = F.real();
  L.Groups = {G};
  L.NumGroups = static_cast<unsigned>(F.count());
}

/// Members about the whole run and the threads.
void fillWholeRun(LoopReport &L, Filler &F) {
  L.CallsSeen = F.count();
  L.TimeCycles = F.real();
  L.Share = F.real();
  L.RunCalls = F.count();
  L.RunIterations = F.count();
  L.RunTripsKnown = F.count();
  L.UntimedCalls = F.count();
  L.VariantCalls = F.count();
  L.Slots = F.count();
  L.RunCycles = F.real();
  L.VariantCycles = F.real();
  L.InsideCycles = F.real();
  L.DispatchCalls = F.count();
  L.QuickCalls = F.count();
  L.TimedCalls = F.count();
  L.MaxStride = F.count();
  L.TimedCycles = F.real();
  L.SingleCycles = F.real();
  L.ProbedCalls = F.count();
  L.ProbedVoluntary = F.count();
  L.ProbedCycles = F.real();
  L.ProbedCpuCycles = F.real();
  L.BlockedCalls = F.count();
  L.BlockedCycles = F.real();
  L.BlockedCpuCycles = F.real();
  L.Threads = static_cast<unsigned>(F.count());
  ThreadTotal T;
  T.Rank = static_cast<int64_t>(F.count());
  T.Pid = F.count();
  T.Thread = F.count();
  T.Tid = F.count();
  T.Calls = F.count();
  T.Cycles = F.real();
  T.SatS2L = F.real();
  L.ThreadTotals = {T};
  L.ThreadSpread = F.real();
  L.ThreadMaxOverMean = F.real();
  L.ProgramShare = F.real();
  L.ProgramShareLowerBound = true;
  L.ProgramShareApproximate = true;
  L.RunMeanTrips = F.real();
  L.SampleMeanTrips = F.real();
}

/// What the analyses made of the loop.
void fillAnalyses(LoopReport &L, Filler &F) {
  L.SatInterval[Variant::LS] =
      Interval{F.real(), F.real(), F.real(), static_cast<unsigned>(F.count())};
  L.Verdict = VerdictClass::MemoryBound;
  L.VerdictConfidence = F.real();
  L.Inconclusive = F.text();
  RunPart Q;
  Q.From = F.real();
  Q.To = F.real();
  Q.Calls = F.count();
  Q.Iterations = F.real();
  Q.Cycles = F.real();
  Q.Saturation[Variant::LS] = F.real();
  Q.Streams = StreamsClass::FPBound;
  L.Parts = {Q};
  L.Variants[Variant::REF] = variantStats(F);
  L.Variants[Variant::LS] = variantStats(F);
  L.Saturation[Variant::REF] = 1; // what reading sets wherever REF was measured
  L.Saturation[Variant::LS] = F.real();
  L.Streams = StreamsClass::MemoryBound;
  L.MemoryCpu = MemoryCpuClass::CpuBound;
  L.DL1Gain = F.real();
  L.DivGain = F.real();
  L.CtrlShare = F.real();
  L.RankByShare = static_cast<unsigned>(F.count());
  L.RankByGain = static_cast<unsigned>(F.count());
  L.PredictedGain = F.real();
  L.PredictedGainBy = F.text();
  L.Rank = static_cast<unsigned>(F.count());
  L.Diagnosis = {F.text()};
  L.Warnings = {F.text()};
}

/// A Report with every member that the analysed JSON carries set.
Report fullReport() {
  Filler F;
  Report R;
  R.Version = F.text();
  R.Machine["cpu"] = F.text();
  R.Config["mode"] = F.text();
  R.ProbeCycles = F.real();
  R.ProbeCallCycles = F.real();
  R.SlotFixedCycles = F.real();
  R.CountdownCycles = F.real();
  R.DispatchCycles = F.real();
  R.DispatchQuickCycles = F.real();
  R.ProcessCycles = F.real();
  R.OverheadCycles = F.real();
  R.Coverage = F.real();
  R.ParallelRuntime = F.text();
  ProcessInfo P;
  P.Source = F.text();
  P.Pid = static_cast<int64_t>(F.count());
  P.ParentPid = static_cast<int64_t>(F.count());
  P.Forked = true;
  P.Program = F.text();
  P.Rank = static_cast<int64_t>(F.count());
  P.Host = F.text();
  P.Status = F.text();
  P.CrashSignal = F.text();
  P.CrashLoop = F.text();
  P.CrashVariant = F.text();
  P.CrashRerunAfter = F.text();
  P.Run = static_cast<unsigned>(F.count());
  P.WallCycles = F.real();
  P.CpuCycles = F.real();
  P.Threads = static_cast<unsigned>(F.count());
  R.Processes = {P};
  R.Warnings = {F.text()};
  LoopReport L;
  fillIdentity(L, F);
  fillWholeRun(L, F);
  fillAnalyses(L, F);
  R.Loops = {L};
  return R;
}

std::string text(const json::Value &V) { return formatv("{0:2}", V).str(); }

/// Every key path of \p V: objects' keys joined by '.', array elements as
/// "[]", variant names as "<V>".
void keyPaths(const json::Value &V, const std::string &At,
              std::set<std::string> &Out) {
  if (const json::Object *O = V.getAsObject())
    for (const auto &KV : *O) {
      std::string K =
          At + "." + (parseVariant(KV.first) ? "<V>" : KV.first.str());
      Out.insert(K);
      keyPaths(KV.second, K, Out);
    }
  else if (const json::Array *A = V.getAsArray())
    for (const json::Value &E : *A)
      if (E.getAsObject() || E.getAsArray())
        keyPaths(E, At + "[]", Out);
}

TEST(AnalysedJSON, EveryMemberRoundTrips) {
  Report R = fullReport();
  json::Value Once = toJSON(R);
  // Through text, as `decan report` reads a file.
  auto Parsed = json::parse(text(Once));
  ASSERT_TRUE(bool(Parsed)) << toString(Parsed.takeError());
  auto Back = reportFromJSON(*Parsed);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(text(toJSON(*Back)), text(Once));
  // And members the JSON shows only through others.
  EXPECT_EQ(Back->Loops[0].Saturation[Variant::REF], 1.0);
  EXPECT_EQ(Back->Version, R.Version);
}

/// docs/tool.md, "Analysed JSON": every key path the writer may write (a
/// key added here is a key documented there).
const std::set<std::string> DocumentedKeys = {
    ".tool",
    ".format",
    ".version",
    ".runtime_version",
    ".machine",
    ".machine.cpu",
    ".config",
    ".config.mode",
    ".probe",
    ".probe.empty_region_cycles",
    ".probe.call_cost_cycles",
    ".probe.slot_fixed_cycles",
    ".probe.countdown_cycles",
    ".probe.dispatch_cycles",
    ".probe.dispatch_quick_cycles",
    ".process_cycles",
    ".overhead_cycles",
    ".coverage",
    ".parallel_runtime",
    ".processes",
    ".processes[].source",
    ".processes[].pid",
    ".processes[].ppid",
    ".processes[].forked",
    ".processes[].program",
    ".processes[].rank",
    ".processes[].host",
    ".processes[].status",
    ".processes[].crash",
    ".processes[].crash.signal",
    ".processes[].crash.loop",
    ".processes[].crash.variant",
    ".processes[].crash.rerun_after",
    ".processes[].run",
    ".processes[].wall_cycles",
    ".processes[].cpu_cycles",
    ".processes[].runqueue_wait_cycles",
    ".processes[].decan_cost_on_cpu",
    ".processes[].threads",
    ".warnings",
    ".loops",
    ".loops[].id",
    ".loops[].name",
    ".loops[].object",
    ".loops[].function",
    ".loops[].file",
    ".loops[].line",
    ".loops[].source",
    ".loops[].iteration_step",
    ".loops[].variant_mask",
    ".loops[].store_policy",
    ".loops[].store_policy.<V>",
    ".loops[].unavailable",
    ".loops[].unavailable.<V>",
    ".loops[].unavailable_why",
    ".loops[].unavailable_why.<V>",
    ".loops[].capped_calls",
    ".loops[].capped_calls.<V>",
    ".loops[].faulted",
    ".loops[].faulted.<V>",
    ".loops[].bound",
    ".loops[].bound.<V>",
    ".loops[].calls_deleted",
    ".loops[].chased_loads",
    ".loops[].dl1_memory_call_bytes",
    ".loops[].late",
    ".loops[].late_since_s",
    ".loops[].calls_before_late",
    ".loops[].late_calls_seen",
    ".loops[].groups",
    ".loops[].groups[].name",
    ".loops[].groups[].accesses",
    ".loops[].groups[].saturation",
    ".loops[].groups[].saturation.dl1",
    ".loops[].groups[].saturation.removed",
    ".loops[].groups[].saturation.removed_vs_ls",
    ".loops[].n_groups",
    ".loops[].calls_seen",
    ".loops[].time_cycles",
    ".loops[].share",
    ".loops[].whole_run",
    ".loops[].whole_run.calls",
    ".loops[].whole_run.iterations",
    ".loops[].whole_run.trips_known",
    ".loops[].whole_run.cycles",
    ".loops[].whole_run.untimed_calls",
    ".loops[].whole_run.variant_calls",
    ".loops[].whole_run.variant_cycles",
    ".loops[].whole_run.inside_cycles",
    ".loops[].whole_run.dispatch_calls",
    ".loops[].whole_run.quick_calls",
    ".loops[].whole_run.timed_calls",
    ".loops[].whole_run.single_cycles",
    ".loops[].whole_run.timed_cycles",
    ".loops[].whole_run.probed_calls",
    ".loops[].whole_run.probed_cycles",
    ".loops[].whole_run.probed_cpu_cycles",
    ".loops[].whole_run.probed_voluntary_switches",
    ".loops[].whole_run.blocked_calls",
    ".loops[].whole_run.blocked_cycles",
    ".loops[].whole_run.blocked_cpu_cycles",
    ".loops[].whole_run.off_cpu",
    ".loops[].whole_run.blocked",
    ".loops[].whole_run.max_stride",
    ".loops[].whole_run.slots",
    ".loops[].whole_run.threads",
    ".loops[].whole_run.mean_trips",
    ".loops[].whole_run.sample_mean_trips",
    ".loops[].thread_totals",
    ".loops[].thread_totals[].rank",
    ".loops[].thread_totals[].pid",
    ".loops[].thread_totals[].thread",
    ".loops[].thread_totals[].tid",
    ".loops[].thread_totals[].calls",
    ".loops[].thread_totals[].cycles",
    ".loops[].thread_totals[].s2l_saturation",
    ".loops[].thread_spread",
    ".loops[].thread_spread.std_over_mean",
    ".loops[].thread_spread.max_over_mean",
    ".loops[].program_share",
    ".loops[].program_share_is_lower_bound",
    ".loops[].program_share_is_approximate",
    ".loops[].variants",
    ".loops[].variants.<V>",
    ".loops[].variants.<V>.calls",
    ".loops[].variants.<V>.excluded",
    ".loops[].variants.<V>.iterations",
    ".loops[].variants.<V>.trips_known",
    ".loops[].variants.<V>.trips",
    ".loops[].variants.<V>.trips.min",
    ".loops[].variants.<V>.trips.median",
    ".loops[].variants.<V>.trips.max",
    ".loops[].variants.<V>.cycles",
    ".loops[].variants.<V>.cycles.min",
    ".loops[].variants.<V>.cycles.median",
    ".loops[].variants.<V>.cycles.max",
    ".loops[].variants.<V>.mean_cycles",
    ".loops[].variants.<V>.cycles_per_iteration",
    ".loops[].variants.<V>.cycles_per_iteration.min",
    ".loops[].variants.<V>.cycles_per_iteration.median",
    ".loops[].variants.<V>.cycles_per_iteration.max",
    ".loops[].variants.<V>.stability",
    ".loops[].variants.<V>.counters",
    ".loops[].variants.<V>.counters.<event>",
    ".loops[].variants.<V>.counters.<event>.min",
    ".loops[].variants.<V>.counters.<event>.median",
    ".loops[].variants.<V>.counters.<event>.max",
    ".loops[].variants.<V>.rows",
    ".loops[].variants.<V>.rows[].rank",
    ".loops[].variants.<V>.rows[].pid",
    ".loops[].variants.<V>.rows[].thread",
    ".loops[].variants.<V>.rows[].tid",
    ".loops[].variants.<V>.rows[].calls",
    ".loops[].variants.<V>.rows[].excluded",
    ".loops[].variants.<V>.rows[].cycles",
    ".loops[].variants.<V>.rows[].cycles.min",
    ".loops[].variants.<V>.rows[].cycles.median",
    ".loops[].variants.<V>.rows[].cycles.max",
    ".loops[].variants.<V>.pairs",
    ".loops[].variants.<V>.pair_kinds",
    ".loops[].variants.<V>.pair_kinds.exact",
    ".loops[].variants.<V>.pair_kinds.interpolated",
    ".loops[].variants.<V>.pair_kinds.unchecked",
    ".loops[].variants.<V>.pair_kinds.trips-differ",
    ".loops[].variants.<V>.pair_kinds.no-equal-work",
    ".loops[].variants.<V>.pair_kinds.switched",
    ".loops[].variants.<V>.outliers",
    ".loops[].saturation",
    ".loops[].saturation.<V>",
    ".loops[].saturation_interval",
    ".loops[].saturation_interval.<V>",
    ".loops[].saturation_interval.<V>.value",
    ".loops[].saturation_interval.<V>.lo",
    ".loops[].saturation_interval.<V>.hi",
    ".loops[].saturation_interval.<V>.pairs",
    ".loops[].verdict",
    ".loops[].verdict.class",
    ".loops[].verdict.confidence",
    ".loops[].verdict.inconclusive",
    ".loops[].parts",
    ".loops[].parts[].from",
    ".loops[].parts[].to",
    ".loops[].parts[].calls",
    ".loops[].parts[].iterations",
    ".loops[].parts[].cycles",
    ".loops[].parts[].saturation",
    ".loops[].parts[].saturation.<V>",
    ".loops[].parts[].streams",
    ".loops[].streams",
    ".loops[].memory_cpu",
    ".loops[].dl1_gain",
    ".loops[].div_gain",
    ".loops[].ctrl_share",
    ".loops[].rank_by_share",
    ".loops[].rank_by_dl1_gain",
    ".loops[].predicted_gain",
    ".loops[].predicted_gain_by",
    ".loops[].rank",
    ".loops[].diagnosis",
    ".loops[].warnings"};

TEST(AnalysedJSON, WritesTheDocumentedKeys) {
  std::set<std::string> Keys;
  keyPaths(toJSON(fullReport()), "", Keys);
  for (const std::string &K : Keys)
    EXPECT_TRUE(DocumentedKeys.count(K)) << "written, not documented: " << K;
  for (const std::string &K : DocumentedKeys)
    EXPECT_TRUE(Keys.count(K)) << "documented, not written: " << K;
}

/// A `decan-report-1` file as decan 0.1.0 wrote it, from a runtime of
/// before the probe's call cost and the timed calls (their keys absent).
const char *Report1 = R"({"tool":"decan","format":"decan-report-1",
  "version":"0.1.0","machine":{"cpu":"Test CPU"},"config":{"mode":"rotate"},
  "probe_cycles":52,"slot_fixed_cycles":2500,"countdown_cycles":2.5,
  "process_cycles":1e6,"overhead_cycles":1e4,"coverage":0.5,
  "processes":[{"source":"decan.7.json","pid":7,"rank":null,"host":"h",
    "status":"complete","wall_cycles":1e6,"cpu_cycles":9e5,"threads":1,
    "run":0}],
  "warnings":[],
  "loops":[{"id":"dot:L0","function":"dot","file":"dot.c","line":7,
    "variant_mask":3,"store_policy":{"LS":"as-load"},"unavailable":{},
    "time_cycles":5e5,"share":1,"program_share":0.5,
    "whole_run":{"calls":40,"iterations":4000,"trips_known":40,
      "cycles":5e5,"untimed_calls":0,"variant_calls":10,
      "variant_cycles":1000,"slots":12,"threads":1,"mean_trips":100},
    "variants":{"REF":{"calls":3,"excluded":0,"iterations":300,
      "trips":{"known_calls":3,"min":100,"median":100,"max":100},
      "cycles":{"min":1000,"median":1100,"max":1200},
      "cycles_per_iteration":{"min":10,"median":11,"max":12},
      "stability":0.1,"counters":{},
      "rows":[{"rank":null,"pid":7,"thread":0,"tid":8,"calls":3,
               "excluded":0,"cycles":{"min":1000,"median":1100,"max":1200}}],
      "pairs":[[1000,1000,100,1,3,0.5]],
      "pair_kinds":{"exact":1,"interpolated":0,"unchecked":0,
        "trips-differ":0,"no-equal-work":0,"switched":0}}},
    "saturation":{},"streams":"","rank_by_share":1,"rank_by_dl1_gain":1,
    "diagnosis":[],"warnings":[]}]})";

TEST(AnalysedJSON, ReadsTheFormatBefore) {
  SmallString<64> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("report1", "json", Path));
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Report1;
  }
  bool WasRaw = true;
  auto R = readReportFile(Path, WasRaw);
  sys::fs::remove(Path);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_FALSE(WasRaw);
  EXPECT_EQ(R->Version, "0.1.0") << "the runtime's, as \"version\" was";
  EXPECT_EQ(R->ProbeCycles, 52);
  EXPECT_EQ(R->ProbeCallCycles, 52) << "the empty region's, as before";
  EXPECT_EQ(R->SlotFixedCycles, 2500);
  EXPECT_EQ(R->CountdownCycles, 2.5);
  ASSERT_EQ(R->Loops.size(), 1u);
  const LoopReport &L = R->Loops[0];
  EXPECT_EQ(L.TimedCalls, 40u) << "every call timed, as before";
  EXPECT_EQ(L.TimedCycles, 5e5);
  EXPECT_EQ(L.MaxStride, 1u);
  EXPECT_EQ(L.RunMeanTrips, 100);
  const VariantStats &Ref = *L.Variants[Variant::REF];
  EXPECT_EQ(Ref.TripsKnown, 3u) << "trips.known_calls";
  EXPECT_EQ(Ref.MeanCycles, 1100) << "the median, as before";
  ASSERT_EQ(Ref.Pairs.size(), 1u);
  EXPECT_EQ(Ref.Pairs[0].RunPos, 0.5);
  EXPECT_EQ(L.Saturation[Variant::REF], 1.0);
  // Written back in this decan's format.
  json::Value J = toJSON(*R);
  EXPECT_EQ(J.getAsObject()->getString("format"), "decan-report-2");
}

TEST(AnalysedJSON, ErrorsNameTheKey) {
  auto V = json::parse(R"({"tool":"decan","format":"decan-report-2",
    "loops":[{"id":"a:L0","whole_run":{"calls":"many"}}]})");
  ASSERT_TRUE(bool(V));
  auto R = reportFromJSON(*V);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(toString(R.takeError()).find("loops[0].whole_run.calls"),
            std::string::npos);
  auto Later = json::parse(R"({"tool":"decan","format":"decan-report-9",
    "loops":[]})");
  auto RL = reportFromJSON(*Later);
  ASSERT_FALSE(bool(RL));
  EXPECT_NE(toString(RL.takeError()).find("unknown report format"),
            std::string::npos);
}

TEST(AnalysedJSON, AMemberAddedIsAMemberWritten) {
  // fullReport() sets every member of these structs, and the round trip
  // above checks each one; a new member changes its struct's size. Give it
  // a key in ReportJSON.cpp (both directions), a value in fullReport() and
  // a line in docs/tool.md, then update its size here.
  EXPECT_EQ(sizeof(Summary), 24u);
  EXPECT_EQ(sizeof(ThreadRow), 80u);
  EXPECT_EQ(sizeof(MemoryGroup), 88u);
  EXPECT_EQ(sizeof(ThreadTotal), 72u);
  EXPECT_EQ(sizeof(VariantStats), 272u);
  EXPECT_EQ(sizeof(RunPart), 352u);
  EXPECT_EQ(sizeof(ProcessInfo), 336u);
  EXPECT_EQ(sizeof(Pair), 48u);
  EXPECT_EQ(sizeof(Interval), 32u);
  EXPECT_EQ(sizeof(LoopReport), 7568u);
  // Report::Objects is not written on purpose (see Report.h).
  EXPECT_EQ(sizeof(Report), 288u);
}

} // namespace
