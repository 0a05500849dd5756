//===- RawMerger.cpp - Raw runtime reports merged into one Report ---------===//
//
// Part of decan. Reads `decan-raw-1` to `-3` (docs/runtime.md): the runtime's
// reports of every process, thread and rank of a run become one Report,
// statistics computed, not yet analysed. Samples are paired with REF per
// thread (Pairing.h).
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"
#include "decan/Tool/LoopNames.h"
#include "decan/Tool/Report.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool {

namespace {
/// The keys `decan-raw-3` renamed to the analysed report's names (one name
/// per datum in both formats); earlier reports are read with their own.
struct RawKeys {
  const char *WholeRun, *UntimedCalls, *Parts, *CallsPerPart;
};
constexpr RawKeys Raw3Keys{"whole_run", "untimed_calls", "parts",
                           "calls_per_part"};
constexpr RawKeys Raw2Keys{"totals", "untimed", "buckets", "bucket_width"};

/// 1, 2 or 3 for `decan-raw-N` (the formats this merger reads), else 0.
unsigned rawFormatVersion(StringRef Format) {
  unsigned N = 0;
  if (!Format.consume_front("decan-raw-") || Format.getAsInteger(10, N) ||
      N < 1 || N > 3)
    return 0;
  return N;
}
} // namespace

RawMerger::LoopPool &RawMerger::loop(StringRef Id, StringRef Object) {
  // Two libraries may have loops of one id (sub_1000:L0).
  std::string Key = Object.empty() ? Id.str() : (Object + "!" + Id).str();
  auto [It, New] = LoopIndex.try_emplace(Key, Loops.size());
  if (!New)
    return Loops[It->second];
  Loops.emplace_back();
  Loops.back().Info.Id = Id.str();
  Loops.back().Info.Object = Object.str();
  return Loops.back();
}

static std::string str(const json::Object *O, StringRef Key) {
  if (!O)
    return "";
  if (auto S = O->getString(Key))
    return S->str();
  return "";
}

/// Adds the string members of object \p Key of \p O to \p Out (reports
/// carry "store_policy" and "unavailable" as variant -> text maps).
static void readStringMap(const json::Object *O, StringRef Key,
                          std::map<std::string, std::string> &Out) {
  if (const json::Object *M = O ? O->getObject(Key) : nullptr)
    for (const auto &KV : *M)
      if (auto S = KV.second.getAsString())
        Out[KV.first.str()] = S->str();
}

/// Adds `Key: {"V": n, ...}` into \p Out (counts of several processes).
static void readCountMap(const json::Object *O, StringRef Key,
                         std::map<std::string, uint64_t> &Out) {
  if (const json::Object *M = O ? O->getObject(Key) : nullptr)
    for (const auto &KV : *M)
      if (auto N = KV.second.getAsNumber())
        Out[KV.first.str()] += static_cast<uint64_t>(*N);
}

static double num(const json::Object *O, StringRef Key, double Default = 0) {
  if (!O)
    return Default;
  if (auto N = O->getNumber(Key))
    return *N;
  return Default;
}

static uint64_t count(const json::Object *O, StringRef Key) {
  return static_cast<uint64_t>(num(O, Key));
}

std::optional<double> runqueueWaitShare(const json::Object *Process,
                                        double TscHz) {
  double WaitUs = num(Process, "main_runqueue_wait_us");
  double RunUs = num(Process, "main_runqueue_run_us");
  if (RunUs <= 0) // an older runtime: its wall time, in TSC cycles
    RunUs = TscHz > 0 ? num(Process, "wall_cycles") / TscHz * 1e6 : 0;
  if (RunUs <= 0)
    return std::nullopt;
  return std::clamp(WaitUs / RunUs, 0.0, 1.0);
}

