//===- Report.cpp - Merge raw reports, analysed JSON in and out -----------===//
//
// Part of decan.
// Over 600 lines on purpose: one data model, read from raw reports and
// written and read back as analysed JSON (both directions of one format).
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Report.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace decan::tool {

std::optional<Variant> parseVariant(StringRef Name) {
  int V = decan_variant_parse(Name.data(), Name.size());
  return V < 0 ? std::nullopt : std::optional<Variant>(static_cast<Variant>(V));
}

Expected<std::vector<Variant>> parseVariantList(StringRef List) {
  std::vector<Variant> Out;
  if (List.trim() == "all")
    return std::vector<Variant>(AllVariants.begin(), AllVariants.end());
  SmallVector<StringRef, 8> Parts;
  List.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    P = P.trim();
    auto V = parseVariant(P);
    if (!V) {
      std::string Known;
      for (Variant K : AllVariants)
        Known += (Known.empty() ? "" : ", ") + std::string(variantName(K));
      return createStringError("unknown variant '%s' (known: %s)",
                               P.str().c_str(), Known.c_str());
    }
    if (!is_contained(Out, *V))
      Out.push_back(*V);
  }
  if (Out.empty())
    return createStringError("empty variant list");
  return Out;
}

double median(std::vector<double> &Values) {
  if (Values.empty())
    return 0;
  std::sort(Values.begin(), Values.end());
  size_t N = Values.size();
  return N % 2 ? Values[N / 2] : (Values[N / 2 - 1] + Values[N / 2]) / 2;
}

Summary summarize(std::vector<double> &Values) {
  Summary S;
  if (Values.empty())
    return S;
  S.Median = median(Values); // sorts
  S.Min = Values.front();
  S.Max = Values.back();
  return S;
}

double stability(const Summary &S) {
  return S.Min > 0 ? (S.Median - S.Min) / S.Min : 0;
}

