//===- AnalysisListTest.cpp - The analysis list and the name tables -------===//
//
// Part of decan. Recorded runs (Inputs/analyses/*: raw reports of decan
// run on lit/tool's programs, and what decan made of them before the
// analyses became a list) analysed again must say the same; every analysis
// of the list must take part; every enum must read back from its name.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/AnalysisList.h"
#include "decan/Tool/Report.h"
#include "decan/Tool/Verdicts.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <set>

using namespace decan::tool;
using namespace llvm;

namespace {

//===----------------------------------------------------------------------===//
// Name tables
//===----------------------------------------------------------------------===//

/// Each value of \p E is in its table once, in enum order (so the table
/// has them all), and reads back from its name; no two share a name.
template <typename E> void expectRoundTrip() {
  const auto &Names = EnumNames<E>::Names;
  std::set<std::string> Seen;
  for (size_t I = 0; I < std::size(Names); ++I) {
    E V = Names[I].first;
    EXPECT_EQ(static_cast<size_t>(V), I) << Names[I].second;
    EXPECT_EQ(nameOf(V), Names[I].second);
    EXPECT_EQ(parseName<E>(nameOf(V)), V) << Names[I].second;
    EXPECT_TRUE(Seen.insert(Names[I].second).second) << Names[I].second;
  }
  EXPECT_EQ(parseName<E>("no such name"), std::nullopt);
}

TEST(NameTables, EveryEnumReadsBackFromItsName) {
  expectRoundTrip<StreamsClass>();
  expectRoundTrip<MemoryCpuClass>();
  expectRoundTrip<VerdictClass>();
  expectRoundTrip<CompareVerdict>();
  expectRoundTrip<MatchKind>();
  expectRoundTrip<SpeedupPer>();
}

TEST(NameTables, EnumsAreTheirNamesInJSON) {
  json::Value V = json::Object{{"verdict", VerdictClass::Inconclusive},
                               {"basis", SpeedupPer::Call}};
  EXPECT_EQ(*V.getAsObject()->getString("verdict"), "inconclusive");
  VerdictClass C = VerdictClass::None;
  SpeedupPer B = SpeedupPer::None;
  json::Path::Root Root;
  json::ObjectMapper O(V, Root);
  EXPECT_TRUE(O && O.map("verdict", C) && O.map("basis", B));
  EXPECT_EQ(C, VerdictClass::Inconclusive);
  EXPECT_EQ(B, SpeedupPer::Call);
  EXPECT_FALSE(fromJSON(V, C, Root)); // an object is no name
  EXPECT_FALSE(fromJSON(json::Value("memory bound"), C, Root));
  EXPECT_EQ(C, VerdictClass::Inconclusive); // left as it was
}

TEST(NameTables, TheReportsSpellingIsKept) {
  // What analysed and compared reports hold (docs/tool.md, docs/pgo.md).
  EXPECT_EQ(nameOf(StreamsClass::FPBound), "fp-bound");
  EXPECT_EQ(nameOf(StreamsClass::None), "");
  EXPECT_EQ(nameOf(MemoryCpuClass::CpuBound), "cpu-bound");
  EXPECT_EQ(nameOf(VerdictClass::LatencyBound), "latency-bound");
  EXPECT_EQ(nameOf(VerdictClass::NearThreshold), "near a threshold");
  EXPECT_EQ(nameOf(CompareVerdict::GainNonePredicted), "gain, none predicted");
  EXPECT_EQ(nameOf(MatchKind::SourceLocation), "source location");
  EXPECT_EQ(nameOf(SpeedupPer::SourceIteration), "per source iteration");
  // A streams class is the verdict of the same name.
  for (const auto &[C, Name] : EnumNames<StreamsClass>::Names)
    EXPECT_EQ(nameOf(verdictOf(C)), Name);
}

TEST(NameTables, OnlyGainsAreGains) {
  std::vector<CompareVerdict> Gains;
  for (const auto &[V, Name] : EnumNames<CompareVerdict>::Names)
    if (isGain(V))
      Gains.push_back(V);
  EXPECT_EQ(Gains,
            (std::vector<CompareVerdict>{CompareVerdict::GainShowedUp,
                                         CompareVerdict::BeyondPrediction,
                                         CompareVerdict::GainNonePredicted}));
}

//===----------------------------------------------------------------------===//
// Recorded runs
//===----------------------------------------------------------------------===//

std::string inputs(StringRef Name) {
  SmallString<128> P(DECAN_TEST_INPUTS);
  sys::path::append(P, "analyses", Name);
  return std::string(P);
}

/// The raw reports of a recorded run merged as decan run merges them (run
/// N from "runN.decan.PID.json"), not yet analysed.
Report merged(StringRef Name) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(inputs(Name), EC), End; It != End && !EC;
       It.increment(EC))
    if (sys::path::filename(It->path()).starts_with("run"))
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  EXPECT_FALSE(Files.empty()) << inputs(Name);
  RawMerger M;
  for (const std::string &F : Files) {
    unsigned Run = 0;
    sys::path::filename(F).drop_front(3).consumeInteger(10, Run);
    M.setRun(Run);
    EXPECT_FALSE(bool(M.addFile(F))) << F;
  }
  return M.finish();
}

