//===- CompareCommand.cpp - decan compare ---------------------------------===//
//
// Part of decan. Two builds or two runs loop by loop: loops matched by source
// identity, time per call and per source iteration, share, bottleneck, and
// whether A's predicted gain showed up in B.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/Compare.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Render.h"
#include "decan/Tool/Tune.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

int runCompareCommand(int argc, char **argv) {
  CompareArgs A;
  OptionTable P = compareOptionTable(A);
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.helpAsked()) {
    P.printHelp(outs());
    return 0;
  }
  if (P.positionals().size() != 2)
    return reportError("decan compare wants two reports: A.json B.json");
  for (const std::string *Path : {&A.Json, &A.Html})
    if (!Path->empty())
      if (Error E = checkOutputPath(*Path))
        return reportError(std::move(E));
  std::vector<Report> Rs;
  for (const std::string &F : P.positionals()) {
    bool Raw;
    auto R = readReportFile(F, Raw);
    if (!R)
      return reportError(R.takeError());
    analyse(*R);
    Rs.push_back(std::move(*R));
  }
  std::vector<LoopComparison> C = compareReports(Rs[0], Rs[1]);
  if (!A.Tune.empty()) {
    auto T = readTuneFile(A.Tune);
    if (!T)
      return reportError(T.takeError());
    applyTunePredictions(C, *T, Rs[0]);
  }
  printComparison(outs(), C);
  if (!A.Json.empty()) {
    std::string S;
    raw_string_ostream OS(S);
    OS << formatv("{0:2}", comparisonJSON(C)) << "\n";
    if (Error E = writeOutput(A.Json, S))
      return reportError(std::move(E));
  }
  if (!A.Html.empty()) {
    std::string S;
    raw_string_ostream OS(S);
    writeComparisonHTML(OS, C, P.positionals()[0], P.positionals()[1]);
    if (Error E = writeOutput(A.Html, S))
      return reportError(std::move(E));
  }
  return 0;
}