/// Adds one thread's whole-run totals of a loop (every call while the loop
/// was active) and its parts of the run, into quarters.
void RawMerger::addWholeRun(const json::Object &TO, const ProcessInfo &PI,
                            LoopPool &LP, unsigned Format) {
  const RawKeys &K = Format >= 3 ? Raw3Keys : Raw2Keys;
  uint64_t CallsSeen = count(&TO, "calls_seen");
  LP.CallsSeen += CallsSeen;
  LP.Slots += count(&TO, "slots");
  ++LP.Threads;
  const json::Object *T = TO.getObject(K.WholeRun);
  if (!T)
    return;
  LP.RunCalls += count(T, "calls");
  LP.RunIterations += count(T, "iterations");
  LP.RunTripsKnown += count(T, "trips_known");
  LP.RunCycles += num(T, "cycles");
  ThreadTotal TT;
  TT.Rank = PI.Rank;
  TT.Pid = PI.Pid;
  TT.Thread = count(&TO, "thread");
  TT.Tid = count(&TO, "tid");
  TT.Calls = count(T, "calls");
  TT.Cycles = num(T, "cycles");
  LP.Info.ThreadTotals.push_back(TT);
  LP.Untimed += count(T, K.UntimedCalls);
  LP.VariantCalls += count(T, "variant_calls");
  LP.VariantCycles += num(T, "variant_cycles");
  LP.InsideCycles += num(T, "inside_cycles");
  LP.DispatchCalls += count(T, "dispatch_calls");
  LP.QuickCalls += count(T, "quick_calls");
  // Older reports time every call: timed = all.
  LP.TimedCalls +=
      static_cast<uint64_t>(num(T, "timed_calls", num(T, "calls")));
  LP.TimedCycles += num(T, "timed_cycles", num(T, "cycles"));
  if (LP.SingleCycles && T->get("single_cycles"))
    *LP.SingleCycles += num(T, "single_cycles");
  else
    LP.SingleCycles.reset(); // an older runtime's thread
  LP.MaxStride =
      std::max(LP.MaxStride, static_cast<uint64_t>(num(T, "max_stride", 1)));
  LP.ProbedCalls += count(T, "probed_calls");
  LP.ProbedCycles += num(T, "probed_cycles");
  LP.ProbedCpuNs += num(T, "probed_cpu_ns");
  LP.ProbedVoluntary += count(T, "probed_voluntary_switches");
  LP.BlockedCalls += count(T, "blocked_calls");
  LP.BlockedCycles += num(T, "blocked_cycles");
  LP.BlockedCpuNs += num(T, "blocked_cpu_ns");
  // Parts of equal call ranges: into quarters of this thread's run.
  double Width = num(T, K.CallsPerPart, 1);
  if (const json::Array *Bs = T->getArray(K.Parts))
    for (size_t I = 0; I < Bs->size(); ++I) {
      const json::Array *B = (*Bs)[I].getAsArray();
      if (!B || B->size() < 3 || !CallsSeen)
        continue;
      double Pos = std::min(0.999, ((double)I + 0.5) * Width / CallsSeen);
      RunPart &Q = LP.Parts[static_cast<unsigned>(Pos * 4)];
      Q.Calls += static_cast<uint64_t>((*B)[0].getAsNumber().value_or(0));
      Q.Iterations += (*B)[1].getAsNumber().value_or(0);
      Q.Cycles += (*B)[2].getAsNumber().value_or(0);
    }
}

