//===- ReportTest.cpp - Merging raw reports, analysed JSON round trip -----===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Report.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/LoopTable.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace decan::tool;
using namespace llvm;

namespace {

/// A raw report of one process (rank \p Rank) with REF and LS of dot:L0.
std::string rawReport(int Rank, const char *RefRecords, const char *LsRecords,
                      const char *Extra = "") {
  std::string S = R"({"format":"decan-raw-1","version":"0.1.0",
    "status":"complete","crash":null,
    "process":{"pid":)" +
                  std::to_string(100 + Rank) + R"(,"rank":)" +
                  std::to_string(Rank) +
                  R"(,"argv":["./a"],"host":"h"},
    "machine":{"cpu":"Test CPU","tsc_hz":2e9,"logical_cpus":2},
    "config":{"mode":"rotate","loops":"all","variants":["REF","LS"],"reps":5},
    "probe":{"empty_region_cycles":{"min":20,"median":30}},
    "warnings":[],
    "loops":[{"id":"dot:L0","function":"_Z3dotPdi","file":"dot.c","line":7,
      "variant_mask":63,"store_policy":{"REF":"kept","LS":"as-load"},
      "threads":[{"thread":0,"tid":)" +
                  std::to_string(200 + Rank) + R"(,"calls_seen":12,
        "variants":{
          "REF":{"calls":5,"excluded":1,
                 "fields":["cycles","trips","flags","task-clock","call"],
                 "records":)" +
                  RefRecords + R"(,
                 "online":{"count":0,"min":0,"max":0,"mean":0,"m2":0,"trips_sum":0}},
          "LS":{"calls":5,"excluded":0,
                "fields":["trips","cycles","flags","call"],
                "records":)" +
                  LsRecords + R"(,
                "online":{"count":0,"min":0,"max":0,"mean":0,"m2":0,"trips_sum":0}}
        }})" + Extra +
                  R"(]}]})";
  return S;
}

TEST(RawMerger, MergesRanksAndSkipsFlaggedCalls) {
  RawMerger M;
  // Rank 0: REF 1000,1100,1200,1300 and one context-switched 9999.
  auto R0 = json::parse(
      rawReport(0,
                "[[1000,100,0,1,2],[1100,100,0,1,3],[9999,100,1,1,4],[1200,100,"
                "0,1,5],[1300,100,0,1,6]]",
                "[[100,500,0,2],[100,510,0,3],[100,520,0,4],[100,530,0,5]]"));
  ASSERT_TRUE(bool(R0)) << toString(R0.takeError());
  auto R1 = json::parse(rawReport(1, "[[1400,100,0,1,2],[1500,100,0,1,3]]",
                                  "[[100,540,0,2],[100,550,0,3]]"));
  ASSERT_TRUE(bool(R1));
  ASSERT_FALSE(bool(M.add(*R0, "/tmp/decan.rank0.json")));
  ASSERT_FALSE(bool(M.add(*R1, "/tmp/decan.rank1.json")));
  EXPECT_EQ(M.calls("dot:L0", Variant::REF), 6u);
  Report R = M.finish();
  ASSERT_EQ(R.Loops.size(), 1u);
  ASSERT_EQ(R.Processes.size(), 2u);
  EXPECT_EQ(*R.Processes[1].Rank, 1);
  EXPECT_EQ(R.ProbeCycles, 30);
  const LoopReport &L = R.Loops[0];
  const VariantStats &Ref = *L.Variants[Variant::REF];
  EXPECT_EQ(Ref.Calls, 6u);
  EXPECT_EQ(Ref.Excluded, 2u); // each rank's report says 1
  EXPECT_EQ(Ref.Cycles.Min, 1000);
  EXPECT_EQ(Ref.Cycles.Median, 1250); // of 1000..1500, the 9999 excluded
  EXPECT_EQ(Ref.Cycles.Max, 1500);
  EXPECT_EQ(Ref.Iterations, 600u);
  EXPECT_DOUBLE_EQ(Ref.CyclesPerIter.Median, 12.5);
  EXPECT_DOUBLE_EQ(Ref.Stability, 0.25);
  ASSERT_EQ(Ref.Rows.size(), 2u); // one row per rank and thread
  EXPECT_EQ(*Ref.Rows[1].Rank, 1);
  EXPECT_EQ(Ref.Rows[1].Tid, 201u);
  // Counter fields (anything but cycles, trips, flags, call) per event.
  ASSERT_EQ(Ref.Counters.size(), 1u);
  EXPECT_EQ(Ref.Counters.at("task-clock").Median, 1);
  EXPECT_TRUE(L.Variants[Variant::LS]->Counters.empty());
  // LS's fields list trips first: positions come from "fields".
  const VariantStats &Ls = *L.Variants[Variant::LS];
  EXPECT_EQ(Ls.Cycles.Median, 525);
  analyse(R);
  EXPECT_DOUBLE_EQ(*R.Loops[0].Saturation[Variant::LS], 525.0 / 1250.0);
}

