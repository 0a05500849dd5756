//===- TuneCommand.cpp - decan tune ---------------------------------------===//
//
// Part of decan. Runs a program built with `decan flags --tune` once, every
// candidate of every tuned loop timed as REF, and says per loop which
// candidate to keep (decan/Tool/Tune.h).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/Install.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Render.h"
#include "decan/Tool/Runner.h"
#include "decan/Tool/Tune.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace decan::tool;

int runTuneCommand(int argc, char **argv) {
  TuneArgs A;
  OptionTable Table = tuneOptionTable(A);
  if (Error E = Table.parse(argc, argv, 2, /*StopAtFirstPositional=*/true))
    return reportError(std::move(E));
  if (Table.helpAsked()) {
    Table.printHelp(outs());
    return 0;
  }
  RunOptions O;
  O.Command = Table.positionals();
  if (O.Command.empty())
    return reportError("no program given (decan tune [options] -- PROGRAM "
                       "[ARGS...])");
  // The candidates are the program's own code: timed as REF, no variant.
  O.Variants = {Variant::REF};
  // Each candidate's quarters are costed from its sampled calls (Tune.h):
  // more slots than a diagnosis needs, later quarters' too.
  O.Reps = 127;
  for (const std::string *Path : {&A.Json, &A.Report})
    if (!Path->empty())
      if (Error E = checkOutputPath(*Path))
        return reportError(std::move(E));
  if (auto L = findInstallLayout(argv[0]))
    O.LibDir = L->LibDir;
  else
    consumeError(L.takeError());
  auto Out = runMeasurements(O, errs());
  if (!Out)
    return reportError(Out.takeError());
  Report &R = Out->Merged;
  analyse(R);
  std::vector<TunedLoop> T = tuneResults(R);
  printTune(errs(), T, hasTuneCandidates(R));
  ProgramPrediction PP = predictProgram(R, T);
  if (!T.empty())
    printProgramPrediction(errs(), PP);
  int RC = 0;
  if (!A.Json.empty()) {
    std::string S;
    raw_string_ostream OS(S);
    OS << formatv("{0:2}", tuneJSON(T, PP)) << "\n";
    if (Error E = writeOutput(A.Json, S))
      RC = reportError(std::move(E));
  }
  if (!A.Report.empty()) {
    std::string S;
    raw_string_ostream OS(S);
    OS << formatv("{0:2}", toJSON(R)) << "\n";
    if (Error E = writeOutput(A.Report, S))
      RC = reportError(std::move(E));
  }
  for (const std::string &Pb : Out->Problems)
    errs() << "decan: " << Pb << "\n";
  int St = Out->WaitStatus;
  int ProgramRC = WIFEXITED(St)     ? WEXITSTATUS(St)
                  : WIFSIGNALED(St) ? 128 + WTERMSIG(St)
                                    : 1;
  return ProgramRC ? ProgramRC : RC;
}