/// Adds one variant's samples of one thread (\p S, the runtime's
/// `variants.V`) to \p P and its row; every sample, disturbed or not, is
/// also appended to \p Taken for pairing.
Error RawMerger::addVariant(const json::Object &S, ThreadRow Row, Pool &P,
                            std::vector<ThreadSample> &Taken, bool IsRef,
                            const Twine &Where) {
  // Field positions come from "fields": the runtime appends counters.
  std::map<std::string, int> Field{{"cycles", 0}, {"trips", 1}, {"flags", 2}};
  std::vector<std::pair<int, std::string>> EventI; // counter fields
  if (const json::Array *F = S.getArray("fields")) {
    Field.clear();
    const auto &Known = decan_record_field_names;
    for (unsigned I = 0; I < F->size(); ++I) {
      auto Name = (*F)[I].getAsString();
      if (!Name)
        continue;
      if (is_contained(Known, *Name))
        Field[Name->str()] = I;
      else
        EventI.emplace_back(I, Name->str());
    }
    if (!Field.count("cycles"))
      return createStringError(Where + " has no 'cycles' field");
  }
  std::vector<double> RowCycles;
  uint64_t Flagged = 0;
  if (const json::Array *Recs = S.getArray("records"))
    for (const json::Value &RV : *Recs) {
      const json::Array *R = RV.getAsArray();
      if (!R || static_cast<int>(R->size()) <= Field["cycles"])
        continue;
      auto At = [&](const char *Name) -> double {
        auto It = Field.find(Name);
        if (It == Field.end() || It->second >= static_cast<int>(R->size()))
          return 0;
        return (*R)[It->second].getAsNumber().value_or(0);
      };
      Sample Smp;
      Smp.Cycles = At("cycles");
      Smp.Trips = At("trips");
      Smp.Flags = static_cast<uint64_t>(At("flags"));
      Smp.Call = static_cast<uint64_t>(At("call"));
      Smp.PreCycles = At("pre_cycles");
      Smp.PreTrips = At("pre_trips");
      Smp.PostCycles = At("post_cycles");
      Smp.PostTrips = At("post_trips");
      Smp.RerunTrips = At("rerun_trips");
      if (!Field.count("pre_cycles"))
        Smp.Flags |= DECAN_SAMPLE_NO_PRE | DECAN_SAMPLE_NO_POST; // decan-raw-1
      Taken.push_back({Smp, IsRef});
      if (Smp.Flags & DECAN_SAMPLE_SWITCHED) { // excluded from statistics
        ++Flagged;
        continue;
      }
      double Cyc = Smp.Cycles, Trips = Smp.Trips;
      if (!(Smp.Flags & DECAN_SAMPLE_COUNTER_FAILED))
        for (const auto &[I, Name] : EventI)
          if (I < static_cast<int>(R->size()))
            P.Counters[Name].push_back((*R)[I].getAsNumber().value_or(0));
      P.Cycles.push_back(Cyc);
      RowCycles.push_back(Cyc);
      if (Trips > 0) {
        P.PerIter.push_back(Cyc / Trips);
        P.Trips.push_back(Trips);
        P.Iterations += static_cast<uint64_t>(Trips);
        ++P.TripsKnown;
      }
    }
  uint64_t Online = 0;
  if (const json::Object *On = S.getObject("online")) {
    Online = count(On, "count");
    if (Online) {
      double Mn = num(On, "min"), Mx = num(On, "max");
      if (!P.OnlineCount || Mn < P.OnlineMin)
        P.OnlineMin = Mn;
      if (!P.OnlineCount || Mx > P.OnlineMax)
        P.OnlineMax = Mx;
      P.OnlineCount += Online;
      P.OnlineSum +=
          On->getNumber("sum") ? num(On, "sum") : num(On, "mean") * Online;
      P.Iterations += count(On, "trips_sum");
    }
  }
  uint64_t Excl = std::max<uint64_t>(count(&S, "excluded"), Flagged);
  Row.Calls = RowCycles.size() + Online;
  Row.Excluded = Excl;
  Row.Cycles = summarize(RowCycles);
  P.Calls += Row.Calls;
  P.Excluded += Excl;
  P.Rows.push_back(Row);
  return Error::success();
}

/// Adds one thread of one loop: its whole-run totals, its samples, and
/// their pairs with REF.
Error RawMerger::addThread(const json::Object &TO, const ProcessInfo &PI,
                           LoopPool &LP, unsigned Format, StringRef Id,
                           StringRef Source) {
  addWholeRun(TO, PI, LP, Format);
  const json::Object *VO = TO.getObject("variants");
  if (!VO)
    return Error::success();
  std::vector<ThreadSample> Taken;
  std::vector<Variant> TakenVariant; // Taken[I]'s variant
  for (const auto &KV : *VO) {
    auto V = parseVariant(KV.first);
    const json::Object *S = KV.second.getAsObject();
    if (!V || !S)
      continue;
    if (!LP.Variants[*V])
      LP.Variants[*V].emplace();
    ThreadRow Row;
    Row.Rank = PI.Rank;
    Row.Pid = PI.Pid;
    Row.Thread = count(&TO, "thread");
    Row.Tid = count(&TO, "tid");
    if (Error E = addVariant(
            *S, Row, *LP.Variants[*V], Taken, *V == Variant::REF,
            Source + ": loop " + Id + " variant " + StringRef(KV.first)))
      return E;
    TakenVariant.resize(Taken.size(), *V);
  }
  std::vector<PairedSample> Paired =
      pairThreadSamples(Taken, count(&TO, "calls_seen"));
  for (size_t I = 0; I < Paired.size(); ++I) {
    Pool &P = *LP.Variants[TakenVariant[I]];
    ++P.PairKinds[static_cast<unsigned>(Paired[I].Kind)];
    if (pairUsable(Paired[I].Kind))
      P.Pairs.push_back(Paired[I].P);
  }
  return Error::success();
}