/// One process that ran dot:L0 1000 times (every call timed, 1000 cycles in
/// all per call, probes included) for \p WallCycles, of which it waited
/// \p WaitUs for a CPU; the runtime measured the probes' \p Probe.
std::string wholeRunReport(const char *Probe, double WallCycles,
                           double WaitUs) {
  return R"({"format":"decan-raw-2","version":"0.1.0","status":"complete",
    "process":{"pid":1,"argv":["./a"],"host":"h","wall_cycles":)" +
         std::to_string(WallCycles) + R"(,"main_runqueue_wait_us":)" +
         std::to_string(WaitUs) + R"(},
    "machine":{"cpu":"Test CPU","tsc_hz":1e9,"logical_cpus":2},
    "config":{"mode":"rotate","loops":"all","variants":["REF"],"reps":5},
    "probe":)" +
         Probe + R"(,"warnings":[],
    "loops":[{"id":"dot:L0","function":"dot","file":"dot.c","line":7,
      "variant_mask":1,"threads":[{"thread":0,"tid":2,"calls_seen":1000,
        "totals":{"calls":1000,"iterations":100000,"trips_known":1000,
                  "cycles":1000000},
        "variants":{}}]}]})";
}

TEST(RawMerger, TakesTheProbesCallCostOffEachCall) {
  // The empty region costs 50, but a call longer than the probes pays only
  // 20 of it: each call's own time is 1000 - 20.
  RawMerger M;
  auto V = json::parse(wholeRunReport(
      R"({"empty_region_cycles":{"min":49,"median":50},
          "call_cost_centicycles":2000})",
      2e6, 0));
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  ASSERT_FALSE(bool(M.add(*V, "r.json")));
  Report R = M.finish();
  EXPECT_EQ(R.ProbeCycles, 50);
  EXPECT_EQ(R.ProbeCallCycles, 20);
  ASSERT_EQ(R.Loops.size(), 1u);
  EXPECT_DOUBLE_EQ(R.Loops[0].TimeCycles, 1000 * (1000.0 - 20));
  EXPECT_TRUE(R.Warnings.empty());

  // A runtime that did not measure it: the empty region's cost, as before.
  RawMerger Old;
  auto O = json::parse(wholeRunReport(
      R"({"empty_region_cycles":{"min":49,"median":50}})", 2e6, 0));
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(Old.add(*O, "r.json")));
  Report RO = Old.finish();
  EXPECT_EQ(RO.ProbeCallCycles, 50);
  EXPECT_DOUBLE_EQ(RO.Loops[0].TimeCycles, 1000 * (1000.0 - 50));
}

TEST(RawMerger, SaysWhenTheProgramWaitedForACpu) {
  // 2e6 cycles at 1 GHz = 2000 us of wall time, 500 us of it waiting.
  RawMerger M;
  auto V = json::parse(wholeRunReport(
      R"({"empty_region_cycles":{"min":49,"median":50}})", 2e6, 500));
  ASSERT_TRUE(bool(V));
  ASSERT_FALSE(bool(M.add(*V, "r.json")));
  Report R = M.finish();
  ASSERT_EQ(R.Warnings.size(), 1u);
  EXPECT_NE(R.Warnings[0].find("waited 25% of its run"), std::string::npos)
      << R.Warnings[0];
  // The wait is in the wall time, and in any call it fell into: kept.
  EXPECT_DOUBLE_EQ(R.Processes[0].WallCycles, 2e6);
}

