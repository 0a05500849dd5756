//===- RenderTest.cpp - HTML, remarks and the terminal table --------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Render.h"
#include "decan/Tool/Analysis.h"

#include "llvm/Remarks/Remark.h"
#include "llvm/Remarks/RemarkParser.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace decan::tool;
using namespace llvm;

namespace {

Report sample(double SatDL1) {
  Report R;
  R.Version = "0.1.0";
  LoopReport L;
  L.Id = "_Z3dotPdi:L0";
  L.Function = "_Z3dotPdi";
  L.File = "dot.c";
  L.Line = 7;
  L.TimeCycles = 1;
  double Med[NumVariants] = {1000, 950, 300, 1000, 1000 * SatDL1, 100};
  for (unsigned V = 0; V < NumVariants; ++V) {
    if (Med[V] <= 0) // NO_CALL: a loop without calls
      continue;
    VariantStats S;
    S.Calls = 31;
    S.Cycles = {Med[V] * 0.98, Med[V], Med[V] * 1.1};
    S.Stability = stability(S.Cycles);
    S.TripsKnown = 31;
    S.TripsMedian = 100;
    S.CyclesPerIter = {Med[V] / 100 * 0.98, Med[V] / 100, 0};
    L.Variants[Variant(V)] = S;
  }
  R.Loops.push_back(L);
  analyse(R);
  return R;
}

size_t count(const std::string &S, const std::string &Needle) {
  size_t N = 0;
  for (size_t P = S.find(Needle); P != std::string::npos;
       P = S.find(Needle, P + 1))
    ++N;
  return N;
}

TEST(HTML, BarChartPerLoop) {
  std::string S;
  raw_string_ostream OS(S);
  writeHTML(OS, {sample(0.4)}, nullptr);
  EXPECT_EQ(count(S, "<svg class=\"chart sat-bars\""), 1u);
  EXPECT_EQ(count(S, "<rect class=\"bar\""), 6u);
  EXPECT_NE(S.find("data-variant=\"DL1\" data-sat=\"0.4000\""),
            std::string::npos);
  EXPECT_EQ(count(S, "sat-curve"), 0u);
  EXPECT_EQ(S.find("http://") != std::string::npos &&
                S.find("src=\"http") != std::string::npos,
            false); // nothing fetched from the network
  EXPECT_NE(S.find("dot(double*, int)"), std::string::npos);
}

TEST(HTML, SweepCurves) {
  auto Sw = parseSweep("size=1000,10000,100000", 3);
  ASSERT_TRUE(bool(Sw));
  EXPECT_TRUE(Sw->Numeric);
  std::string S;
  raw_string_ostream OS(S);
  writeHTML(OS, {sample(0.9), sample(0.6), sample(0.3)}, &*Sw);
  EXPECT_EQ(count(S, "class=\"chart sat-curve\""), 1u);
  EXPECT_EQ(count(S, "class=\"chart time-curve\""), 1u);
  // Five variants besides REF in the saturation chart, six in the time one.
  EXPECT_EQ(count(S, "<polyline class=\"curve\""), 11u);
  EXPECT_NE(S.find("size (log scale)"), std::string::npos);
  EXPECT_FALSE(bool(parseSweep("size=1,2", 3)));
  EXPECT_FALSE(bool(parseSweep("size", 1)));
}

TEST(Remarks, ParseAsLLVMOptimizationRecords) {
  Report R = sample(0.4);
  std::string S;
  raw_string_ostream OS(S);
  ASSERT_FALSE(bool(writeRemarks(OS, R)));
  auto Parser = remarks::createRemarkParser(remarks::Format::YAML, S);
  ASSERT_TRUE(bool(Parser)) << toString(Parser.takeError());
  unsigned N = 0;
  bool SawDL1 = false;
  while (true) {
    auto Rm = (*Parser)->next();
    if (!Rm) {
      EXPECT_TRUE(Rm.errorIsA<remarks::EndOfFileError>());
      consumeError(Rm.takeError());
      break;
    }
    ++N;
    EXPECT_EQ((*Rm)->PassName, "decan");
    EXPECT_EQ((*Rm)->FunctionName, "_Z3dotPdi");
    ASSERT_TRUE((*Rm)->Loc.has_value());
    EXPECT_EQ((*Rm)->Loc->SourceFilePath, "dot.c");
    EXPECT_EQ((*Rm)->Loc->SourceLine, 7u);
    SawDL1 |= (*Rm)->getArgsAsMsg().find("DL1") != std::string::npos;
  }
  EXPECT_EQ(N, 1 + R.Loops[0].Diagnosis.size() + R.Loops[0].Warnings.size());
  EXPECT_TRUE(SawDL1);
}

TEST(Table, ShowsEveryVariantAndDiagnosis) {
  Report R = sample(0.4);
  std::string S;
  raw_string_ostream OS(S);
  printReportTable(OS, R);
  for (const char *V : {"REF", "LS", "FP", "NO_DIV", "DL1", "CTRL"})
    EXPECT_NE(S.find(std::string("  ") + V + " "), std::string::npos) << V;
  EXPECT_NE(S.find("diagnosis: memory-bound"), std::string::npos) << S;
  EXPECT_NE(S.find("dot.c:7"), std::string::npos);
}

} // namespace

