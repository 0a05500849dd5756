//===- FlagsCommand.cpp - decan flags -------------------------------------===//
//
// Part of decan. Prints the clang-22 flags that build a program for decan,
// like pkg-config: `clang-22 -O2 $(decan flags) prog.c -o prog`.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Tool/Args.h"
#include "decan/Tool/Install.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

int runFlagsCommand(int argc, char **argv) {
  ArgParser P({}, {"cflags", "libs", "regions", "help", "h"});
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.has("help") || P.has("h")) {
    outs() << "USAGE: decan flags [--cflags] [--libs] [--regions]\n\n"
              "Compile (--cflags) and link (--libs) flags for clang-22; "
              "both by default.\n"
              "--regions also places regions around outer loops and "
              "functions with loops,\n"
              "timed by 'decan run --regions' (REF only).\n";
    return 0;
  }
  if (!P.positionals().empty())
    return reportError("unexpected argument '" + P.positionals()[0] + "'");
  auto L = findInstallLayout(argv[0]);
  if (!L)
    return reportError(L.takeError());
  bool Both = !P.has("cflags") && !P.has("libs");
  std::string Out;
  if (Both || P.has("cflags")) {
    Out = compileFlags(*L);
    if (P.has("regions"))
      Out += " -mllvm -decan-regions";
  }
  if (Both || P.has("libs"))
    Out += (Out.empty() ? "" : " ") + linkFlags(*L);
  outs() << Out << "\n";
  return 0;
}