/// What the analyses wrote into a report, as the recorded expectations
/// hold it (the loops' verdicts, saturations, shares, ranks, diagnosis and
/// warnings; the report's coverage and warnings).
json::Value analysed(const Report &R) {
  static const char *Keys[] = {"verdict",
                               "streams",
                               "memory_cpu",
                               "diagnosis",
                               "warnings",
                               "saturation",
                               "saturation_interval",
                               "share",
                               "program_share",
                               "program_share_is_lower_bound",
                               "program_share_is_approximate",
                               "rank_by_share",
                               "rank_by_dl1_gain",
                               "dl1_gain",
                               "div_gain",
                               "ctrl_share",
                               "groups",
                               "thread_spread"};
  json::Value All = toJSON(R);
  const json::Object &O = *All.getAsObject();
  json::Array Loops;
  for (const json::Value &LV : *O.getArray("loops")) {
    const json::Object &L = *LV.getAsObject();
    json::Object Out{{"id", *L.get("id")}};
    // The report-2 writer spells every member (null, or an object of nulls,
    // when unset; groups as []); the expectations were recorded by
    // report-1's, which left those out.
    auto Unset = [](StringRef K, const json::Value &V) {
      if (V.kind() == json::Value::Null)
        return true;
      if (const json::Array *A = V.getAsArray())
        return K == "groups" && A->empty();
      if (const json::Object *Ob = V.getAsObject())
        return !Ob->empty() && llvm::all_of(*Ob, [](const auto &KV) {
          return KV.second.kind() == json::Value::Null;
        });
      return false;
    };
    for (const char *K : Keys)
      if (const json::Value *V = L.get(K); V && !Unset(K, *V))
        Out[K] = *V;
    json::Array Parts;
    for (const json::Value &P : *L.getArray("parts"))
      Parts.push_back(
          json::Object{{"saturation", *P.getAsObject()->get("saturation")},
                       {"streams", *P.getAsObject()->get("streams")}});
    Out["parts"] = std::move(Parts);
    json::Array Threads;
    if (const json::Array *TA = L.getArray("thread_totals"))
      for (const json::Value &T : *TA) {
        const json::Value *S = T.getAsObject()->get("s2l_saturation");
        Threads.push_back(S ? *S : json::Value(nullptr));
      }
    Out["thread_totals"] = std::move(Threads);
    const json::Value *Trips =
        L.getObject("whole_run")->get("sample_mean_trips");
    Out["sample_mean_trips"] = Trips ? *Trips : json::Value(nullptr);
    Loops.push_back(std::move(Out));
  }
  return json::Object{{"coverage", *O.get("coverage")},
                      {"warnings", *O.get("warnings")},
                      {"loops", std::move(Loops)}};
}

const char *Recorded[] = {"synth", "synth3", "groups", "chase", "replace"};

TEST(RecordedRuns, SayWhatTheyDidBeforeTheAnalysesWereAList) {
  for (const char *Name : Recorded) {
    Report R = merged(Name);
    analyse(R);
    auto Expected = readJSONFile(inputs(Name) + "/expected.json");
    ASSERT_TRUE(bool(Expected)) << toString(Expected.takeError());
    json::Value Got = analysed(R);
    EXPECT_EQ(Got, *Expected)
        << Name << ": got " << formatv("{0:2}", Got).str();
  }
}

TEST(RecordedRuns, AnalysingTwiceChangesNothing) {
  for (const char *Name : Recorded) {
    Report R = merged(Name);
    analyse(R);
    json::Value Once = toJSON(R);
    analyse(R);
    EXPECT_EQ(toJSON(R), Once) << Name;
    // Read back from its JSON, the report analyses to the same.
    auto Back = reportFromJSON(Once);
    ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
    analyse(*Back);
    EXPECT_EQ(analysed(*Back), analysed(R)) << Name;
  }
}

//===----------------------------------------------------------------------===//
// Saturations no claim may rest on
//===----------------------------------------------------------------------===//