/// What ran: the process of raw report \p O, named by \p Source.
ProcessInfo RawMerger::addProcess(const json::Object &O, StringRef Source) {
  ProcessInfo PI;
  PI.Source = sys::path::filename(Source).str();
  PI.Status = str(&O, "status");
  PI.Run = Run;
  const json::Object *Proc = O.getObject("process");
  PI.Pid = static_cast<int64_t>(num(Proc, "pid"));
  PI.ParentPid = static_cast<int64_t>(num(Proc, "ppid"));
  PI.Host = str(Proc, "host");
  if (Proc) {
    if (auto R = Proc->getInteger("rank"))
      PI.Rank = *R;
    PI.Forked = Proc->getBoolean("forked").value_or(false);
    if (const json::Array *A = Proc->getArray("argv"))
      if (!A->empty())
        if (auto S = (*A)[0].getAsString())
          PI.Program = S->str();
  }
  double TscHz = num(O.getObject("machine"), "tsc_hz");
  PI.WallCycles = num(Proc, "wall_cycles");
  PI.CpuCycles = num(Proc, "cpu_us") * TscHz / 1e6;
  PI.CostOnCpu = str(Proc, "decan_cost_clock") == "cpu";
  // Time the main thread was ready to run while other processes held the
  // CPUs. It is in the wall time and in any timed call it fell into, so it
  // is not taken out of either; past a tenth of the run, say that the
  // timings are disturbed rather than report them as the program's.
  std::optional<double> Share = runqueueWaitShare(Proc, TscHz);
  // The same share of the wall time (the wait is read over its own
  // interval, which a late-variant wait shortens).
  PI.WaitCycles = Share ? *Share * PI.WallCycles : 0;
  if (Share && *Share > 0.1) {
    std::string W =
        formatv("the machine was busy: the program waited {0:F0}% of its run "
                "for a CPU that other processes held; its timings and program "
                "shares are disturbed (measure on a quiet machine)",
                100 * *Share)
            .str();
    if (!is_contained(Warnings, W))
      Warnings.push_back(W);
  }
  PI.Threads = static_cast<unsigned>(num(Proc, "threads"));
  if (const json::Object *C = O.getObject("crash")) {
    PI.CrashSignal = str(C, "signal");
    PI.CrashLoop = str(C, "loop");
    PI.CrashVariant = str(C, "variant");
    PI.CrashRerunAfter = str(C, "rerun_after");
  }
  Processes.push_back(PI);
  return PI;
}

