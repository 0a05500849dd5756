//===- RunCommand.cpp - decan run -----------------------------------------===//
//
// Part of decan. Measures a program's loops and variants, then prints,
// and optionally writes, the analysed report.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "Outputs.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/Install.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Render.h"
#include "decan/Tool/RunEnvironment.h"
#include "decan/Tool/Runner.h"

#include "llvm/Support/raw_ostream.h"

#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace decan::tool;

extern char **environ;

int runRunCommand(int argc, char **argv) {
  RunArgs A;
  OptionTable Table = runOptionTable(A);
  if (Error E = Table.parse(argc, argv, 2, /*StopAtFirstPositional=*/true))
    return reportError(std::move(E));
  if (Table.helpAsked()) {
    Table.printHelp(outs());
    return 0;
  }
  RunOptions &O = A.Run;
  for (const std::string &W : checkDecanVariables(environ))
    errs() << "decan: warning: " << W << "\n";
  O.Command = Table.positionals();
  if (auto L = findInstallLayout(argv[0]))
    O.LibDir = L->LibDir;
  else
    consumeError(L.takeError());
  O.Progress = ::isatty(2);
  auto Session = RunSession::create(O, errs());
  if (!Session)
    return reportError(Session.takeError());
  // Every output path is checked before the program runs: a typo must not
  // cost a long measurement.
  for (const std::string *Path :
       {&A.TableFile, &A.Files.Json, &A.Files.Html, &A.Files.Remarks})
    if (!Path->empty())
      if (Error E = checkOutputPath(*Path))
        return reportError(std::move(E));
  // Without --json, decan.json here, as perf.data: a directory decan
  // cannot write to costs the file, not the run.
  bool DefaultJson = A.Files.Json.empty();
  if (DefaultJson) {
    if (Error E = checkOutputPath(DefaultResultsFile))
      errs() << "decan: warning: " << toString(std::move(E))
             << "; the results are not kept (--json FILE keeps them)\n";
    else
      A.Files.Json = DefaultResultsFile;
  }
  if (!O.KeepRawDir.empty())
    if (Error E = prepareOutputDirectory(O.KeepRawDir))
      return reportError(std::move(E));

  auto Out = (*Session)->run();
  if (!Out)
    return reportError(Out.takeError());
  Report &R = Out->Merged;
  analyse(R);
  // The program's standard output is the program's alone.
  int RC = 0;
  if (A.TableFile.empty()) {
    printReportTable(errs(), R, A.Files.Verbose);
  } else {
    std::string Table;
    raw_string_ostream TS(Table);
    printReportTable(TS, R, A.Files.Verbose);
    if (Error E = writeOutput(A.TableFile, Table))
      RC = reportError(std::move(E));
  }
  if (DefaultJson && !A.Files.Json.empty())
    if (Error E = keepPreviousOutput(A.Files.Json))
      RC = reportError(std::move(E));
  if (Error E = writeOutputs(R, {R}, nullptr, A.Files.Json, A.Files.Html,
                             A.Files.Remarks))
    RC = reportError(std::move(E));
  else if (DefaultJson && !A.Files.Json.empty())
    errs() << "decan: results in " << A.Files.Json << " (decan report reads "
           << "it)\n";
  for (const std::string &Pb : Out->Problems)
    errs() << "decan: " << Pb << "\n";
  // The program's own status, like time(1): 3 stays 3, a signal 128+N.
  int St = Out->WaitStatus;
  int ProgramRC = WIFEXITED(St)     ? WEXITSTATUS(St)
                  : WIFSIGNALED(St) ? 128 + WTERMSIG(St)
                                    : 1;
  return ProgramRC ? ProgramRC : RC;
}
