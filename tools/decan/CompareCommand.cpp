//===- CompareCommand.cpp - decan compare ---------------------------------===//
//
// Part of decan. Per-loop speedup between two reports and whether A's
// predicted gain showed up in B.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/Args.h"
#include "decan/Tool/Compare.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

int runCompareCommand(int argc, char **argv) {
  ArgParser P({}, {"help", "h"});
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.has("help") || P.has("h")) {
    outs() << "USAGE: decan compare A.json B.json\n\n"
              "Per loop: REF cycles per call in A and B, speedup A/B, the "
              "speedup A's\nsaturations predicted (best of DL1, NO_DIV, "
              "LS/FP overlap) and how much of it B realized.\n";
    return 0;
  }
  if (P.positionals().size() != 2)
    return reportError("decan compare wants two reports: A.json B.json");
  std::vector<Report> Rs;
  for (const std::string &F : P.positionals()) {
    bool Raw;
    auto R = readReportFile(F, Raw);
    if (!R)
      return reportError(R.takeError());
    analyse(*R);
    Rs.push_back(std::move(*R));
  }
  printComparison(outs(), compareReports(Rs[0], Rs[1]), Rs[1]);
  return 0;
}