/// Adds loop \p LO of a raw report (\p Format, from \p Source) that
/// process \p PI ran.
Error RawMerger::addLoop(const json::Object &LO, const ProcessInfo &PI,
                         unsigned Format, StringRef Source) {
  std::string Id = str(&LO, "id");
  if (Id.empty())
    return createStringError("%s: a loop without an id", Source.str().c_str());
  LoopPool &LP = loop(Id, str(&LO, "object"));
  LoopReport &Info = LP.Info;
  if (Info.Function.empty())
    Info.Function = str(&LO, "function");
  if (Info.File.empty())
    Info.File = str(&LO, "file");
  if (!Info.Line)
    Info.Line = static_cast<unsigned>(num(&LO, "line"));
  if (Info.Source.empty())
    Info.Source = str(&LO, "source");
  if (!Info.IterationStep)
    Info.IterationStep = static_cast<unsigned>(num(&LO, "iteration_step"));
  Info.VariantMask |= static_cast<uint32_t>(num(&LO, "variant_mask"));
  if (std::string Late = str(&LO, "late"); !Late.empty()) {
    // A loop installed in one process and waiting in another (ranks):
    // installed wins, with its latest arrival.
    if (Late == "installed") {
      Info.LateSince = std::max(Info.LateSince, num(&LO, "late_since_s"));
      Info.CallsBeforeLate +=
          static_cast<uint64_t>(num(&LO, "calls_before_late"));
    } else {
      Info.LateCallsSeen += static_cast<uint64_t>(num(&LO, "late_calls_seen"));
    }
    if (Info.Late != "installed")
      Info.Late = Late;
    // A waiting process has no copy: its "unavailable" says nothing of
    // the loop's variants.
    if (Late == "waiting")
      return Error::success();
  }
  readStringMap(&LO, "store_policy", Info.StorePolicy);
  readStringMap(&LO, "unavailable", Info.Unavailable);
  readStringMap(&LO, "unavailable_why", Info.UnavailableWhy);
  readStringMap(&LO, "bound", Info.Bound);
  // A variant that ran away in any process is out of every analysis.
  std::map<std::string, std::string> Runaway;
  readStringMap(&LO, "runaway", Runaway);
  for (const auto &[V, Why] : Runaway) {
    Info.Unavailable[V] = "runaway";
    Info.UnavailableWhy[V] = Why;
  }
  // A variant that faulted in any process is out of every analysis too.
  std::map<std::string, std::string> Faulted;
  readStringMap(&LO, "faulted", Faulted);
  for (const auto &[V, Why] : Faulted) {
    Info.Unavailable[V] = "faulted";
    Info.UnavailableWhy[V] = Why;
    Info.Faulted.emplace(V, Why);
  }
  readCountMap(&LO, "capped_calls", Info.CappedCalls);
  Info.ChasedLoads = std::max(Info.ChasedLoads,
                              static_cast<unsigned>(num(&LO, "chased_loads")));
  Info.DL1MemoryCallBytes =
      std::max(Info.DL1MemoryCallBytes,
               static_cast<unsigned>(num(&LO, "dl1_memory_call_bytes")));
  if (const json::Array *CD = LO.getArray("calls_deleted"))
    for (const json::Value &V : *CD)
      if (std::optional<StringRef> S = V.getAsString())
        if (!is_contained(Info.CallsDeleted, *S))
          Info.CallsDeleted.push_back(S->str());
  if (const json::Array *GA = LO.getArray("groups")) {
    Info.Groups.clear();
    for (const json::Value &GV : *GA)
      if (const json::Object *GO = GV.getAsObject()) {
        MemoryGroup G;
        G.Name = str(GO, "name");
        G.Accesses = static_cast<unsigned>(num(GO, "accesses"));
        Info.Groups.push_back(G);
      }
    Info.NumGroups = static_cast<unsigned>(num(&LO, "n_groups"));
  }
  const json::Array *Threads = LO.getArray("threads");
  if (!Threads)
    return Error::success();
  for (const json::Value &TV : *Threads) {
    const json::Object *TO = TV.getAsObject();
    if (!TO)
      continue;
    if (Error E = addThread(*TO, PI, LP, Format, Id, Source))
      return E;
  }
  return Error::success();
}

Error RawMerger::add(const json::Value &Raw, StringRef Source) {
  const json::Object *O = Raw.getAsObject();
  if (!O)
    return createStringError("%s: not a JSON object", Source.str().c_str());
  std::string FormatName = str(O, "format");
  unsigned Format = rawFormatVersion(FormatName);
  if (!Format)
    return createStringError("%s: not a decan raw report (format '%s')",
                             Source.str().c_str(), FormatName.c_str());
  ++Count;
  if (Version.empty())
    Version = str(O, "version");
  if (Machine.empty())
    if (const json::Object *M = O->getObject("machine"))
      Machine = *M;
  if (Config.empty())
    if (const json::Object *C = O->getObject("config"))
      Config = *C;
  // Rotate-mode reports since raw-2 pair their samples with REF neighbours;
  // an analysis of such a run never falls back to unpaired medians.
  if (Format >= 2 && Config.getString("mode") == "rotate")
    Config["paired"] = true;
  if (const json::Object *P = O->getObject("probe"))
    if (const json::Object *E = P->getObject("empty_region_cycles"))
      if (auto Med = E->getNumber("median"))
        Probe.push_back(*Med);
  if (const json::Object *P = O->getObject("probe")) {
    if (auto C = P->getNumber("call_cost_centicycles"))
      ProbeCall.push_back(*C / 100);
    SlotFixed = std::max(SlotFixed, num(P, "slot_fixed_cycles"));
    Countdown = std::max(Countdown, num(P, "countdown_centicycles") / 100);
    Dispatch = std::max(Dispatch, num(P, "dispatch_centicycles") / 100);
    DispatchQuick =
        std::max(DispatchQuick, num(P, "dispatch_quick_centicycles") / 100);
  }

  ProcessInfo PI = addProcess(*O, Source);
  if (const json::Array *W = O->getArray("warnings"))
    for (const json::Value &V : *W)
      if (auto S = V.getAsString())
        if (!is_contained(Warnings, S->str()))
          Warnings.push_back(S->str());
  if (const json::Array *Ob = O->getArray("objects"))
    for (const json::Value &V : *Ob)
      if (auto S = V.getAsString())
        if (!is_contained(Objects, S->str()))
          Objects.push_back(S->str());
  if (const json::Object *C = O->getObject("counters"))
    if (auto Avail = C->getBoolean("available"); Avail && !*Avail) {
      std::string Msg = str(C, "message");
      const json::Array *Ev = C->getArray("events");
      if (Ev && !Ev->empty()) {
        std::string W = "hardware counters not available: " + Msg;
        if (!is_contained(Warnings, W))
          Warnings.push_back(W);
      }
    }

  if (const json::Array *LoopsA = O->getArray("loops"))
    for (const json::Value &LV : *LoopsA) {
      const json::Object *LO = LV.getAsObject();
      // Loops the run did not select are listed by the runtime but carry no
      // measurement: they are not part of this report.
      if (!LO || LO->getBoolean("selected") == false)
        continue;
      if (Error E = addLoop(*LO, PI, Format, Source))
        return E;
    }
  return Error::success();
}