TEST(RawMerger, TheWaitIsAShareOfTheSameInterval) {
  // The runtime's TSC rate was calibrated on a busy machine, 20 times too
  // high: over wall_cycles the 500 us of wait would be 500% of a 100 us
  // run. Over the run measured with it (2000 us, the same clock and
  // interval) it is 25%.
  auto Proc = json::parse(R"({"wall_cycles":2e6,"main_runqueue_wait_us":500,
                              "main_runqueue_run_us":2000})");
  ASSERT_TRUE(bool(Proc));
  auto Share = runqueueWaitShare(Proc->getAsObject(), 2e10);
  ASSERT_TRUE(Share.has_value());
  EXPECT_DOUBLE_EQ(*Share, 0.25);
  // Through the merger: the warning says 25%.
  RawMerger M;
  std::string S = wholeRunReport(
      R"({"empty_region_cycles":{"min":49,"median":50}})", 2e6, 500);
  S.replace(S.find(R"("tsc_hz":1e9)"), std::strlen(R"("tsc_hz":1e9)"),
            R"("tsc_hz":2e10)");
  S.replace(S.find(R"("main_runqueue_wait_us")"), 0,
            R"("main_runqueue_run_us":2000,)");
  auto V = json::parse(S);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  ASSERT_FALSE(bool(M.add(*V, "r.json")));
  Report R = M.finish();
  ASSERT_EQ(R.Warnings.size(), 1u);
  EXPECT_NE(R.Warnings[0].find("waited 25% of its run"), std::string::npos)
      << R.Warnings[0];

  // An older runtime (no run of its own): never more than the whole run.
  auto Old = json::parse(R"({"wall_cycles":1e5,"main_runqueue_wait_us":500})");
  ASSERT_TRUE(bool(Old));
  Share = runqueueWaitShare(Old->getAsObject(), 1e9);
  ASSERT_TRUE(Share.has_value());
  EXPECT_DOUBLE_EQ(*Share, 1.0);
  EXPECT_FALSE(runqueueWaitShare(nullptr, 1e9).has_value());
}

/// A `decan-raw-3` report (docs/runtime.md) of one thread that called
/// dot:L0 8 times: REF and LS samples paired with their REF neighbours, the
/// whole run in 4 parts of 2 calls.
const char *Raw3Report = R"({"format":"decan-raw-3","version":"0.1.0",
  "status":"complete","crash":null,
  "process":{"pid":7,"rank":null,"argv":["./a"],"host":"h","wall_cycles":1e6,
             "cpu_us":400,"threads":1},
  "machine":{"cpu":"Test CPU","tsc_hz":1e9,"logical_cpus":2},
  "config":{"mode":"rotate","loops":"all","variants":["REF","LS"],"reps":2},
  "probe":{"empty_region_cycles":{"min":20,"median":30},
           "call_cost_centicycles":2000,"slot_fixed_cycles":100,
           "countdown_centicycles":250},
  "warnings":[],"objects":["/lib/libc.so.6"],
  "loops":[{"id":"dot:L0","function":"dot","file":"dot.c","line":7,
    "variant_mask":3,"store_policy":{"REF":"kept","LS":"as-load"},
    "threads":[{"thread":0,"tid":8,"calls_seen":8,"slots":2,
      "whole_run":{"calls":8,"iterations":800,"trips_known":8,"cycles":8000,
        "tail_calls":0,"timed_calls":8,"timed_cycles":8000,"max_stride":1,
        "disturbed":0,"untimed_calls":2,"variant_calls":2,
        "variant_cycles":1000,"inside_cycles":9000,"calls_per_part":2,
        "parts":[[2,200,1900],[2,200,2000],[2,200,2000],[2,200,2100]]},
      "variants":{
        "REF":{"calls":2,"excluded":0,
          "fields":["cycles","trips","flags","call","pre_cycles","pre_trips",
                    "post_cycles","post_trips","rerun_trips"],
          "records":[[1000,100,0,2,990,100,1010,100,0],
                     [1000,100,0,6,1000,100,1000,100,0]],
          "online":{"count":0,"min":0,"max":0,"sum":0,"trips_sum":0}},
        "LS":{"calls":2,"excluded":0,
          "fields":["cycles","trips","flags","call","pre_cycles","pre_trips",
                    "post_cycles","post_trips","rerun_trips"],
          "records":[[500,100,0,4,1000,100,1000,100,100],
                     [500,100,0,8,1000,100,1000,200,100]],
          "online":{"count":0,"min":0,"max":0,"sum":0,"trips_sum":0}}}}]}]})";