const LoopReport *Report::findLoop(StringRef Id) const {
  for (const LoopReport &L : Loops)
    if (L.Id == Id)
      return &L;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Raw reports
//===----------------------------------------------------------------------===//

RawMerger::LoopPool &RawMerger::loop(StringRef Id) {
  auto [It, New] = LoopIndex.try_emplace(Id.str(), Loops.size());
  if (!New)
    return Loops[It->second];
  Loops.emplace_back();
  Loops.back().Info.Id = Id.str();
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

/// Adds one thread of one loop: its whole-run totals and its samples.
Error RawMerger::addThread(const json::Object &TO, const ProcessInfo &PI,
                           LoopPool &LP, StringRef Id, StringRef Source) {
  uint64_t CallsSeen = static_cast<uint64_t>(num(&TO, "calls_seen"));
  LP.CallsSeen += CallsSeen;
  LP.Slots += static_cast<uint64_t>(num(&TO, "slots"));
  ++LP.Threads;
  if (const json::Object *T = TO.getObject("totals")) {
    LP.RunCalls += static_cast<uint64_t>(num(T, "calls"));
    LP.RunIterations += static_cast<uint64_t>(num(T, "iterations"));
    LP.RunTripsKnown += static_cast<uint64_t>(num(T, "trips_known"));
    LP.RunCycles += num(T, "cycles");
    ThreadTotal TT;
    TT.Rank = PI.Rank;
    TT.Pid = PI.Pid;
    TT.Thread = static_cast<uint64_t>(num(&TO, "thread"));
    TT.Tid = static_cast<uint64_t>(num(&TO, "tid"));
    TT.Calls = static_cast<uint64_t>(num(T, "calls"));
    TT.Cycles = num(T, "cycles");
    LP.Info.ThreadTotals.push_back(TT);
    LP.Untimed += static_cast<uint64_t>(num(T, "untimed"));
    LP.VariantCalls += static_cast<uint64_t>(num(T, "variant_calls"));
    LP.VariantCycles += num(T, "variant_cycles");
    LP.InsideCycles += num(T, "inside_cycles");
    // Older reports time every call: timed = all.
    LP.TimedCalls +=
        static_cast<uint64_t>(num(T, "timed_calls", num(T, "calls")));
    LP.TimedCycles += num(T, "timed_cycles", num(T, "cycles"));
    LP.MaxStride =
        std::max(LP.MaxStride, static_cast<uint64_t>(num(T, "max_stride", 1)));
    // Buckets of equal call ranges: into quarters of this thread's run.
    double Width = num(T, "bucket_width", 1);
    if (const json::Array *Bs = T->getArray("buckets"))
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
  const json::Object *VO = TO.getObject("variants");
  if (!VO)
    return Error::success();
  // Samples of every variant of this thread: their weights come from the
  // whole thread's sampling positions.
  struct Taken {
    Variant V;
    Sample S;
  };
  std::vector<Taken> All;
  for (const auto &KV : *VO) {
    auto V = parseVariant(KV.first);
    const json::Object *S = KV.second.getAsObject();
    if (!V || !S)
      continue;
    if (!LP.Variants[*V])
      LP.Variants[*V].emplace();
    Pool &P = *LP.Variants[*V];
    ThreadRow Row;
    Row.Rank = PI.Rank;
    Row.Pid = PI.Pid;
    Row.Thread = static_cast<uint64_t>(num(&TO, "thread"));
    Row.Tid = static_cast<uint64_t>(num(&TO, "tid"));
    // Field positions come from "fields": the runtime appends counters.
    std::map<std::string, int> Field{{"cycles", 0}, {"trips", 1}, {"flags", 2}};
    std::vector<std::pair<int, std::string>> EventI; // counter fields
    if (const json::Array *F = S->getArray("fields")) {
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
        return createStringError("%s: loop %s variant %s has no "
                                 "'cycles' field",
                                 Source.str().c_str(), Id.str().c_str(),
                                 KV.first.str().c_str());
    }
    std::vector<double> RowCycles;
    uint64_t Flagged = 0;
    if (const json::Array *Recs = S->getArray("records"))
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
          Smp.Flags |=
              DECAN_SAMPLE_NO_PRE | DECAN_SAMPLE_NO_POST; // decan-raw-1
        All.push_back({*V, Smp});
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
    if (const json::Object *On = S->getObject("online")) {
      Online = static_cast<uint64_t>(num(On, "count"));
      if (Online) {
        double Mn = num(On, "min"), Mx = num(On, "max");
        if (!P.OnlineCount || Mn < P.OnlineMin)
          P.OnlineMin = Mn;
        if (!P.OnlineCount || Mx > P.OnlineMax)
          P.OnlineMax = Mx;
        P.OnlineCount += Online;
        P.OnlineSum +=
            On->getNumber("sum") ? num(On, "sum") : num(On, "mean") * Online;
        P.Iterations += static_cast<uint64_t>(num(On, "trips_sum"));
      }
    }
    uint64_t Excl =
        std::max<uint64_t>(static_cast<uint64_t>(num(S, "excluded")), Flagged);
    Row.Calls = RowCycles.size() + Online;
    Row.Excluded = Excl;
    Row.Cycles = summarize(RowCycles);
    P.Calls += Row.Calls;
    P.Excluded += Excl;
    P.Rows.push_back(Row);
  }
  std::vector<uint64_t> Calls;
  for (const Taken &T : All)
    Calls.push_back(T.S.Call);
  std::vector<double> W = voronoiWeights(Calls, CallsSeen);
  for (size_t I = 0; I < All.size(); ++I) {
    Pool &P = *LP.Variants[All[I].V];
    Pair Pr;
    PairKind K = pairSample(All[I].S, All[I].V == Variant::REF, Pr);
    ++P.PairKinds[static_cast<unsigned>(K)];
    if (!pairUsable(K))
      continue;
    Pr.Weight = W[I];
    Pr.RunPos = CallsSeen ? std::min(1.0, (double)Pr.Call / CallsSeen) : 0;
    P.Pairs.push_back(Pr);
  }
  return Error::success();
}

Error RawMerger::add(const json::Value &Raw, StringRef Source) {
  const json::Object *O = Raw.getAsObject();
  if (!O)
    return createStringError("%s: not a JSON object", Source.str().c_str());
  std::string Format = str(O, "format");
  if (Format != "decan-raw-1" && Format != "decan-raw-2")
    return createStringError("%s: not a decan raw report (format '%s')",
                             Source.str().c_str(), Format.c_str());
  ++Count;
  if (Version.empty())
    Version = str(O, "version");
  if (Machine.empty())
    if (const json::Object *M = O->getObject("machine"))
      Machine = *M;
  if (Config.empty())
    if (const json::Object *C = O->getObject("config"))
      Config = *C;
  // Rotate-mode raw-2 reports pair their samples with REF neighbours; an
  // analysis of such a run never falls back to unpaired medians.
  if (Format == "decan-raw-2" && Config.getString("mode") == "rotate")
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
  }

  ProcessInfo PI;
  PI.Source = sys::path::filename(Source).str();
  PI.Status = str(O, "status");
  PI.Run = Run;
  const json::Object *Proc = O->getObject("process");
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
  double TscHz = num(O->getObject("machine"), "tsc_hz");
  PI.WallCycles = num(Proc, "wall_cycles");
  PI.CpuCycles = num(Proc, "cpu_us") * TscHz / 1e6;
  // Time the main thread was ready to run while other processes held the
  // CPUs. It is in the wall time and in any timed call it fell into, so it
  // is not taken out of either; past a tenth of the run, say that the
  // timings are disturbed rather than report them as the program's.
  if (std::optional<double> Share = runqueueWaitShare(Proc, TscHz);
      Share && *Share > 0.1) {
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
  if (const json::Object *C = O->getObject("crash")) {
    PI.CrashSignal = str(C, "signal");
    PI.CrashLoop = str(C, "loop");
    PI.CrashVariant = str(C, "variant");
    PI.CrashRerunAfter = str(C, "rerun_after");
  }
  Processes.push_back(PI);

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

  const json::Array *LoopsA = O->getArray("loops");
  if (!LoopsA)
    return Error::success();
  for (const json::Value &LV : *LoopsA) {
    const json::Object *LO = LV.getAsObject();
    if (!LO)
      continue;
    // Loops the run did not select are listed by the runtime but carry no
    // measurement: they are not part of this report.
    if (auto Sel = LO->getBoolean("selected"); Sel && !*Sel)
      continue;
    std::string Id = str(LO, "id");
    if (Id.empty())
      return createStringError("%s: a loop without an id",
                               Source.str().c_str());
    LoopPool &LP = loop(Id);
    LoopReport &Info = LP.Info;
    if (Info.Function.empty())
      Info.Function = str(LO, "function");
    if (Info.File.empty())
      Info.File = str(LO, "file");
    if (!Info.Line)
      Info.Line = static_cast<unsigned>(num(LO, "line"));
    if (Info.Source.empty())
      Info.Source = str(LO, "source");
    if (!Info.IterationStep)
      Info.IterationStep = static_cast<unsigned>(num(LO, "iteration_step"));
    Info.VariantMask |= static_cast<uint32_t>(num(LO, "variant_mask"));
    if (std::string Late = str(LO, "late"); !Late.empty()) {
      // A loop installed in one process and waiting in another (ranks):
      // installed wins, with its latest arrival.
      if (Late == "installed") {
        Info.LateSince = std::max(Info.LateSince, num(LO, "late_since_s"));
        Info.CallsBeforeLate +=
            static_cast<uint64_t>(num(LO, "calls_before_late"));
      } else {
        Info.LateCallsSeen += static_cast<uint64_t>(num(LO, "late_calls_seen"));
      }
      if (Info.Late != "installed")
        Info.Late = Late;
      // A waiting process has no copy: its "unavailable" says nothing of
      // the loop's variants.
      if (Late == "waiting")
        continue;
    }
    readStringMap(LO, "store_policy", Info.StorePolicy);
    readStringMap(LO, "unavailable", Info.Unavailable);
    readStringMap(LO, "unavailable_why", Info.UnavailableWhy);
    readStringMap(LO, "bound", Info.Bound);
    // A variant that ran away in any process is out of every analysis.
    std::map<std::string, std::string> Runaway;
    readStringMap(LO, "runaway", Runaway);
    for (const auto &[V, Why] : Runaway) {
      Info.Unavailable[V] = "runaway";
      Info.UnavailableWhy[V] = Why;
    }
    readCountMap(LO, "capped_calls", Info.CappedCalls);
    Info.ChasedLoads = std::max(Info.ChasedLoads,
                                static_cast<unsigned>(num(LO, "chased_loads")));
    Info.DL1MemoryCallBytes =
        std::max(Info.DL1MemoryCallBytes,
                 static_cast<unsigned>(num(LO, "dl1_memory_call_bytes")));
    if (const json::Array *CD = LO->getArray("calls_deleted"))
      for (const json::Value &V : *CD)
        if (std::optional<StringRef> S = V.getAsString())
          if (!is_contained(Info.CallsDeleted, *S))
            Info.CallsDeleted.push_back(S->str());
    if (const json::Array *GA = LO->getArray("groups")) {
      Info.Groups.clear();
      for (const json::Value &GV : *GA)
        if (const json::Object *GO = GV.getAsObject()) {
          MemoryGroup G;
          G.Name = str(GO, "name");
          G.Accesses = static_cast<unsigned>(num(GO, "accesses"));
          Info.Groups.push_back(G);
        }
      Info.NumGroups = static_cast<unsigned>(num(LO, "n_groups"));
    }
    const json::Array *Threads = LO->getArray("threads");
    if (!Threads)
      continue;
    for (const json::Value &TV : *Threads) {
      const json::Object *TO = TV.getAsObject();
      if (!TO)
        continue;
      if (Error E = addThread(*TO, PI, LP, Id, Source))
        return E;
    }
  }
  return Error::success();
}

Expected<json::Value> readJSONFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError("cannot read '%s': %s", Path.str().c_str(),
                             Buf.getError().message().c_str());
  auto V = json::parse((*Buf)->getBuffer());
  if (!V)
    return createStringError("'%s' is not valid JSON: %s", Path.str().c_str(),
                             toString(V.takeError()).c_str());
  return V;
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
  for (const LoopPool &LP : Loops) {
    LoopReport L = LP.Info;
    uint64_t AllCalls = 0;
    for (Variant V : AllVariants) {
      auto Why = L.Unavailable.find(variantName(V));
      if (!LP.Variants[V] ||
          (Why != L.Unavailable.end() && Why->second == "runaway"))
        continue;
      const Pool &Po = *LP.Variants[V];
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
    L.TimedCalls = LP.TimedCalls;
    L.TimedCycles = LP.TimedCycles;
    L.MaxStride = LP.MaxStride;
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
  double Total = 0;
  R.SlotFixedCycles = SlotFixed;
  R.CountdownCycles = Countdown;
  R.OverheadCycles = 0;
  for (const LoopReport &L : R.Loops) {
    if (!L.isRegion()) // regions enclose loops: not loop time
      Total += L.TimeCycles;
    // Measured where the runtime timed itself (entry to exit of every
    // call, less the loop's own time); estimated otherwise. The stub's own
    // call into the runtime stays outside both (docs/tool.md).
    if (L.InsideCycles > 0)
      R.OverheadCycles +=
          L.overheadCycles(R.ProbeCallCycles, R.CountdownCycles);
    else
      R.OverheadCycles +=
          L.VariantCycles +
          (double)(L.RunCalls + L.VariantCalls) * R.ProbeCallCycles +
          (double)L.Slots * SlotFixed;
  }
  for (LoopReport &L : R.Loops)
    L.Share = Total > 0 && !L.isRegion() ? L.TimeCycles / Total : 0;
  R.ProcessCycles = 0;
  for (const ProcessInfo &P : R.Processes)
    R.ProcessCycles += std::max(P.WallCycles, P.CpuCycles);
  // The program's own time: the processes' less what decan added.
  double Program = R.ProcessCycles - R.OverheadCycles;
  if (R.ProcessCycles > 0 && Program > 0) {
    double Cov = 0;
    for (LoopReport &L : R.Loops) {
      if (!L.RunCalls)
        continue;
      L.ProgramShare = std::min(1.0, L.TimeCycles / Program);
      L.ProgramShareLowerBound =
          L.InsideCycles > 0 &&
          L.overheadCycles(R.ProbeCallCycles, R.CountdownCycles) > L.TimeCycles;
      // Regions enclose loops: their time is not added twice.
      if (!L.isRegion())
        Cov += *L.ProgramShare;
    }
    R.Coverage = std::min(1.0, Cov);
  }
  return R;
}

//===----------------------------------------------------------------------===//
// Analysed JSON
//===----------------------------------------------------------------------===//

static json::Value summaryJSON(const Summary &S, bool WithMax = true) {
  json::Object O{{"min", S.Min}, {"median", S.Median}};
  if (WithMax)
    O["max"] = S.Max;
  return O;
}

static json::Value stringsJSON(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

json::Value toJSON(const Report &R) {
  json::Array Loops;
  for (const LoopReport &L : R.Loops) {
    json::Object Vars, Sat, SatI;
    for (Variant V : AllVariants) {
      if (L.Variants[V]) {
        const VariantStats &S = *L.Variants[V];
        json::Array Rows;
        for (const ThreadRow &T : S.Rows) {
          json::Object RO{{"pid", static_cast<int64_t>(T.Pid)},
                          {"thread", static_cast<int64_t>(T.Thread)},
                          {"tid", static_cast<int64_t>(T.Tid)},
                          {"calls", static_cast<int64_t>(T.Calls)},
                          {"excluded", static_cast<int64_t>(T.Excluded)},
                          {"cycles", summaryJSON(T.Cycles)}};
          RO["rank"] = T.Rank ? json::Value(*T.Rank) : json::Value(nullptr);
          Rows.push_back(std::move(RO));
        }
        json::Object Counters;
        for (const auto &[Name, Sum] : S.Counters)
          Counters[Name] = summaryJSON(Sum);
        Vars[variantName(V)] = json::Object{
            {"calls", static_cast<int64_t>(S.Calls)},
            {"excluded", static_cast<int64_t>(S.Excluded)},
            {"iterations", static_cast<int64_t>(S.Iterations)},
            {"trips",
             json::Object{{"known_calls", static_cast<int64_t>(S.TripsKnown)},
                          {"min", static_cast<int64_t>(S.TripsMin)},
                          {"median", S.TripsMedian},
                          {"max", static_cast<int64_t>(S.TripsMax)}}},
            {"cycles", summaryJSON(S.Cycles)},
            {"mean_cycles", S.MeanCycles},
            {"cycles_per_iteration", summaryJSON(S.CyclesPerIter)},
            {"stability", S.Stability},
            {"counters", std::move(Counters)},
            {"rows", std::move(Rows)}};
        json::Object &VO = *Vars[variantName(V)].getAsObject();
        json::Array Pairs;
        for (const Pair &P : S.Pairs)
          Pairs.push_back(json::Array{P.Var, P.Ref, P.Work, P.Weight,
                                      static_cast<int64_t>(P.Call), P.RunPos});
        VO["pairs"] = std::move(Pairs);
        json::Object Kinds;
        for (unsigned K = 0; K < S.PairKinds.size(); ++K)
          Kinds[pairKindName(static_cast<PairKind>(K))] =
              static_cast<int64_t>(S.PairKinds[K]);
        VO["pair_kinds"] = std::move(Kinds);
        VO["outliers"] = static_cast<int64_t>(S.Outliers);
      }
      if (V != Variant::REF && L.Saturation[V])
        Sat[variantName(V)] = *L.Saturation[V];
      if (L.SatInterval[V])
        SatI[variantName(V)] =
            json::Object{{"value", L.SatInterval[V]->Value},
                         {"lo", L.SatInterval[V]->Lo},
                         {"hi", L.SatInterval[V]->Hi},
                         {"pairs", static_cast<int64_t>(L.SatInterval[V]->N)}};
    }
    json::Object SP, Unavail, Bound;
    json::Array CallsDeleted;
    for (const std::string &V : L.CallsDeleted)
      CallsDeleted.push_back(V);
    for (const auto &KV : L.StorePolicy)
      SP[KV.first] = KV.second;
    for (const auto &KV : L.Unavailable)
      Unavail[KV.first] = KV.second;
    json::Object UnavailWhy;
    for (const auto &KV : L.UnavailableWhy)
      UnavailWhy[KV.first] = KV.second;
    for (const auto &KV : L.Bound)
      Bound[KV.first] = KV.second;
    json::Object Capped;
    for (const auto &KV : L.CappedCalls)
      Capped[KV.first] = static_cast<int64_t>(KV.second);
    json::Object LO{
        {"id", L.Id},
        {"function", L.Function},
        {"file", L.File},
        {"line", static_cast<int64_t>(L.Line)},
        {"variant_mask", static_cast<int64_t>(L.VariantMask)},
        {"store_policy", std::move(SP)},
        {"unavailable", std::move(Unavail)},
        {"unavailable_why", std::move(UnavailWhy)},
        {"capped_calls", std::move(Capped)},
        {"bound", std::move(Bound)},
        {"calls_deleted", std::move(CallsDeleted)},
        {"chased_loads", static_cast<int64_t>(L.ChasedLoads)},
        {"calls_seen", static_cast<int64_t>(L.CallsSeen)},
        {"late", L.Late},
        {"late_since_s", L.LateSince},
        {"calls_before_late", static_cast<int64_t>(L.CallsBeforeLate)},
        {"late_calls_seen", static_cast<int64_t>(L.LateCallsSeen)},
        {"time_cycles", L.TimeCycles},
        {"share", L.Share},
        {"variants", std::move(Vars)},
        {"saturation", std::move(Sat)},
        {"streams", nameOf(L.Streams)},
        {"memory_cpu", nameOf(L.MemoryCpu)},
        {"rank_by_share", static_cast<int64_t>(L.RankByShare)},
        {"rank_by_dl1_gain", static_cast<int64_t>(L.RankByGain)},
        {"diagnosis", stringsJSON(L.Diagnosis)},
        {"warnings", stringsJSON(L.Warnings)}};
    if (L.DL1MemoryCallBytes)
      LO["dl1_memory_call_bytes"] = static_cast<int64_t>(L.DL1MemoryCallBytes);
    if (!L.Source.empty())
      LO["source"] = L.Source;
    if (L.IterationStep)
      LO["iteration_step"] = static_cast<int64_t>(L.IterationStep);
    if (L.DL1Gain)
      LO["dl1_gain"] = *L.DL1Gain;
    if (L.DivGain)
      LO["div_gain"] = *L.DivGain;
    if (L.CtrlShare)
      LO["ctrl_share"] = *L.CtrlShare;
    LO["saturation_interval"] = std::move(SatI);
    json::Object Run{{"calls", static_cast<int64_t>(L.RunCalls)},
                     {"iterations", static_cast<int64_t>(L.RunIterations)},
                     {"trips_known", static_cast<int64_t>(L.RunTripsKnown)},
                     {"cycles", L.RunCycles},
                     {"untimed_calls", static_cast<int64_t>(L.UntimedCalls)},
                     {"variant_calls", static_cast<int64_t>(L.VariantCalls)},
                     {"variant_cycles", L.VariantCycles},
                     {"inside_cycles", L.InsideCycles},
                     {"timed_calls", static_cast<int64_t>(L.TimedCalls)},
                     {"timed_cycles", L.TimedCycles},
                     {"max_stride", static_cast<int64_t>(L.MaxStride)},
                     {"slots", static_cast<int64_t>(L.Slots)},
                     {"threads", static_cast<int64_t>(L.Threads)}};
    if (L.RunMeanTrips)
      Run["mean_trips"] = *L.RunMeanTrips;
    if (L.SampleMeanTrips)
      Run["sample_mean_trips"] = *L.SampleMeanTrips;
    LO["whole_run"] = std::move(Run);
    if (!L.Groups.empty()) {
      json::Array GA;
      for (const MemoryGroup &G : L.Groups) {
        json::Object Sat;
        if (G.SatDL1)
          Sat["dl1"] = *G.SatDL1;
        if (G.SatRemoved)
          Sat["removed"] = *G.SatRemoved;
        if (G.SatRemovedVsLS)
          Sat["removed_vs_ls"] = *G.SatRemovedVsLS;
        GA.push_back(
            json::Object{{"name", G.Name},
                         {"accesses", static_cast<int64_t>(G.Accesses)},
                         {"saturation", std::move(Sat)}});
      }
      LO["groups"] = std::move(GA);
      LO["n_groups"] = static_cast<int64_t>(L.NumGroups);
    }
    if (!L.ThreadTotals.empty()) {
      json::Array TA;
      for (const ThreadTotal &T : L.ThreadTotals) {
        json::Object TO{{"pid", static_cast<int64_t>(T.Pid)},
                        {"thread", static_cast<int64_t>(T.Thread)},
                        {"tid", static_cast<int64_t>(T.Tid)},
                        {"calls", static_cast<int64_t>(T.Calls)},
                        {"cycles", T.Cycles}};
        if (T.Rank)
          TO["rank"] = *T.Rank;
        if (T.SatS2L)
          TO["s2l_saturation"] = *T.SatS2L;
        TA.push_back(std::move(TO));
      }
      LO["thread_totals"] = std::move(TA);
    }
    if (L.ThreadSpread)
      LO["thread_spread"] =
          json::Object{{"std_over_mean", *L.ThreadSpread},
                       {"max_over_mean", L.ThreadMaxOverMean.value_or(0)}};
    LO["program_share"] =
        L.ProgramShare ? json::Value(*L.ProgramShare) : json::Value(nullptr);
    LO["program_share_is_lower_bound"] = L.ProgramShareLowerBound;
    LO["program_share_is_approximate"] = L.ProgramShareApproximate;
    LO["verdict"] = json::Object{{"class", nameOf(L.Verdict)},
                                 {"confidence", L.VerdictConfidence},
                                 {"inconclusive", L.Inconclusive}};
    json::Array Parts;
    for (const RunPart &Q : L.Parts) {
      json::Object QS;
      for (Variant V : AllVariants)
        if (Q.Saturation[V])
          QS[variantName(V)] = *Q.Saturation[V];
      Parts.push_back(json::Object{{"from", Q.From},
                                   {"to", Q.To},
                                   {"calls", static_cast<int64_t>(Q.Calls)},
                                   {"iterations", Q.Iterations},
                                   {"cycles", Q.Cycles},
                                   {"saturation", std::move(QS)},
                                   {"streams", nameOf(Q.Streams)}});
    }
    LO["parts"] = std::move(Parts);
    Loops.push_back(std::move(LO));
  }
  json::Array Procs;
  for (const ProcessInfo &P : R.Processes) {
    json::Object PO{{"source", P.Source},
                    {"pid", P.Pid},
                    {"host", P.Host},
                    {"status", P.Status}};
    PO["rank"] = P.Rank ? json::Value(*P.Rank) : json::Value(nullptr);
    if (P.ParentPid)
      PO["ppid"] = P.ParentPid;
    if (P.Forked)
      PO["forked"] = true;
    if (!P.Program.empty())
      PO["program"] = P.Program;
    if (!P.CrashSignal.empty())
      PO["crash"] = json::Object{{"signal", P.CrashSignal},
                                 {"loop", P.CrashLoop},
                                 {"variant", P.CrashVariant},
                                 {"rerun_after", P.CrashRerunAfter}};
    PO["wall_cycles"] = P.WallCycles;
    PO["cpu_cycles"] = P.CpuCycles;
    PO["threads"] = static_cast<int64_t>(P.Threads);
    PO["run"] = static_cast<int64_t>(P.Run);
    Procs.push_back(std::move(PO));
  }
  return json::Object{{"tool", "decan"},
                      {"format", "decan-report-1"},
                      {"version", DECAN_TOOL_VERSION},
                      {"runtime_version", R.Version},
                      {"machine", json::Object(R.Machine)},
                      {"config", json::Object(R.Config)},
                      {"probe_cycles", R.ProbeCycles},
                      {"probe_call_cycles", R.ProbeCallCycles},
                      {"slot_fixed_cycles", R.SlotFixedCycles},
                      {"countdown_cycles", R.CountdownCycles},
                      {"process_cycles", R.ProcessCycles},
                      {"overhead_cycles", R.OverheadCycles},
                      {"coverage", R.Coverage ? json::Value(*R.Coverage)
                                              : json::Value(nullptr)},
                      {"processes", std::move(Procs)},
                      {"warnings", stringsJSON(R.Warnings)},
                      {"loops", std::move(Loops)}};
}

static Summary summaryFrom(const json::Object *O) {
  Summary S;
  S.Min = num(O, "min");
  S.Median = num(O, "median");
  S.Max = num(O, "max");
  return S;
}

static std::vector<std::string> stringsFrom(const json::Array *A) {
  std::vector<std::string> Out;
  if (A)
    for (const json::Value &V : *A)
      if (auto S = V.getAsString())
        Out.push_back(S->str());
  return Out;
}

Expected<Report> reportFromJSON(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O || str(O, "tool") != "decan")
    return createStringError("not a decan report (no \"tool\":\"decan\")");
  Report R;
  R.Version = O->getString("runtime_version") ? str(O, "runtime_version")
                                              : str(O, "version");
  if (const json::Object *M = O->getObject("machine"))
    R.Machine = *M;
  if (const json::Object *C = O->getObject("config"))
    R.Config = *C;
  R.ProbeCycles = num(O, "probe_cycles");
  R.ProbeCallCycles = O->getNumber("probe_call_cycles")
                          ? num(O, "probe_call_cycles")
                          : R.ProbeCycles;
  R.SlotFixedCycles = num(O, "slot_fixed_cycles");
  R.CountdownCycles = num(O, "countdown_cycles");
  R.ProcessCycles = num(O, "process_cycles");
  R.OverheadCycles = num(O, "overhead_cycles");
  if (auto C = O->getNumber("coverage"))
    R.Coverage = *C;
  R.Warnings = stringsFrom(O->getArray("warnings"));
  if (const json::Array *Ps = O->getArray("processes"))
    for (const json::Value &PV : *Ps) {
      const json::Object *PO = PV.getAsObject();
      if (!PO)
        continue;
      ProcessInfo P;
      P.Source = str(PO, "source");
      P.Pid = static_cast<int64_t>(num(PO, "pid"));
      P.Host = str(PO, "host");
      P.Status = str(PO, "status");
      if (auto Rk = PO->getInteger("rank"))
        P.Rank = *Rk;
      P.ParentPid = static_cast<int64_t>(num(PO, "ppid"));
      P.Forked = PO->getBoolean("forked").value_or(false);
      P.Program = str(PO, "program");
      if (const json::Object *C = PO->getObject("crash")) {
        P.CrashSignal = str(C, "signal");
        P.CrashLoop = str(C, "loop");
        P.CrashVariant = str(C, "variant");
        P.CrashRerunAfter = str(C, "rerun_after");
      }
      P.WallCycles = num(PO, "wall_cycles");
      P.CpuCycles = num(PO, "cpu_cycles");
      P.Threads = static_cast<unsigned>(num(PO, "threads"));
      P.Run = static_cast<unsigned>(num(PO, "run"));
      R.Processes.push_back(P);
    }
  const json::Array *Loops = O->getArray("loops");
  if (!Loops)
    return createStringError("a decan report without \"loops\"");
  for (const json::Value &LV : *Loops) {
    const json::Object *LO = LV.getAsObject();
    if (!LO)
      return createStringError("a loop entry is not an object");
    LoopReport L;
    L.Id = str(LO, "id");
    L.Function = str(LO, "function");
    L.File = str(LO, "file");
    L.Line = static_cast<unsigned>(num(LO, "line"));
    L.Source = str(LO, "source");
    L.IterationStep = static_cast<unsigned>(num(LO, "iteration_step"));
    L.VariantMask = static_cast<uint32_t>(num(LO, "variant_mask"));
    L.Late = str(LO, "late");
    L.LateSince = num(LO, "late_since_s");
    L.CallsBeforeLate = static_cast<uint64_t>(num(LO, "calls_before_late"));
    L.LateCallsSeen = static_cast<uint64_t>(num(LO, "late_calls_seen"));
    readStringMap(LO, "store_policy", L.StorePolicy);
    readStringMap(LO, "unavailable", L.Unavailable);
    readStringMap(LO, "unavailable_why", L.UnavailableWhy);
    readCountMap(LO, "capped_calls", L.CappedCalls);
    readStringMap(LO, "bound", L.Bound);
    L.ChasedLoads = static_cast<unsigned>(num(LO, "chased_loads"));
    L.DL1MemoryCallBytes =
        static_cast<unsigned>(num(LO, "dl1_memory_call_bytes"));
    L.CallsSeen = static_cast<uint64_t>(num(LO, "calls_seen"));
    L.TimeCycles = num(LO, "time_cycles");
    L.Share = num(LO, "share");
    L.Streams = parseName<StreamsClass>(str(LO, "streams"))
                    .value_or(StreamsClass::None);
    L.MemoryCpu = parseName<MemoryCpuClass>(str(LO, "memory_cpu"))
                      .value_or(MemoryCpuClass::None);
    L.RankByShare = static_cast<unsigned>(num(LO, "rank_by_share"));
    L.RankByGain = static_cast<unsigned>(num(LO, "rank_by_dl1_gain"));
    if (auto G = LO->getNumber("dl1_gain"))
      L.DL1Gain = *G;
    if (auto G = LO->getNumber("div_gain"))
      L.DivGain = *G;
    if (auto G = LO->getNumber("ctrl_share"))
      L.CtrlShare = *G;
    L.Diagnosis = stringsFrom(LO->getArray("diagnosis"));
    L.Warnings = stringsFrom(LO->getArray("warnings"));
    if (const json::Object *Vars = LO->getObject("variants"))
      for (const auto &KV : *Vars) {
        auto Var = parseVariant(KV.first);
        const json::Object *SO = KV.second.getAsObject();
        if (!Var || !SO)
          continue;
        VariantStats S;
        S.Calls = static_cast<uint64_t>(num(SO, "calls"));
        S.Excluded = static_cast<uint64_t>(num(SO, "excluded"));
        S.Iterations = static_cast<uint64_t>(num(SO, "iterations"));
        if (const json::Object *T = SO->getObject("trips")) {
          S.TripsKnown = static_cast<uint64_t>(num(T, "known_calls"));
          S.TripsMin = static_cast<uint64_t>(num(T, "min"));
          S.TripsMedian = num(T, "median");
          S.TripsMax = static_cast<uint64_t>(num(T, "max"));
        }
        S.Cycles = summaryFrom(SO->getObject("cycles"));
        S.MeanCycles = num(SO, "mean_cycles", S.Cycles.Median);
        S.CyclesPerIter = summaryFrom(SO->getObject("cycles_per_iteration"));
        S.Stability = num(SO, "stability");
        if (const json::Object *C = SO->getObject("counters"))
          for (const auto &KV : *C)
            S.Counters[KV.first.str()] = summaryFrom(KV.second.getAsObject());
        if (const json::Array *Rows = SO->getArray("rows"))
          for (const json::Value &RV : *Rows) {
            const json::Object *RO = RV.getAsObject();
            if (!RO)
              continue;
            ThreadRow T;
            if (auto Rk = RO->getInteger("rank"))
              T.Rank = *Rk;
            T.Pid = static_cast<uint64_t>(num(RO, "pid"));
            T.Thread = static_cast<uint64_t>(num(RO, "thread"));
            T.Tid = static_cast<uint64_t>(num(RO, "tid"));
            T.Calls = static_cast<uint64_t>(num(RO, "calls"));
            T.Excluded = static_cast<uint64_t>(num(RO, "excluded"));
            T.Cycles = summaryFrom(RO->getObject("cycles"));
            S.Rows.push_back(T);
          }
        if (const json::Array *Ps = SO->getArray("pairs"))
          for (const json::Value &PV : *Ps) {
            const json::Array *A = PV.getAsArray();
            if (!A || A->size() < 6)
              continue;
            auto At = [&](unsigned I) {
              return (*A)[I].getAsNumber().value_or(0);
            };
            Pair P;
            P.Var = At(0);
            P.Ref = At(1);
            P.Work = At(2);
            P.Weight = At(3);
            P.Call = static_cast<uint64_t>(At(4));
            P.RunPos = At(5);
            S.Pairs.push_back(P);
          }
        if (const json::Object *K = SO->getObject("pair_kinds"))
          for (unsigned I = 0; I < S.PairKinds.size(); ++I)
            S.PairKinds[I] = static_cast<uint64_t>(
                num(K, pairKindName(static_cast<PairKind>(I))));
        L.Variants[*Var] = std::move(S);
      }
    if (const json::Object *Run = LO->getObject("whole_run")) {
      L.RunCalls = static_cast<uint64_t>(num(Run, "calls"));
      L.RunIterations = static_cast<uint64_t>(num(Run, "iterations"));
      L.RunTripsKnown = static_cast<uint64_t>(num(Run, "trips_known"));
      L.RunCycles = num(Run, "cycles");
      L.UntimedCalls = static_cast<uint64_t>(num(Run, "untimed_calls"));
      L.VariantCalls = static_cast<uint64_t>(num(Run, "variant_calls"));
      L.VariantCycles = num(Run, "variant_cycles");
      L.InsideCycles = num(Run, "inside_cycles");
      L.TimedCalls =
          static_cast<uint64_t>(num(Run, "timed_calls", num(Run, "calls")));
      L.TimedCycles = num(Run, "timed_cycles", num(Run, "cycles"));
      L.MaxStride = static_cast<uint64_t>(num(Run, "max_stride", 1));
      L.Slots = static_cast<uint64_t>(num(Run, "slots"));
      L.Threads = static_cast<unsigned>(num(Run, "threads"));
      if (auto M = Run->getNumber("mean_trips"))
        L.RunMeanTrips = *M;
    }
    if (const json::Array *GA = LO->getArray("groups"))
      for (const json::Value &GV : *GA)
        if (const json::Object *GO = GV.getAsObject()) {
          MemoryGroup G;
          G.Name = str(GO, "name");
          G.Accesses = static_cast<unsigned>(num(GO, "accesses"));
          L.Groups.push_back(G);
        }
    L.NumGroups = static_cast<unsigned>(num(LO, "n_groups"));
    if (const json::Array *TA = LO->getArray("thread_totals"))
      for (const json::Value &TV : *TA)
        if (const json::Object *TO = TV.getAsObject()) {
          ThreadTotal T;
          if (auto Rk = TO->getInteger("rank"))
            T.Rank = *Rk;
          T.Pid = static_cast<uint64_t>(num(TO, "pid"));
          T.Thread = static_cast<uint64_t>(num(TO, "thread"));
          T.Tid = static_cast<uint64_t>(num(TO, "tid"));
          T.Calls = static_cast<uint64_t>(num(TO, "calls"));
          T.Cycles = num(TO, "cycles");
          L.ThreadTotals.push_back(T);
        }
    if (auto PS = LO->getNumber("program_share"))
      L.ProgramShare = *PS;
    L.ProgramShareLowerBound =
        LO->getBoolean("program_share_is_lower_bound").value_or(false);
    L.ProgramShareApproximate =
        LO->getBoolean("program_share_is_approximate").value_or(false);
    if (const json::Array *Ps = LO->getArray("parts"))
      for (const json::Value &PV : *Ps) {
        const json::Object *PO = PV.getAsObject();
        if (!PO)
          continue;
        RunPart Q;
        Q.From = num(PO, "from");
        Q.To = num(PO, "to", 1);
        Q.Calls = static_cast<uint64_t>(num(PO, "calls"));
        Q.Iterations = num(PO, "iterations");
        Q.Cycles = num(PO, "cycles");
        L.Parts.push_back(Q);
      }
    if (const json::Object *Sat = LO->getObject("saturation"))
      for (const auto &KV : *Sat)
        if (auto Var = parseVariant(KV.first))
          if (auto N = KV.second.getAsNumber())
            L.Saturation[*Var] = *N;
    if (L.Variants[Variant::REF])
      L.Saturation[Variant::REF] = 1.0;
    R.Loops.push_back(std::move(L));
  }
  return R;
}

Expected<Report> readReportFile(StringRef Path, bool &WasRaw) {
  WasRaw = false;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError("cannot read '%s': %s", Path.str().c_str(),
                             Buf.getError().message().c_str());
  auto V = json::parse((*Buf)->getBuffer());
  if (!V)
    return createStringError("'%s' is not valid JSON: %s", Path.str().c_str(),
                             toString(V.takeError()).c_str());
  if (const json::Object *O = V->getAsObject())
    if (O->getString("format") == "decan-raw-1" ||
        O->getString("format") == "decan-raw-2") {
      WasRaw = true;
      RawMerger M;
      if (Error E = M.add(*V, Path))
        return std::move(E);
      return M.finish();
    }
  auto R = reportFromJSON(*V);
  if (!R)
    return createStringError("'%s': %s", Path.str().c_str(),
                             toString(R.takeError()).c_str());
  return R;
}

} // namespace decan::tool