TEST(Table, BoundSaturationsSayBound) {
  // A variant that drops a chain through memory (runtime "bound" map): its
  // saturation is a lower bound, and the table says so.
  Report R = sample(0.4);
  R.Loops[0].Bound["NO_DIV"] = "drops a dependence through memory";
  std::string S;
  raw_string_ostream OS(S);
  printReportTable(OS, R);
  EXPECT_EQ(S.find("0 bound"), S.rfind("0 bound")) << "one bound: " << S;
  size_t Row = S.find("  NO_DIV");
  ASSERT_NE(Row, std::string::npos);
  EXPECT_NE(S.substr(Row, S.find('\n', Row) - Row).find("1.00 bound"),
            std::string::npos)
      << S;
}

TEST(Table, NamesAScreenfulOfLoopsNeverCalled) {
  // A full copy of a large library has tens of thousands of loops that
  // never ran: the table names the first few and counts the others.
  Report R = sample(0.4);
  for (int K = 0; K < 100; ++K) {
    LoopReport L;
    L.Id = "idle" + std::to_string(K) + ":L0";
    R.Loops.push_back(L);
  }
  std::string S;
  raw_string_ostream OS(S);
  printReportTable(OS, R);
  EXPECT_NE(S.find("not measured (never called while active): idle"),
            std::string::npos)
      << S;
  size_t Named = 0;
  for (size_t P = S.find("idle"); P != std::string::npos;
       P = S.find("idle", P + 1))
    ++Named;
  EXPECT_EQ(Named, 40u) << S;
  EXPECT_NE(S.find("and 60 more (decan run --json lists them)"),
            std::string::npos)
      << S;
}

TEST(Table, SaysSinceWhenALoopHadItsLateVariants) {
  Report R = sample(0.4);
  R.Loops[0].Late = "installed";
  R.Loops[0].LateSince = 0.25;
  R.Loops[0].CallsBeforeLate = 12;
  std::string S;
  raw_string_ostream OS(S);
  printReportTable(OS, R);
  EXPECT_NE(S.find("late variants: from 0.25 s into the run on; 12 calls "
                   "before were not timed"),
            std::string::npos)
      << S;
  R.Loops[0].CallsBeforeLate = 0;
  std::string F;
  raw_string_ostream FOS(F);
  printReportTable(FOS, R);
  EXPECT_NE(F.find("late variants: from 0.25 s into the run on, from its "
                   "first call\n"),
            std::string::npos)
      << F;
}
