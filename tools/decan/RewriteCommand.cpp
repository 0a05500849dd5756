//===- RewriteCommand.cpp - decan rewrite ---------------------------------===//
//
// Part of decan. `decan rewrite BINARY [-o DIR] [--list] ...`: parses the
// command line; the MC rewriter (mc-rewriter/, decan/Rewriter/RewriteTool.h)
// does the work.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Rewriter/RewriteTool.h"
#include "decan/Tool/Args.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Report.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;
namespace rw = decan::rewriter;

static void help() {
  outs() << "USAGE: decan rewrite BINARY [-o DIR] [--list] [--loops=ID,...] "
            "[--variants=NAME,...] [-q]\n\n"
            "Writes a copy of the x86-64 ELF executable or shared library "
            "BINARY into DIR\n(default: BINARY.decan next to it) in which "
            "every rewritable innermost loop\nruns from new code carrying "
            "decan's variants. The input is never modified.\n"
            "  -o DIR          directory of the copy (created if missing)\n"
            "  --list          list innermost loops and why some cannot be "
            "rewritten; write nothing\n"
            "  --loops=IDS     rewrite only these loop ids (f:L0,...)\n"
            "  --variants=V    build only these variants (REF always)\n"
            "  --disasm        print the emitted copies of every rewritten "
            "loop\n"
            "  -q              print nothing on success\n"
            "Run the copy with 'decan run' (or LD_PRELOAD=libdecan_rt.so and "
            "DECAN_LOOPS=...).\n";
}

int runRewriteCommand(int argc, char **argv) {
  ArgParser P({"o", "loops", "variants"}, {"list", "disasm", "q", "help", "h"});
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.has("help") || P.has("h")) {
    help();
    return 0;
  }
  const std::vector<std::string> &Pos = P.positionals();
  if (Pos.empty())
    return reportError("decan rewrite wants a BINARY (see 'decan rewrite "
                       "--help')");
  if (Pos.size() > 1)
    return reportError("more than one input ('" + Pos[0] + "', '" + Pos[1] +
                       "')");
  const std::string &Input = Pos[0];
  if (P.has("list")) {
    if (Error E = rw::listLoops(Input, outs()))
      return reportError(std::move(E));
    return 0;
  }
  rw::RewriteOptions RW;
  SmallVector<StringRef, 8> Ids;
  std::string Loops = P.get("loops");
  StringRef(Loops).split(Ids, ',', -1, false);
  for (StringRef Id : Ids)
    RW.OnlyLoops.push_back(Id.trim().str());
  if (P.has("variants")) {
    auto Vs = parseVariantList(P.get("variants"));
    if (!Vs)
      return reportError(Vs.takeError());
    RW.VariantMask = 1u << REF;
    for (unsigned V : *Vs)
      RW.VariantMask |= 1u << V;
  }
  std::string OutDir = P.get("o");
  if (!OutDir.empty())
    if (std::error_code EC = sys::fs::create_directories(OutDir))
      return reportError("cannot create '" + OutDir + "': " + EC.message());
  std::string Out = rw::rewrittenPath(Input, OutDir);
  if (Error E =
          rw::rewriteFile(Input, Out, outs(), !P.has("q"), RW, P.has("disasm")))
    return reportError(std::move(E));
  auto Facts = readDynamicFacts(Input);
  if (Facts && Facts->isStaticProgram())
    errs() << "decan: warning: '" << Input
           << "' is statically linked: its copy runs, but cannot be measured "
              "(decan loads its runtime through the dynamic loader)\n";
  if (!Facts)
    consumeError(Facts.takeError());
  return 0;
}