/// synth's busiest loop with \p V's samples made \p Factor times slower.
Report slowed(Variant V, double Factor, size_t &Loop) {
  Report R = merged("synth");
  analyse(R);
  Loop = 0;
  for (size_t I = 0; I < R.Loops.size(); ++I)
    if (R.Loops[I].TimeCycles > R.Loops[Loop].TimeCycles)
      Loop = I;
  EXPECT_NE(R.Loops[Loop].Verdict, VerdictClass::Inconclusive);
  for (Pair &P : R.Loops[Loop].Variants[V]->Pairs)
    P.Var *= Factor;
  analyse(R);
  return R;
}

bool anyContains(const std::vector<std::string> &Lines, StringRef S) {
  return llvm::any_of(
      Lines, [&](const std::string &L) { return StringRef(L).contains(S); });
}

TEST(SuspectVariants, ALoopSlowerInARemovalVariantGetsNoVerdict) {
  size_t I = 0;
  Report R = slowed(Variant::LS, 3, I);
  const LoopReport &L = R.Loops[I];
  EXPECT_GT(*L.Saturation[Variant::LS], 1.1); // the table still shows it
  EXPECT_EQ(L.Verdict, VerdictClass::Inconclusive);
  EXPECT_TRUE(StringRef(L.Inconclusive).contains("LS slower than the loop"))
      << L.Inconclusive;
  EXPECT_EQ(L.VerdictConfidence, 0);
  EXPECT_EQ(L.MemoryCpu, MemoryCpuClass::None) << "memory vs CPU reads LS";
  EXPECT_FALSE(anyContains(L.Diagnosis, "memory-bound ("));
  // A second slow variant is named and left out too.
  for (Pair &P : R.Loops[I].Variants[Variant::DL1]->Pairs)
    P.Var *= 4;
  analyse(R);
  EXPECT_TRUE(StringRef(R.Loops[I].Inconclusive).contains("DL1 slower"))
      << R.Loops[I].Inconclusive;
  EXPECT_FALSE(R.Loops[I].DL1Gain);
}

TEST(SuspectVariants, OtherVariantsStillSpeakWithoutTheSlowOne) {
  size_t I = 0;
  Report R = slowed(Variant::DL1, 3, I);
  const LoopReport &L = R.Loops[I];
  EXPECT_NE(L.Verdict, VerdictClass::Inconclusive) << "LS and FP are sound";
  EXPECT_TRUE(anyContains(L.Diagnosis, "DL1 slower than the loop"));
  EXPECT_FALSE(L.DL1Gain) << "no gain rests on DL1";
  EXPECT_FALSE(anyContains(L.Diagnosis, "Sat(DL1)="));
}

/// A short call's copy runs cold (an identical copy entered 1 in 20 calls
/// reads 1.14-1.33x on 147-172-cycle calls): a removal variant above
/// MaxVariantSat by no more than the short-call term is named for it, and
/// still left out of every claim.
TEST(SuspectVariants, ShortCallsNameTheirTermAndStillLeaveItOut) {
  size_t I = 0;
  Report R = slowed(Variant::LS, 1.3, I);
  ASSERT_TRUE(StringRef(R.Loops[I].Inconclusive).contains("LS slower"));
  // Probes of a sixth of REF's call: the term is 0.5.
  R.ProbeCycles = R.Loops[I].Variants[Variant::REF]->Cycles.Median / 6;
  analyse(R);
  const LoopReport &L = R.Loops[I];
  EXPECT_GT(*L.Saturation[Variant::LS], 1.2);
  EXPECT_EQ(L.Verdict, VerdictClass::Inconclusive);
  EXPECT_EQ(L.VerdictConfidence, 0);
  EXPECT_TRUE(StringRef(L.Inconclusive).contains("LS reads 1.2"))
      << L.Inconclusive;
  EXPECT_TRUE(StringRef(L.Inconclusive).contains("within the short-call term"))
      << L.Inconclusive;
  EXPECT_FALSE(StringRef(L.Inconclusive).contains("LS slower"));
  // Past the term it is slower than the loop again.
  for (Pair &P : R.Loops[I].Variants[Variant::LS]->Pairs)
    P.Var *= 2;
  analyse(R);
  EXPECT_TRUE(StringRef(R.Loops[I].Inconclusive).contains("LS slower"))
      << R.Loops[I].Inconclusive;
}

