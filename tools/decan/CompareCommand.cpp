//===- CompareCommand.cpp - decan compare ---------------------------------===//
//
// Part of decan. Two builds or two runs loop by loop: loops matched by source
// identity, time per call and per source iteration, share, bottleneck, and
// whether A's predicted gain showed up in B.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/Args.h"
#include "decan/Tool/Compare.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Render.h"
#include "decan/Tool/Tune.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

int runCompareCommand(int argc, char **argv) {
  ArgParser P({"json", "html", "tune"}, {"help", "h"});
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.has("help") || P.has("h")) {
    outs() << "USAGE: decan compare [--json OUT.json] [--html OUT.html] "
              "[--tune tune.json] A.json B.json\n\n"
              "Loops of two builds (plain, PGO, another flag) or two runs, "
              "matched by source\nidentity (function, file:line:column, "
              "nest, inlined-at chain): REF cycles per\ncall and per source "
              "iteration, speedup A/B, program share and bottleneck in\nA "
              "and B, the speedup A's saturations predicted (best of DL1, "
              "NO_DIV, LS/FP\noverlap) and how much of it B realized; loops "
              "in one build only are listed\nwith why they may be missing "
              "in the other.\n--tune: A's predictions are decan tune's for "
              "the loops it chose a candidate for\n(A: the default build, B: "
              "the build with `decan flags --apply tune.json`).\n";
    return 0;
  }
  if (P.positionals().size() != 2)
    return reportError("decan compare wants two reports: A.json B.json");
  for (const char *Out : {"json", "html"})
    if (P.has(Out))
      if (Error E = checkOutputPath(P.get(Out)))
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
  if (P.has("tune")) {
    auto T = readTuneFile(P.get("tune"));
    if (!T)
      return reportError(T.takeError());
    applyTunePredictions(C, *T, Rs[0]);
  }
  printComparison(outs(), C);
  if (P.has("json")) {
    std::string S;
    raw_string_ostream OS(S);
    OS << formatv("{0:2}", comparisonJSON(C)) << "\n";
    if (Error E = writeOutput(P.get("json"), S))
      return reportError(std::move(E));
  }
  if (P.has("html")) {
    std::string S;
    raw_string_ostream OS(S);
    writeComparisonHTML(OS, C, P.positionals()[0], P.positionals()[1]);
    if (Error E = writeOutput(P.get("html"), S))
      return reportError(std::move(E));
  }
  return 0;
}