TEST(RawMerger, ReadsTheWholeRunAndPairsEachThread) {
  auto V = json::parse(Raw3Report);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  RawMerger M;
  ASSERT_FALSE(bool(M.add(*V, "/tmp/decan.7.json")));
  Report R = M.finish();
  ASSERT_EQ(R.Loops.size(), 1u);
  const LoopReport &L = R.Loops[0];
  EXPECT_EQ(L.RunCalls, 8u);
  EXPECT_EQ(L.UntimedCalls, 2u);
  EXPECT_EQ(L.InsideCycles, 9000);
  EXPECT_EQ(L.Slots, 2u);
  EXPECT_EQ(R.ProbeCallCycles, 20);
  EXPECT_EQ(R.CountdownCycles, 2.5);
  EXPECT_EQ(R.Objects, std::vector<std::string>{"/lib/libc.so.6"});
  // Part k of 2 calls is quarter k of the thread's 8.
  ASSERT_EQ(L.Parts.size(), 4u);
  EXPECT_EQ(L.Parts[0].Cycles, 1900);
  EXPECT_EQ(L.Parts[3].Cycles, 2100);
  EXPECT_EQ(L.Parts[3].From, 0.75);
  // Each LS sample paired with its REF neighbours of the same work; the
  // second's post neighbour ran 200 trips: only the pre one counts.
  const VariantStats &Ls = *L.Variants[Variant::LS];
  ASSERT_EQ(Ls.Pairs.size(), 2u);
  EXPECT_EQ(Ls.PairKinds[static_cast<unsigned>(PairKind::Exact)], 2u);
  EXPECT_EQ(Ls.Pairs[0].Ref, 1000);
  EXPECT_EQ(Ls.Pairs[1].Call, 8u);
  EXPECT_EQ(Ls.Pairs[1].RunPos, 1);
  EXPECT_TRUE(R.Config.getBoolean("paired").value_or(false));
}

TEST(RawMerger, ChargesARewrittenDispatchersStateSaveToDecan) {
  // The same run through a rewritten dispatcher: 6 entries, 4 of them
  // answered quick (a thread's stride counting down: calls the runtime
  // did not time), at 300 cycles per full entry and 40 per quick one.
  std::string S = Raw3Report;
  for (auto [From, To] :
       {std::pair<std::string, std::string>{
            R"("countdown_centicycles":250)",
            R"("countdown_centicycles":250,"dispatch_centicycles":30000,)"
            R"("dispatch_quick_centicycles":4000)"},
        {R"("calls":8,"iterations")", R"("calls":12,"iterations")"},
        {R"("inside_cycles":9000,)",
         R"("inside_cycles":9000,"dispatch_calls":6,"quick_calls":4,)"}}) {
    size_t At = S.find(From);
    ASSERT_NE(At, std::string::npos) << From;
    S.replace(At, From.size(), To);
  }
  auto V = json::parse(S), V0 = json::parse(Raw3Report);
  ASSERT_TRUE(V && V0);
  RawMerger M, M0;
  ASSERT_FALSE(bool(M.add(*V, "r.json")));
  ASSERT_FALSE(bool(M0.add(*V0, "r.json")));
  Report R = M.finish(), R0 = M0.finish();
  const LoopReport &L = R.Loops[0];
  EXPECT_EQ(L.DispatchCalls, 6u);
  EXPECT_EQ(L.QuickCalls, 4u);
  EXPECT_EQ(R.DispatchCycles, 300);
  EXPECT_EQ(R.DispatchQuickCycles, 40);
  // The plain run: inside less the loop's own (9000 - (8000 - 8 x 20)),
  // no call untimed. With the dispatcher: 4 calls untimed, each a quick
  // entry (not the stub's countdown), and 2 full entries.
  EXPECT_DOUBLE_EQ(R0.OverheadCycles, 9000 - (8000 - 8 * 20));
  EXPECT_DOUBLE_EQ(R.OverheadCycles, R0.OverheadCycles + 4 * 40 + 2 * 300);
  // The program's own time is the process's less all of it.
  ASSERT_TRUE(decanAddedShare(R) && decanAddedShare(R0));
  double Process = R.ProcessCycles;
  EXPECT_DOUBLE_EQ(*decanAddedShare(R),
                   R.OverheadCycles / (Process - R.OverheadCycles));
  ASSERT_TRUE(L.ProgramShare);
  EXPECT_DOUBLE_EQ(*L.ProgramShare, L.TimeCycles / (Process - R.OverheadCycles))
      << "what decan adds is no part of the program's time";
}