/// Streams that would be confident but for the short-call term: more
/// samples would not settle it.
TEST(SuspectVariants, ShortCallTermAloneSaysSamplesWouldNotSettleIt) {
  size_t I = 0;
  Report R = slowed(Variant::FP, 2.2, I);
  R.ProbeCycles = R.Loops[I].Variants[Variant::REF]->Cycles.Median / 6;
  analyse(R);
  EXPECT_LE(*R.Loops[I].Saturation[Variant::LS], 1.1);
  EXPECT_TRUE(StringRef(R.Loops[I].Inconclusive)
                  .contains("more samples would not settle it"))
      << R.Loops[I].Inconclusive;
  // Without the term the same pairs give a verdict.
  R.ProbeCycles = 0;
  analyse(R);
  EXPECT_NE(R.Loops[I].Verdict, VerdictClass::Inconclusive)
      << R.Loops[I].Inconclusive;
}

/// CTRL read past 1 on short calls is no share: the diagnosis gives the
/// range down to the short-call term, and advice only where all of it is
/// above CtrlHigh.
TEST(SuspectVariants, ShortCallCtrlPastOneIsARange) {
  size_t I = 0;
  Report R = slowed(Variant::CTRL, 1, I);
  LoopReport &L = R.Loops[I];
  ASSERT_TRUE(L.Variants[Variant::CTRL]);
  for (Pair &P : L.Variants[Variant::CTRL]->Pairs)
    P.Var = 1.08 * P.Ref; // past 1, not past MaxVariantSat
  R.ProbeCycles = L.Variants[Variant::REF]->Cycles.Median / 6;
  analyse(R);
  EXPECT_TRUE(anyContains(L.Diagnosis, "take 58-100% of a call"));
  EXPECT_TRUE(anyContains(L.Diagnosis, "unroll"));
  R.ProbeCycles = L.Variants[Variant::REF]->Cycles.Median / 3;
  analyse(R);
  EXPECT_TRUE(anyContains(L.Diagnosis, "take 8-100% of a call"));
  EXPECT_FALSE(anyContains(L.Diagnosis, "unroll")) << "0.08 < CtrlHigh";
  // A term smaller than the excess: even the low end is the whole call.
  R.ProbeCycles = L.Variants[Variant::REF]->Cycles.Median / 60;
  analyse(R);
  EXPECT_TRUE(anyContains(L.Diagnosis, "take 100% of a call (Sat(CTRL)=1.08"));
  // Past MaxVariantSat, within the term or not, CTRL is no basis for a
  // claim: a removal variant slower than the loop.
  for (Pair &P : L.Variants[Variant::CTRL]->Pairs)
    P.Var = 1.25 * P.Ref;
  R.ProbeCycles = L.Variants[Variant::REF]->Cycles.Median / 15;
  analyse(R);
  EXPECT_FALSE(anyContains(L.Diagnosis, "of a call (Sat(CTRL)"));
  EXPECT_TRUE(StringRef(L.Inconclusive).contains("CTRL reads 1.2") ||
              anyContains(L.Diagnosis, "CTRL reads 1.2"));
}

/// The REF sample follows the slot's system calls and its neighbours do
/// not: on short calls REF-vs-REF above 1.1 within the term is named for
/// it; no saturation is used either way.
TEST(SuspectVariants, ShortCallsNameREFTwinsTermAbove) {
  for (double Factor : {1.3, 2.0, 0.8}) {
    size_t I = 0;
    Report R = slowed(Variant::REF, Factor, I);
    ASSERT_TRUE(StringRef(R.Loops[I].Inconclusive).contains("REF against"));
    R.ProbeCycles = R.Loops[I].Variants[Variant::REF]->Cycles.Median / 6;
    analyse(R);
    StringRef Why = R.Loops[I].Inconclusive;
    EXPECT_TRUE(Why.contains("no saturation is used")) << Why.str();
    EXPECT_EQ(Why.contains("within the short-call term"), Factor == 1.3)
        << Factor << ": " << Why.str();
    EXPECT_EQ(R.Loops[I].VerdictConfidence, 0);
  }
}

TEST(SuspectVariants, REFAgainstREFFarFromOneLeavesNoClaim) {
  size_t I = 0;
  Report R = slowed(Variant::REF, 1.5, I);
  const LoopReport &L = R.Loops[I];
  EXPECT_EQ(L.Verdict, VerdictClass::Inconclusive);
  EXPECT_TRUE(StringRef(L.Inconclusive).contains("REF against its REF"))
      << L.Inconclusive;
  EXPECT_FALSE(L.DL1Gain);
  EXPECT_FALSE(anyContains(L.Diagnosis, "faster"));
  EXPECT_FALSE(anyContains(L.Diagnosis, "confidence"));
}

//===----------------------------------------------------------------------===//
// The list
//===----------------------------------------------------------------------===//