Error RawMerger::addFile(StringRef Path) {
  auto V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  return add(*V, Path);
}

uint64_t RawMerger::calls(StringRef Loop, Variant V) const {
  for (const LoopPool &L : Loops)
    if (L.Info.Id == Loop)
      return L.Variants[V] ? L.Variants[V]->Calls : 0;
  return 0;
}

std::vector<std::string> RawMerger::loopIds() const {
  std::vector<std::string> Ids;
  for (const LoopPool &L : Loops)
    Ids.push_back(L.Info.Id);
  return Ids;
}

/// A variant's statistics from its pooled samples (every thread).
VariantStats RawMerger::stats(const Pool &Po) {
  VariantStats S;
  S.Calls = Po.Calls;
  S.Excluded = Po.Excluded;
  S.Iterations = Po.Iterations;
  S.TripsKnown = Po.TripsKnown;
  std::vector<double> C = Po.Cycles, PI = Po.PerIter, Tr = Po.Trips;
  double Sum = 0;
  for (double X : C)
    Sum += X;
  S.Cycles = summarize(C);
  if (Po.OnlineCount) {
    // Calls past DECAN_MAX_RECORDS only left min/max/mean: they widen
    // the range; the median stays that of the recorded calls.
    if (C.empty() || Po.OnlineMin < S.Cycles.Min)
      S.Cycles.Min = Po.OnlineMin;
    S.Cycles.Max = std::max(S.Cycles.Max, Po.OnlineMax);
    if (C.empty())
      S.Cycles.Median = Po.OnlineSum / Po.OnlineCount;
    Sum += Po.OnlineSum;
  }
  uint64_t N = C.size() + Po.OnlineCount;
  S.MeanCycles = N ? Sum / N : 0;
  Summary PIS = summarize(PI);
  S.CyclesPerIter = PIS;
  Summary TS = summarize(Tr);
  S.TripsMedian = TS.Median;
  S.TripsMin = static_cast<uint64_t>(TS.Min);
  S.TripsMax = static_cast<uint64_t>(TS.Max);
  S.Stability = stability(S.Cycles);
  for (const auto &[Name, Vals] : Po.Counters) {
    std::vector<double> Copy = Vals;
    S.Counters[Name] = summarize(Copy);
  }
  S.Rows = Po.Rows;
  S.Pairs = Po.Pairs;
  S.PairKinds = Po.PairKinds;
  return S;
}