TEST(RawMerger, ReadsTheRawFormatBeforeWithItsNames) {
  // decan-raw-2 named whole_run "totals", untimed_calls "untimed", the
  // parts "buckets" of "bucket_width" calls: the same run, the same report.
  std::string Old = Raw3Report;
  for (auto [From, To] : {std::pair{"decan-raw-3", "decan-raw-2"},
                          {"whole_run", "totals"},
                          {"untimed_calls", "untimed"},
                          {"calls_per_part", "bucket_width"},
                          {"\"parts\"", "\"buckets\""}}) {
    size_t At = Old.find(From);
    ASSERT_NE(At, std::string::npos) << From;
    Old.replace(At, std::strlen(From), To);
  }
  auto V3 = json::parse(Raw3Report), V2 = json::parse(Old);
  ASSERT_TRUE(V3 && V2);
  RawMerger M3, M2;
  ASSERT_FALSE(bool(M3.add(*V3, "r.json")));
  ASSERT_FALSE(bool(M2.add(*V2, "r.json")));
  auto Text = [](const Report &R) { return formatv("{0}", toJSON(R)).str(); };
  EXPECT_EQ(Text(M2.finish()), Text(M3.finish()));
  EXPECT_EQ(M2.finish().Loops[0].UntimedCalls, 2u);
}

TEST(RawMerger, OnlineStatisticsWidenTheRange) {
  RawMerger M;
  std::string S = rawReport(0, "[[1000,10,0,1,2],[1200,10,0,1,3]]", "[]");
  // Replace REF's online part.
  size_t P = S.find(R"("online":{"count":0)");
  S.replace(P, std::strlen(R"("online":{"count":0,"min":0,"max":0,"mean":0)"),
            R"("online":{"count":4,"min":900,"max":2000,"mean":1500)");
  auto V = json::parse(S);
  ASSERT_TRUE(bool(V));
  ASSERT_FALSE(bool(M.add(*V, "r.json")));
  Report R = M.finish();
  const VariantStats &Ref = *R.Loops[0].Variants[Variant::REF];
  EXPECT_EQ(Ref.Calls, 6u);
  EXPECT_EQ(Ref.Cycles.Min, 900);
  EXPECT_EQ(Ref.Cycles.Max, 2000);
  EXPECT_EQ(Ref.Cycles.Median, 1100);
  EXPECT_DOUBLE_EQ(Ref.MeanCycles, (1000 + 1200 + 4 * 1500) / 6.0);
}

TEST(RawMerger, RejectsOtherFormats) {
  RawMerger M;
  auto V = json::parse(R"({"format":"something-else"})");
  Error E = M.add(*V, "x.json");
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("not a decan raw report"),
            std::string::npos);
}

