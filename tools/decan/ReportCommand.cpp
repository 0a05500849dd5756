//===- ReportCommand.cpp - decan report -----------------------------------===//
//
// Part of decan. Re-analyses saved reports (analysed or raw): table, HTML
// (with saturation curves for a sweep of runs), LLVM remarks.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "Outputs.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Render.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

int runReportCommand(int argc, char **argv) {
  ReportArgs A;
  OptionTable P = reportOptionTable(A);
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.helpAsked()) {
    P.printHelp(outs());
    return 0;
  }
  std::vector<std::string> Files = P.positionals();
  if (Files.empty()) {
    // What decan run wrote here without --json.
    if (!sys::fs::exists(DefaultResultsFile))
      return reportError(Twine("no report file given and no ") +
                         DefaultResultsFile +
                         " here (decan run writes it in the current "
                         "directory; or name a report file)");
    Files.push_back(DefaultResultsFile);
  }
  if (P.has("sweep-param") && Files.size() < 2)
    return reportError("--sweep-param wants one report per value (at least "
                       "two)");
  for (const std::string *Path :
       {&A.Files.Json, &A.Files.Html, &A.Files.Remarks})
    if (!Path->empty())
      if (Error E = checkOutputPath(*Path))
        return reportError(std::move(E));
  std::vector<Report> Runs;
  for (const std::string &F : Files) {
    bool Raw;
    auto R = readReportFile(F, Raw);
    if (!R)
      return reportError(R.takeError());
    analyse(*R);
    Runs.push_back(std::move(*R));
  }
  std::optional<Sweep> S;
  if (Files.size() > 1) {
    std::string Spec = A.SweepParam;
    if (Spec.empty()) {
      Spec = "run=";
      for (size_t I = 0; I < Files.size(); ++I)
        Spec += (I ? "," : "") + sys::path::stem(Files[I]).str();
    }
    auto SW = parseSweep(Spec, Files.size());
    if (!SW)
      return reportError(SW.takeError());
    S = std::move(*SW);
  }
  for (size_t I = 0; I < Runs.size(); ++I) {
    if (Runs.size() > 1)
      outs() << "== " << Files[I]
             << (S ? " (" + S->Param + "=" + S->Labels[I] + ")" : "")
             << " ==\n";
    printReportTable(outs(), Runs[I], A.Files.Verbose);
    if (I + 1 < Runs.size())
      outs() << "\n";
  }
  if (Error E = writeOutputs(Runs.back(), Runs, S ? &*S : nullptr, A.Files.Json,
                             A.Files.Html, A.Files.Remarks))
    return reportError(std::move(E));
  if (!A.Files.Remarks.empty() && Runs.size() > 1)
    errs() << "decan: note: remarks are written for the last report\n";
  return 0;
}
