//===- RawReports.cpp - What the raw reports of a run say -----------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/RawReports.h"
#include "decan/Tool/Output.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace llvm;

namespace decan::tool {

unsigned collectRawReports(StringRef Dir, RawMerger &M, raw_ostream &Log,
                           StringRef KeepDir, unsigned Run) {
  unsigned N = 0;
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    StringRef Name = sys::path::filename(I->path());
    if (Name.starts_with("decan.") && Name.ends_with(".json"))
      Files.push_back(I->path());
  }
  llvm::sort(Files);
  for (const std::string &F : Files) {
    if (Error E = M.addFile(F)) {
      Log << "decan: warning: skipping a raw report: " << toString(std::move(E))
          << "\n";
      continue;
    }
    ++N;
    if (!KeepDir.empty()) {
      std::string To =
          (KeepDir + "/run" + Twine(Run) + "." + sys::path::filename(F)).str();
      auto Buf = MemoryBuffer::getFile(F, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false);
      Error E = Buf ? writeOutput(To, (*Buf)->getBuffer())
                    : errorCodeToError(Buf.getError());
      if (E)
        Log << "decan: warning: cannot keep '" << F
            << "': " << toString(std::move(E)) << "\n";
    }
  }
  return N;
}

void describeProcesses(ArrayRef<ProcessInfo> Procs, ArrayRef<LoopReport> Loops,
                       StringRef Dir, raw_ostream &Log) {
  std::map<int64_t, int64_t> ForkedBy;
  std::map<int64_t, std::string> Execd;
  std::error_code EC;
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    StringRef Name = sys::path::filename(I->path());
    if (!Name.consume_front("decan."))
      continue;
    auto [PidText, Kind] = Name.split('.');
    int64_t Pid;
    if (PidText.getAsInteger(10, Pid) || (Kind != "child" && Kind != "exec"))
      continue;
    auto Buf = MemoryBuffer::getFile(I->path(), /*IsText=*/true);
    StringRef Text = Buf ? (*Buf)->getBuffer().trim() : "";
    if (Kind == "exec") {
      Execd[Pid] = Text.str();
    } else {
      int64_t Parent = 0;
      (void)Text.getAsInteger(10, Parent);
      ForkedBy[Pid] = Parent;
    }
  }
  std::map<int64_t, const ProcessInfo *> ByPid;
  for (const ProcessInfo &P : Procs)
    ByPid[P.Pid] = &P;
  auto NameOf = [&](int64_t Pid) -> std::string {
    auto It = ByPid.find(Pid);
    return It != ByPid.end() ? sys::path::filename(It->second->Program).str()
                             : std::string();
  };
  // MPI ranks are the run's processes, not children of one another.
  bool Ranks = any_of(Procs, [](const ProcessInfo &P) { return P.Rank; });
  if (Procs.size() > 1 && !Ranks)
    for (const ProcessInfo &P : Procs) {
      std::set<std::string> Measured;
      uint64_t Calls = 0;
      for (const LoopReport &L : Loops)
        for (const ThreadTotal &T : L.ThreadTotals)
          if ((int64_t)T.Pid == P.Pid && T.Calls) {
            Measured.insert(L.Id);
            Calls += T.Calls;
          }
      std::string Parent;
      if (ByPid.count(P.ParentPid))
        Parent =
            formatv(" ({0} of {1})", P.Forked ? "fork" : "child", P.ParentPid)
                .str();
      Log << formatv("decan: process {0}{1}: {2}: {3} loop(s) measured, {4} "
                     "call(s)\n",
                     P.Pid, Parent, sys::path::filename(P.Program),
                     Measured.size(), Calls);
    }
  std::set<int64_t> Unmeasured;
  for (const auto &[Pid, Parent] : ForkedBy)
    if (!ByPid.count(Pid))
      Unmeasured.insert(Pid);
  for (const auto &[Pid, Path] : Execd)
    if (!ByPid.count(Pid))
      Unmeasured.insert(Pid);
  for (int64_t Pid : Unmeasured) {
    auto F = ForkedBy.find(Pid);
    auto X = Execd.find(Pid);
    std::string Parent;
    if (F != ForkedBy.end()) {
      std::string PName = NameOf(F->second);
      Parent = formatv(", child of {0}{1}", PName.empty() ? "pid " : "",
                       PName.empty()
                           ? Twine(F->second).str()
                           : PName + " (pid " + Twine(F->second).str() + ")")
                   .str();
    }
    if (X != Execd.end())
      Log << formatv("decan: warning: child process {0} (pid {1}{2}) was not "
                     "measured: it wrote no decan report (a program without "
                     "decan's runtime: build it with $(decan flags), or run "
                     "it under decan run itself)\n",
                     X->second, Pid, Parent);
    else
      Log << formatv("decan: warning: child process {0} (pid {1}{2}) was not "
                     "measured: it wrote no decan report (a fork that ended "
                     "with _exit() or by a signal, or exec'd a program "
                     "without decan's runtime)\n",
                     F != ForkedBy.end() ? NameOf(F->second) : std::string("?"),
                     Pid, Parent);
  }
}

std::string whereItWas(const ProcessInfo &P) {
  if (P.CrashLoop.empty())
    return "outside any measured loop";
  if (!P.CrashRerunAfter.empty())
    return formatv("in loop {0}, in the original loop run after variant {1}",
                   P.CrashLoop, P.CrashRerunAfter)
        .str();
  return formatv("in loop {0}, variant {1}", P.CrashLoop,
                 P.CrashVariant.empty() ? "?" : P.CrashVariant)
      .str();
}

} // namespace decan::tool