/// Reports on which every analysis has something to say: the recorded runs
/// and a few made up for what they lack (a region, a crash, a capped
/// variant, a remainder loop, more threads than CPUs, NO_CALL and NO_STORE,
/// calls too short, too few pairs, a variant slower than the loop).
std::vector<Report> fixtures() {
  std::vector<Report> Out;
  for (const char *Name : Recorded)
    Out.push_back(merged(Name));
  Report R = merged("synth");
  R.Machine["logical_cpus"] = 1;
  ProcessInfo &P = R.Processes.front();
  P.Threads = 2;
  P.CrashSignal = "SIGSEGV";
  P.CrashLoop = R.Loops.front().Id;
  P.CrashVariant = "LS";
  LoopReport &L = R.Loops.front();
  L.CappedCalls["DL1"] = 2;
  // Variants the programs did not build, from the loop's own samples.
  L.Variants[Variant::NO_CALL] = L.Variants[Variant::FP];
  L.Variants[Variant::NO_STORE] = L.Variants[Variant::DL1];
  L.CallsDeleted = {"LS"};
  L.DL1MemoryCallBytes = 64;
  L.Unavailable["NO_DIV"] = "verifier";
  L.Unavailable["NO_STORE"] = "empty";
  // A remainder loop of the same source loop, and the function as a region.
  LoopReport Tail = R.Loops.back();
  Tail.Id += ".tail";
  Tail.Function = L.Function;
  Tail.File = L.File;
  Tail.Line = L.Line;
  Tail.TimeCycles = L.TimeCycles;
  LoopReport Region = L;
  Region.Id = "region:" + L.Function;
  R.Loops.push_back(std::move(Tail));
  R.Loops.push_back(std::move(Region));
  Out.push_back(std::move(R));
  // Calls below the precision floor, and too few pairs of LS.
  Report Short = merged("synth");
  Short.ProbeCycles = 1e6;
  Out.push_back(std::move(Short));
  Report Few = merged("synth");
  Few.Loops.front().Variants[Variant::LS]->Pairs.resize(2);
  Out.push_back(std::move(Few));
  // A removal variant slower than the loop.
  Report Slow = merged("synth");
  for (Pair &P : Slow.Loops.front().Variants[Variant::FP]->Pairs)
    P.Var *= 5;
  Out.push_back(std::move(Slow));
  // A loop that mostly waits (blocked on a condition variable).
  Report Waits = merged("synth");
  LoopReport &W = Waits.Loops.front();
  W.ProbedCalls = W.BlockedCalls = W.ProbedVoluntary = 10;
  W.ProbedCycles = W.BlockedCycles = 1e6;
  W.ProbedCpuCycles = W.BlockedCpuCycles = 1e4;
  Out.push_back(std::move(Waits));
  return Out;
}

TEST(AnalysisList, NamesEachAnalysisOnce) {
  std::set<std::string> Names;
  for (const AnalysisUnit &U : analysisList()) {
    EXPECT_TRUE(Names.insert(U.Name.str()).second) << U.Name.str();
    EXPECT_NE(U.Run, nullptr) << U.Name.str();
  }
  for (const char *Expected :
       {"shares", "saturations", "ranking", "streams", "memory-cpu", "dl1",
        "divisions", "ctrl", "stores", "reduction", "prefetch", "groups",
        "calls", "threads", "coherence", "inconclusive", "precision",
        "blocked"})
    EXPECT_TRUE(Names.count(Expected)) << Expected;
}

TEST(AnalysisList, AnalyseRunsTheList) {
  for (Report &F : fixtures()) {
    Report A = F, B = F;
    analyse(A);
    runAnalyses(B, Thresholds(), analysisList());
    EXPECT_EQ(toJSON(A), toJSON(B));
  }
}

TEST(AnalysisList, EveryAnalysisTakesPart) {
  std::vector<Report> Fixtures = fixtures();
  std::vector<json::Value> Full;
  for (Report F : Fixtures) {
    analyse(F);
    Full.push_back(toJSON(F));
  }
  ArrayRef<AnalysisUnit> List = analysisList();
  for (size_t Skip = 0; Skip < List.size(); ++Skip) {
    std::vector<AnalysisUnit> Without(List.begin(), List.end());
    Without.erase(Without.begin() + Skip);
    bool Changed = false;
    for (size_t I = 0; I < Fixtures.size() && !Changed; ++I) {
      Report F = Fixtures[I];
      runAnalyses(F, Thresholds(), Without);
      Changed = toJSON(F) != Full[I];
    }
    EXPECT_TRUE(Changed) << "without '" << List[Skip].Name.str()
                         << "' every report reads the same";
  }
}

} // namespace