Report RawMerger::finish() const {
  Report R;
  R.Version = Version;
  R.Machine = Machine;
  R.Config = Config;
  std::vector<double> P = Probe;
  R.ProbeCycles = median(P);
  std::vector<double> PC = ProbeCall;
  R.ProbeCallCycles = PC.empty() ? R.ProbeCycles : median(PC);
  R.Processes = Processes;
  R.Warnings = Warnings;
  R.Objects = Objects;
  R.ParallelRuntime = parallelRuntimeOf(Objects);
  double TscHz = R.Machine.getNumber("tsc_hz").value_or(0);
  for (const LoopPool &LP : Loops) {
    LoopReport L = LP.Info;
    uint64_t AllCalls = 0;
    for (Variant V : AllVariants) {
      auto Why = L.Unavailable.find(std::string(variantName(V)));
      if (!LP.Variants[V] ||
          (Why != L.Unavailable.end() &&
           (Why->second == "runaway" || Why->second == "faulted")))
        continue;
      VariantStats S = stats(*LP.Variants[V]);
      AllCalls += S.Calls + S.Excluded;
      L.Variants[V] = std::move(S);
    }
    L.CallsSeen = LP.CallsSeen;
    L.RunCalls = LP.RunCalls;
    L.RunIterations = LP.RunIterations;
    L.RunTripsKnown = LP.RunTripsKnown;
    L.RunCycles = LP.RunCycles;
    L.UntimedCalls = LP.Untimed;
    L.VariantCalls = LP.VariantCalls;
    L.VariantCycles = LP.VariantCycles;
    L.InsideCycles = LP.InsideCycles;
    L.DispatchCalls = LP.DispatchCalls;
    L.QuickCalls = LP.QuickCalls;
    L.TimedCalls = LP.TimedCalls;
    L.TimedCycles = LP.TimedCycles;
    L.SingleCycles = LP.SingleCycles;
    L.MaxStride = LP.MaxStride;
    if (TscHz > 0) {
      L.ProbedCalls = LP.ProbedCalls;
      L.ProbedCycles = LP.ProbedCycles;
      L.ProbedCpuCycles = LP.ProbedCpuNs * TscHz / 1e9;
      L.ProbedVoluntary = LP.ProbedVoluntary;
      L.BlockedCalls = LP.BlockedCalls;
      L.BlockedCycles = LP.BlockedCycles;
      L.BlockedCpuCycles = LP.BlockedCpuNs * TscHz / 1e9;
    }
    L.Slots = LP.Slots;
    L.Threads = LP.Threads;
    for (const RunPart &Q : LP.Parts)
      L.Parts.push_back(Q);
    for (unsigned K = 0; K < L.Parts.size(); ++K) {
      L.Parts[K].From = K / 4.0;
      L.Parts[K].To = (K + 1) / 4.0;
    }
    if (LP.RunCalls) {
      // Every call's REF run was timed: the loop's own time, less the
      // probes' cost that a run without decan does not pay.
      L.TimeCycles =
          std::max(0.0, LP.RunCycles - (double)LP.RunCalls * R.ProbeCallCycles);
      if (LP.RunTripsKnown)
        L.RunMeanTrips = (double)LP.RunIterations / (double)LP.RunTripsKnown;
    } else if (L.Variants[Variant::REF]) {
      // decan-raw-1: REF's mean times all calls seen estimates it.
      if (LP.CallsSeen)
        AllCalls = LP.CallsSeen;
      L.TimeCycles = L.Variants[Variant::REF]->MeanCycles * AllCalls;
    }
    R.Loops.push_back(std::move(L));
  }
  nameLoops(R.Loops);
  R.SlotFixedCycles = SlotFixed;
  R.CountdownCycles = Countdown;
  R.DispatchCycles = Dispatch;
  R.DispatchQuickCycles = DispatchQuick;
  R.OverheadCycles = 0;
  for (const LoopReport &L : R.Loops) {
    // Measured where the runtime timed itself (entry to exit of every
    // call, less the loop's own time); estimated otherwise. The stub's own
    // call into the runtime stays outside both (docs/tool.md).
    if (L.InsideCycles > 0)
      R.OverheadCycles += R.overheadOf(L);
    else
      R.OverheadCycles +=
          L.VariantCycles +
          (double)(L.RunCalls + L.VariantCalls) * R.ProbeCallCycles +
          (double)L.Slots * SlotFixed;
  }
  R.ProcessCycles = programCycles(R);
  // The shares, as the analysis computes them (analyses/Shares.cpp): --hot
  // and the run's hints read them before any analysis runs.
  computeShares(R);
  return R;
}

} // namespace decan::tool
