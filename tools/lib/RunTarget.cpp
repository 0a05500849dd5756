//===- RunTarget.cpp - The program a run measures -------------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/RunTarget.h"
#include "decan/Tool/ElfFacts.h"
#include "decan/Tool/LoopTable.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace llvm;

namespace decan::tool {

Expected<std::string> resolveProgram(StringRef Program) {
  if (Program.contains('/')) {
    if (!sys::fs::exists(Program))
      return createStringError("program '%s' not found", Program.str().c_str());
    if (sys::fs::is_directory(Program) ||
        ::access(Program.str().c_str(), X_OK) != 0)
      return createStringError("program '%s' is not executable",
                               Program.str().c_str());
    if (Error E = checkReadable(Program))
      return std::move(E);
    return Program.str();
  }
  auto P = sys::findProgramByName(Program);
  if (!P)
    return createStringError("program '%s' not found in PATH",
                             Program.str().c_str());
  if (Error E = checkReadable(*P))
    return std::move(E);
  return *P;
}

Expected<std::string> resolveInput(StringRef Name) {
  if (!Name.contains('/') && !sys::fs::exists(Name))
    return resolveProgram(Name);
  if (!sys::fs::exists(Name))
    return createStringError("'%s' not found", Name.str().c_str());
  if (sys::fs::is_directory(Name))
    return createStringError("'%s' is a directory", Name.str().c_str());
  if (Error E = checkReadable(Name))
    return std::move(E);
  return Name.str();
}

bool isLauncher(StringRef Path) {
  StringRef Base = sys::path::filename(Path);
  static const char *Names[] = {"mpirun", "mpiexec", "mpiexec.hydra", "orterun",
                                "srun",   "aprun",   "jsrun",         "prun"};
  for (const char *N : Names)
    if (Base == N)
      return true;
  return !isELF(Path); // scripts start the real program themselves
}

/// The runtime runs in a program linked with it or, preloaded, in any
/// program the dynamic loader starts: says before running why a static
/// program would write no report.
static Error checkRuntimeReaches(StringRef Bin, bool HasLoopTable) {
  auto Facts = readDynamicFacts(Bin);
  if (!Facts) {
    consumeError(Facts.takeError()); // not for this check to say
    return Error::success();
  }
  if (!Facts->isStaticProgram())
    return Error::success();
  if (!HasLoopTable)
    return createStringError(
        "'%s' is statically linked: a rewritten copy cannot be measured, "
        "since decan brings its runtime into a prebuilt program through the "
        "dynamic loader (LD_PRELOAD); rebuild it with $(decan flags) (-static "
        "works: the runtime is linked in) or link it dynamically",
        Bin.str().c_str());
  if (Facts->DefinesRuntime == false)
    return createStringError(
        "'%s' is built with the plugin but statically linked without "
        "decan's runtime (__decan_register_loops is undefined), so it "
        "cannot write a report: link it with $(decan flags)",
        Bin.str().c_str());
  return Error::success();
}

void warnCacheProblem(const std::string &Problem) {
  static bool Said = false;
  if (Problem.empty() || Said)
    return;
  Said = true;
  errs() << "decan: warning: " << Problem << "\n";
}

Expected<Target> prepareTarget(std::vector<std::string> &Cmd, StringRef TmpDir,
                               bool PlainOk,
                               const rewriter::RewriteOptions &RW) {
  Target T;
  size_t Index = 0;
  if (isLauncher(Cmd[0])) {
    Index = 0;
    for (size_t I = 1; I < Cmd.size(); ++I) {
      if (StringRef(Cmd[I]).starts_with("-") ||
          !sys::fs::is_regular_file(Cmd[I]))
        continue;
      // An execute-only program would pass for a script.
      if (::access(Cmd[I].c_str(), X_OK) == 0)
        if (Error E = checkReadable(Cmd[I]))
          return std::move(E);
      if (isELF(Cmd[I])) {
        Index = I;
        break;
      }
    }
    if (!Index)
      return T; // a script: its reports tell what ran
  }
  std::string Bin = Cmd[Index];
  auto Loops = readLoopTable(Bin);
  if (!Loops)
    return Loops.takeError();
  if (Error E = checkRuntimeReaches(Bin, Loops->has_value()))
    return std::move(E);
  if (!*Loops && PlainOk) {
    T.Loops.emplace();
    T.Binary = Bin;
    return T;
  }
  if (!*Loops) {
    std::string CacheProblem;
    auto Inst =
        rewriter::instrumentCached(Bin, TmpDir, RW, nullptr, &CacheProblem);
    warnCacheProblem(CacheProblem);
    if (!Inst)
      return createStringError(
          "'%s' has no decan loop table (build it with $(decan flags)) "
          "and cannot be rewritten: %s",
          Bin.c_str(), toString(Inst.takeError()).c_str());
    Cmd[Index] = *Inst;
    T.Preload = *Inst != Bin;
    if (T.Preload)
      T.Input = Bin;
    Loops = readLoopTable(*Inst);
    if (!Loops)
      return Loops.takeError();
  }
  T.Loops = std::move(*Loops);
  T.Binary = Cmd[Index];
  return T;
}

} // namespace decan::tool