TEST(AnalysedJSON, RoundTrips) {
  RawMerger M;
  auto V = json::parse(rawReport(0, "[[1000,100,0,1,2],[1100,100,0,1,3]]",
                                 "[[100,500,0,2],[100,600,0,3]]"));
  ASSERT_FALSE(bool(M.add(*V, "r.json")));
  Report R = M.finish();
  analyse(R);
  json::Value J = toJSON(R);
  const json::Object *O = J.getAsObject();
  ASSERT_TRUE(O);
  EXPECT_EQ(O->getString("tool"), "decan");
  const json::Object *L0 = (*O->getArray("loops"))[0].getAsObject();
  for (const char *K : {"id", "function", "file", "line", "share", "variants",
                        "saturation", "diagnosis", "warnings"})
    EXPECT_TRUE(L0->get(K)) << K;
  const json::Object *Ref = L0->getObject("variants")->getObject("REF");
  for (const char *K :
       {"calls", "iterations", "cycles", "cycles_per_iteration", "stability"})
    EXPECT_TRUE(Ref->get(K)) << K;
  EXPECT_TRUE(Ref->getObject("cycles")->get("max"));
  auto Back = reportFromJSON(J);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  analyse(*Back);
  ASSERT_EQ(Back->Loops.size(), 1u);
  EXPECT_EQ(Back->Loops[0].Function, "_Z3dotPdi");
  EXPECT_EQ(*Back->Loops[0].Saturation[Variant::LS],
            *R.Loops[0].Saturation[Variant::LS]);
  EXPECT_EQ(Back->Loops[0].Variants[Variant::REF]->Rows.size(), 1u);
  EXPECT_EQ(Back->Loops[0].Warnings, R.Loops[0].Warnings);
}

TEST(LoopTable, ParsesRecordsAndPadding) {
  auto Record = [](const char *Strings, size_t Len, uint32_t Mask) {
    decan_meta_record H{};
    std::memcpy(H.magic, "DCN1", 4);
    H.strings_size = Len;
    H.record_size = (sizeof(H) + Len + 7) & ~7u;
    H.abi_version = DECAN_ABI_VERSION;
    H.variant_mask = Mask;
    H.line = 12;
    H.minfo.status[DECAN_REF] = DECAN_VARIANT_OK;
    H.minfo.status[DECAN_LS] = DECAN_VARIANT_VERIFIER;
    H.minfo.loop_bytes[DECAN_REF] = 42;
    std::string S(reinterpret_cast<const char *>(&H), sizeof(H));
    S.append(Strings, Len);
    S.resize(H.record_size, '\0');
    return S;
  };
  std::string Bytes = Record("f:L0\0_Z1fv\0a.c\0", 15, 3) +
                      std::string(8, '\0') + // padding between objects
                      Record("g:L0\0g\0a.c\0call inside", 22, 0);
  auto Loops = parseLoopTable(Bytes);
  ASSERT_TRUE(bool(Loops)) << toString(Loops.takeError());
  ASSERT_EQ(Loops->size(), 2u);
  const MetaLoop &F = (*Loops)[0];
  EXPECT_EQ(F.Id, "f:L0");
  EXPECT_EQ(F.Function, "_Z1fv");
  EXPECT_EQ(demangleSymbol(F.Function), "f()");
  EXPECT_EQ(F.Line, 12u);
  EXPECT_TRUE(F.available(DECAN_REF));
  EXPECT_EQ(F.whyNot(DECAN_LS), "verifier");
  EXPECT_EQ(F.whyNot(DECAN_FP), "not-emitted");
  EXPECT_EQ((*Loops)[1].SkipReason, "call inside");
  EXPECT_FALSE(bool(parseLoopTable(Bytes.substr(0, 20))));
  std::string Bad = Bytes;
  Bad[0] = 'X';
  EXPECT_FALSE(bool(parseLoopTable(Bad)));
}

TEST(Variants, ParseList) {
  auto V = parseVariantList("LS,REF,NO_DIV");
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V,
            (std::vector<Variant>{Variant::LS, Variant::REF, Variant::NO_DIV}));
  auto Bad = parseVariantList("LS,FOO");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("unknown variant 'FOO'"),
            std::string::npos);
  auto All = parseVariantList("all");
  ASSERT_TRUE(bool(All));
  ASSERT_EQ(All->size(), size_t(NumVariants));
  EXPECT_EQ(All->back(), Variant::NO_G3);
  auto Mixed = parseVariantList("LS,all"); // "all" stands alone
  ASSERT_FALSE(bool(Mixed));
  consumeError(Mixed.takeError());
}

} // namespace
