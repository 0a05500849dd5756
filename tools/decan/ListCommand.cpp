//===- ListCommand.cpp - decan list ---------------------------------------===//
//
// Part of decan. Prints the loop table of a program without running it.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Rewriter/Instrument.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/LoopList.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Render.h"
#include "decan/Tool/RunTarget.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

int runListCommand(int argc, char **argv) {
  ListArgs A;
  OptionTable P = listOptionTable(A);
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.helpAsked()) {
    P.printHelp(outs());
    return 0;
  }
  if (P.positionals().size() != 1)
    return reportError("decan list wants one PROGRAM");
  auto Prog = resolveInput(P.positionals()[0]);
  if (!Prog)
    return reportError(Prog.takeError());
  auto Loops = readLoopTable(*Prog);
  std::vector<decan::rewriter::RegionOutcome> Regions;
  if (!Loops)
    return reportError(Loops.takeError());
  if (!*Loops) {
    // A prebuilt program: the rewriter makes an instrumented copy, which
    // carries the table (the original is never modified).
    SmallString<128> Tmp;
    if (std::error_code EC = sys::fs::createUniqueDirectory("decan-list", Tmp))
      return reportError("cannot create a temporary directory: " +
                         EC.message());
    Expected<std::string> Inst = std::string();
    if (A.Regions) {
      // Rewritten with regions, whose outcomes are not in the loop table.
      decan::rewriter::RewriteOptions RW;
      RW.Regions = true;
      std::string Out = decan::rewriter::rewrittenPath(*Prog, Tmp);
      auto F = decan::rewriter::rewriteFile(*Prog, Out, RW);
      if (F)
        Regions = std::move(F->Result.Regions);
      Inst = F ? Expected<std::string>(Out) : F.takeError();
    } else {
      Inst = decan::rewriter::ensureInstrumented(*Prog, Tmp);
    }
    if (!Inst) {
      sys::fs::remove_directories(Tmp);
      return reportError("'" + *Prog +
                         "' has no decan loop table (build it with "
                         "$(decan flags)) and cannot be rewritten: " +
                         toString(Inst.takeError()));
    }
    Loops = readLoopTable(*Inst);
    sys::fs::remove_directories(Tmp);
    if (!Loops)
      return reportError(Loops.takeError());
    if (!*Loops)
      return reportError("the rewritten copy of '" + *Prog +
                         "' has no loop table");
  }
  if (A.Verbose)
    printLoopList(outs(), **Loops);
  else
    printLoopSummary(outs(), **Loops);
  if (!Regions.empty()) {
    outs() << "\nRegions (REF only, timed by 'decan run --regions'):\n";
    printRegionOutcomes(outs(), Regions);
  }
  return 0;
}
