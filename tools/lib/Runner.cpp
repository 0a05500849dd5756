//===- Runner.cpp - Run a program under the decan protocol ----------------===//
//
// Part of decan.
// Over 600 lines on purpose: one protocol, from the environment `decan run`
// sets (docs/design.md) through MPI launchers, --lib copies and rewritten
// binaries to the reports it collects.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Runner.h"
#include "decan/Rewriter/Instrument.h"
#include "decan/Tool/DlopenCopies.h"
#include "decan/Tool/Libraries.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <perfmon/pfmlib_perf_event.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace llvm;

namespace decan::tool {

Error validateEvents(const std::vector<std::string> &Events) {
  if (Events.empty())
    return Error::success();
  if (pfm_initialize() != PFM_SUCCESS)
    return createStringError("libpfm4 failed to initialise: cannot check "
                             "events");
  for (const std::string &E : Events) {
    perf_event_attr Attr;
    std::memset(&Attr, 0, sizeof(Attr));
    pfm_perf_encode_arg_t Arg;
    std::memset(&Arg, 0, sizeof(Arg));
    Arg.attr = &Attr;
    Arg.size = sizeof(Arg);
    int RC =
        pfm_get_os_event_encoding(E.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &Arg);
    if (RC != PFM_SUCCESS)
      return createStringError("unknown event '%s' (%s; see libpfm4's "
                               "showevtinfo)",
                               E.c_str(), pfm_strerror(RC));
  }
  return Error::success();
}

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

static bool isLauncher(StringRef Path) {
  StringRef Base = sys::path::filename(Path);
  static const char *Names[] = {"mpirun", "mpiexec", "mpiexec.hydra", "orterun",
                                "srun",   "aprun",   "jsrun",         "prun"};
  for (const char *N : Names)
    if (Base == N)
      return true;
  return !isELF(Path); // scripts start the real program themselves
}

namespace {
/// The measured binary: the program itself, or the first ELF file among a
/// launcher's arguments.
struct Target {
  std::optional<std::vector<MetaLoop>> Loops;
  std::string Binary;
  bool Preload = false; ///< rewritten: the runtime must be preloaded
  std::string Input;    ///< the file rewritten into Binary ("": none)
};
} // namespace

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

/// Says once per decan process that rewritten copies cannot be cached
/// (instrumentCached's \p Problem; nothing when empty).
static void warnCacheProblem(const std::string &Problem) {
  static bool Said = false;
  if (Problem.empty() || Said)
    return;
  Said = true;
  errs() << "decan: warning: " << Problem << "\n";
}

/// \p PlainOk: a program without a loop table runs unmodified (`--lib`
/// measures only the libraries) instead of being rewritten.
static Expected<Target> prepareTarget(std::vector<std::string> &Cmd,
                                      StringRef TmpDir, bool PlainOk,
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

namespace {
/// The `--lib` libraries as the program will load them.
struct Libraries {
  std::string LoaderDir; ///< prepended to LD_LIBRARY_PATH ("" = none)
  /// DECAN_LIB_MAP: the copies a dlopen by path opens instead of the
  /// originals ("" = none).
  std::string MapFile;
  bool Preload = false; ///< a rewritten copy: the runtime must be preloaded
  std::vector<MetaLoop> Loops;
  /// Per library: the path given, the file it resolves to (symlinks
  /// followed), the name loaded, its loop ids, how many are measurable.
  struct Lib {
    std::string Path, Real, Name;
    std::string Copy; ///< the rewritten copy ("": plugin-built)
    std::vector<std::string> Ids;
    unsigned Measurable = 0;
    /// Rewritable loops left without variants: the first run did not see
    /// them run.
    unsigned NotSelected = 0;
  };
  std::vector<Lib> Each;
};
} // namespace

/// Makes each of \p Libs measurable: a plugin-built library as is, any
/// other rewritten into \p TmpDir (never in place). Both go into one loader
/// directory under the name the program asks for (its DT_SONAME, read
/// through any symlink, as Debian's alternatives are), so the dynamic loader
/// picks exactly the file the user named; a dlopen of the original by path
/// is redirected to the copy by the runtime (DECAN_LIB_MAP).
static Expected<Libraries>
prepareLibraries(ArrayRef<std::string> Libs, StringRef TmpDir,
                 const rewriter::RewriteOptions &RW) {
  Libraries Out;
  if (Libs.empty())
    return Out;
  Out.LoaderDir = (TmpDir + "/ld-path").str();
  if (std::error_code EC = sys::fs::create_directories(Out.LoaderDir))
    return createStringError("cannot create '%s': %s", Out.LoaderDir.c_str(),
                             EC.message().c_str());
  std::map<std::string, std::string> ByName;
  std::string Map;
  unsigned N = 0;
  for (const std::string &Lib : Libs) {
    if (!sys::fs::exists(Lib))
      return createStringError("library '%s' not found", Lib.c_str());
    if (sys::fs::is_directory(Lib))
      return createStringError("library '%s' is a directory", Lib.c_str());
    if (Error E = checkReadable(Lib))
      return std::move(E);
    auto Name = sharedLibraryName(Lib);
    if (!Name)
      return Name.takeError();
    auto [It, New] = ByName.emplace(*Name, Lib);
    if (!New)
      return createStringError("libraries '%s' and '%s' are both loaded as "
                               "'%s'",
                               It->second.c_str(), Lib.c_str(), Name->c_str());
    SmallString<256> Real;
    if (std::error_code EC = sys::fs::real_path(Lib, Real))
      return createStringError("library '%s': %s", Lib.c_str(),
                               EC.message().c_str());
    std::string Dir = (TmpDir + "/lib" + Twine(++N)).str();
    std::string CacheProblem;
    auto Inst =
        rewriter::instrumentCached(Real, Dir, RW, nullptr, &CacheProblem);
    warnCacheProblem(CacheProblem);
    if (!Inst)
      return createStringError("library '%s' has no decan loop table (build "
                               "it with $(decan flags)) and cannot be "
                               "rewritten: %s",
                               Lib.c_str(), toString(Inst.takeError()).c_str());
    std::string To = (Out.LoaderDir + "/" + *Name);
    if (*Inst == Lib) {
      // Plugin-built: link to it, so that this very file is the one loaded.
      SmallString<256> Abs(Lib);
      if (std::error_code EC = sys::fs::make_absolute(Abs))
        return createStringError("'%s': %s", Lib.c_str(), EC.message().c_str());
      if (std::error_code EC = sys::fs::create_link(Abs, To))
        return createStringError("cannot link '%s': %s", To.c_str(),
                                 EC.message().c_str());
    } else {
      // The copy stays where it is (the cache keeps it for the next run).
      SmallString<256> Abs(*Inst);
      if (std::error_code EC = sys::fs::make_absolute(Abs))
        return createStringError("'%s': %s", Inst->c_str(),
                                 EC.message().c_str());
      if (std::error_code EC = sys::fs::create_link(Abs, To))
        return createStringError("cannot link '%s': %s", To.c_str(),
                                 EC.message().c_str());
      Out.Preload = true;
      sys::fs::file_status St;
      if (std::error_code EC = sys::fs::status(Real, St))
        return createStringError("library '%s': %s", Lib.c_str(),
                                 EC.message().c_str());
      Map += formatv("{0} {1} {2}\n", St.getUniqueID().getDevice(),
                     St.getUniqueID().getFile(), To)
                 .str();
    }
    auto Loops = readLoopTable(To);
    if (!Loops)
      return Loops.takeError();
    Libraries::Lib &L = Out.Each.emplace_back();
    L.Path = Lib;
    L.Real = Real.str().str();
    L.Name = *Name;
    if (*Inst != Lib)
      L.Copy = *Inst;
    if (*Loops) {
      for (const MetaLoop &ML : **Loops) {
        L.Ids.push_back(ML.Id);
        L.Measurable += ML.SkipReason.empty() && ML.VariantMask != 0;
        L.NotSelected += ML.SkipReason == "not selected";
      }
      append_range(Out.Loops, **Loops);
    }
  }
  if (!Map.empty()) {
    Out.MapFile = (TmpDir + "/lib-map").str();
    std::error_code EC;
    raw_fd_ostream OS(Out.MapFile, EC);
    if (!EC) {
      OS << Map;
      OS.close();
      EC = OS.error();
      OS.clear_error();
    }
    if (EC)
      return createStringError("cannot write '%s': %s", Out.MapFile.c_str(),
                               EC.message().c_str());
  }
  return Out;
}

namespace {
/// A one-line progress display on a terminal: a bar over the planned runs
/// and a spinner with the elapsed time of the current run.
class Progress {
public:
  Progress(bool Enabled, unsigned Run, unsigned Planned, StringRef What)
      : Enabled(Enabled) {
    if (!Enabled)
      return;
    Start = std::chrono::steady_clock::now();
    Thread = std::thread([this, Run, Planned, What = What.str()] {
      static const char Spin[] = "|/-\\";
      for (unsigned Tick = 0; !Done; ++Tick) {
        double S = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
        unsigned Width = 20, Fill = Planned ? Width * (Run - 1) / Planned : 0;
        std::string Bar(Fill, '=');
        Bar += '>';
        Bar.resize(Width, ' ');
        errs() << formatv("\rdecan: run {0}/{1} [{2}] {3} {4:F1}s {5}\033[K",
                          Run, Planned, Bar, Spin[Tick % 4], S, What);
        errs().flush();
        for (int I = 0; I < 5 && !Done; ++I)
          std::this_thread::sleep_for(std::chrono::milliseconds(40));
      }
      errs() << "\r\033[K";
      errs().flush();
    });
  }
  ~Progress() {
    Done = true;
    if (Thread.joinable())
      Thread.join();
  }

private:
  bool Enabled;
  std::atomic<bool> Done{false};
  std::chrono::steady_clock::time_point Start;
  std::thread Thread;
};
} // namespace

static std::vector<std::string>
makeEnv(const RunOptions &O, StringRef Loops, ArrayRef<Variant> Variants,
        StringRef OutDir, bool Preload, const Libraries &Libs,
        StringRef LateDir = "", bool AskDlopen = false) {
  StringRef LoaderDir = Libs.LoaderDir;
  std::vector<std::string> Env;
  std::string OldPreload, OldLibPath;
  for (char **E = environ; *E; ++E) {
    StringRef S(*E);
    StringRef Name = S.split('=').first;
    if (Name == "LD_PRELOAD") {
      OldPreload = S.split('=').second.str();
      continue;
    }
    if (Name == "LD_LIBRARY_PATH" && !LoaderDir.empty()) {
      OldLibPath = S.split('=').second.str();
      continue;
    }
    if (is_contained({"DECAN_LOOPS", "DECAN_VARIANTS", "DECAN_MODE",
                      "DECAN_REPS", "DECAN_INSTANCE", "DECAN_EVENTS",
                      "DECAN_OUTPUT", "DECAN_FP_ENV", "DECAN_LIB_MAP",
                      "DECAN_REGIONS", "DECAN_LATE_DIR", "DECAN_LATE_WAIT_MS",
                      "DECAN_LATE_DLOPEN"},
                     Name))
      continue;
    Env.push_back(S.str());
  }
  std::string Vars;
  for (Variant V : Variants)
    Vars += (Vars.empty() ? "" : ",") + std::string(variantName(V));
  Env.push_back("DECAN_LOOPS=" + Loops.str());
  Env.push_back("DECAN_VARIANTS=" + Vars);
  Env.push_back("DECAN_MODE=" + O.Mode);
  Env.push_back("DECAN_REPS=" + std::to_string(O.Reps));
  Env.push_back("DECAN_INSTANCE=" + std::to_string(O.Instance));
  Env.push_back("DECAN_EVENTS=" + join(O.Events, ","));
  Env.push_back("DECAN_OUTPUT=" + OutDir.str());
  Env.push_back("DECAN_FP_ENV=" + O.FpEnv);
  if (O.Regions)
    Env.push_back("DECAN_REGIONS=1");
  if (!Libs.MapFile.empty())
    Env.push_back("DECAN_LIB_MAP=" + Libs.MapFile);
  if (!LateDir.empty()) {
    Env.push_back("DECAN_LATE_DIR=" + LateDir.str());
    // The first request waits for its pack (built in seconds; the cap is
    // for a decan that cannot answer).
    if (O.LateWait)
      Env.push_back("DECAN_LATE_WAIT_MS=120000");
    // --lib auto: a dlopen asks for a copy (DlopenCopies.h).
    if (AskDlopen)
      Env.push_back("DECAN_LATE_DLOPEN=1");
  }
  // An empty LD_LIBRARY_PATH entry means the current directory: never add
  // one the user did not have.
  if (!LoaderDir.empty())
    Env.push_back("LD_LIBRARY_PATH=" + LoaderDir.str() +
                  (OldLibPath.empty() ? "" : ":" + OldLibPath));
  if (Preload)
    OldPreload = O.LibDir + "/libdecan_rt.so" +
                 (OldPreload.empty() ? "" : ":" + OldPreload);
  if (!OldPreload.empty())
    Env.push_back("LD_PRELOAD=" + OldPreload);
  return Env;
}

/// Adds every raw report of \p Dir to \p M; returns how many were added.
static unsigned collect(StringRef Dir, RawMerger &M, raw_ostream &Log,
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

/// A run of more than one process (a program that forks, or starts other
/// programs): one line per process with what it measured, and a warning
/// naming each child that wrote no report. The runtime leaves
/// `decan.<pid>.child` (the parent's pid) in a fork and `decan.<pid>.exec`
/// (the program exec'd) in \p Dir.
static void describeProcesses(ArrayRef<ProcessInfo> Procs,
                              ArrayRef<LoopReport> Loops, StringRef Dir,
                              raw_ostream &Log) {
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

static bool wasMeasured(const LoopReport &R) {
  return any_of(R.Variants, [](const std::optional<VariantStats> &V) {
    return V && V->Calls;
  });
}

/// The first loaded object the loader knows as \p Name (its file name or
/// DT_SONAME), "" when none.
static std::string loadedAs(ArrayRef<std::string> Objects, StringRef Name) {
  for (const std::string &P : Objects) {
    if (sys::path::filename(P) == Name)
      return P;
    auto Facts = readDynamicFacts(P);
    if (Facts && Facts->SoName == Name)
      return P;
    if (!Facts)
      consumeError(Facts.takeError());
  }
  return "";
}

/// After the runs, says why a `--lib` library measured nothing (never
/// loaded, loaded from elsewhere, a wrapper without loops of its own), and
/// (\p Hint) where the time of a program with no measured loop likely is.
static void explainLibraries(const Report &R, const Libraries &Libs,
                             StringRef ProgName, raw_ostream &Log, bool Hint) {
  for (const Libraries::Lib &L : Libs.Each) {
    std::string Shown = "'" + L.Path + "'";
    if (L.Real != L.Path)
      Shown += " (" + L.Real + ")";
    if (!L.Measurable && !L.NotSelected) {
      // A wrapper (Debian's libblas.so.3 over OpenBLAS) forwards to the
      // library that has the loops: name what it depends on.
      std::vector<std::string> Deps;
      if (auto Facts = readDynamicFacts(L.Real)) {
        for (const std::string &N : Facts->Needed)
          if (!isSystemRuntime(N)) {
            std::string At = loadedAs(R.Objects, N);
            Deps.push_back(At.empty() ? N : N + " (" + At + ")");
          }
      } else {
        consumeError(Facts.takeError());
      }
      Log << "decan: warning: library " << Shown
          << " has no loop decan can measure";
      if (!Deps.empty())
        Log << "; its work is likely in the libraries it loads: "
            << join(Deps, ", ") << ": name them with --lib";
      Log << "\n";
      continue;
    }
    std::set<std::string, std::less<>> Ids(L.Ids.begin(), L.Ids.end());
    if (any_of(R.Loops, [&](const LoopReport &LR) {
          return wasMeasured(LR) && Ids.count(LR.Id);
        }))
      continue;
    std::string Copy = Libs.LoaderDir + "/" + L.Name;
    std::string Other = loadedAs(R.Objects, L.Name);
    if (is_contained(R.Objects, Copy) ||
        any_of(R.Loops, [&](const LoopReport &LR) { return Ids.count(LR.Id); }))
      Log << "decan: warning: no loop of library " << Shown
          << " was measured: " << ProgName
          << " loaded it but called none of its measurable loops twice (a "
             "loop's first call is a warm-up)\n";
    else if (!Other.empty())
      Log << "decan: warning: no loop of library " << Shown
          << " was measured: " << ProgName << " loaded '" << L.Name
          << "' from '" << Other
          << "', not decan's copy (a DT_RPATH takes precedence over "
             "LD_LIBRARY_PATH): give that file to --lib\n";
    else
      Log << "decan: warning: no loop of library " << Shown
          << " was measured: " << ProgName << " never loaded it as '" << L.Name
          << "'\n";
  }

  // Where is the rest of the time? The part of the program's own time the
  // measured loops cover (Report::Coverage, over every run): below half,
  // most of it is elsewhere; very short runs (under 20 ms) say nothing.
  // (--lib auto lists what it did not measure itself.)
  if (!Hint)
    return;
  bool None = none_of(R.Loops, wasMeasured);
  auto Hz = R.Machine.getNumber("tsc_hz");
  double Seconds = Hz && *Hz > 0 ? R.ProcessCycles / *Hz : 0;
  if (!None && (!R.Coverage || *R.Coverage >= 0.5 || Seconds < 0.02))
    return;
  std::vector<std::string> Candidates;
  for (const std::string &P : R.Objects)
    if (!isSystemRuntime(P) &&
        (Libs.LoaderDir.empty() ||
         !StringRef(P).starts_with(Libs.LoaderDir + "/")) &&
        none_of(Libs.Each,
                [&](const Libraries::Lib &L) { return L.Real == P; }))
      Candidates.push_back(sys::path::filename(P).str() + " (" + P + ")");
  if (Candidates.empty())
    return;
  Log << "decan: warning: ";
  if (None)
    Log << "no loop of " << ProgName << " was measured; its time";
  else
    Log << formatv("the measured loops cover {0:F0}% of {1}'s time; the rest",
                   *R.Coverage * 100, ProgName);
  Log << " is likely in the libraries it loaded: " << join(Candidates, ", ")
      << ": measure them with --lib PATH[,PATH...] or --lib auto\n";
}

/// `--lib auto`: one line for the libraries the program loaded that got no
/// copy (opened with dlopen, or needed by one that was, and not measured):
/// what to rerun with.
static void listUnmeasured(const Report &R, const Libraries &Libs,
                           const DlopenCopies &Dlopen, raw_ostream &Log) {
  std::vector<std::string> Names, Paths;
  for (const std::string &P : R.Objects) {
    if (isSystemRuntime(P) ||
        (!Libs.LoaderDir.empty() &&
         StringRef(P).starts_with(Libs.LoaderDir + "/")) ||
        any_of(Libs.Each,
               [&](const Libraries::Lib &L) {
                 return L.Copy == P || sys::fs::equivalent(L.Real, P);
               }) ||
        any_of(Dlopen.copies(),
               [&](const auto &C) { return C.first == P || C.second == P; }))
      continue;
    Names.push_back(sys::path::filename(P).str());
    Paths.push_back(P);
  }
  if (!Names.empty())
    Log << "decan: not measured: loaded with dlopen during the run: "
        << join(Names, ", ") << " (rerun with --lib " << join(Paths, ",")
        << ")\n";
}

/// `--lib auto`: the libraries the measured binary (the program, a
/// launcher's program, a script's interpreter) loads at start-up, its
/// DT_NEEDED closure read from the files (the program does not run: it
/// runs once, measured); not the C and C++ runtimes. Libraries loaded with
/// dlopen are asked for while it runs (DlopenCopies.h).
static std::vector<std::string> discoverLibraries(ArrayRef<std::string> Cmd,
                                                  raw_ostream &Log) {
  std::string Bin = Cmd[0];
  if (isLauncher(Bin)) {
    Bin.clear();
    for (const std::string &A : drop_begin(Cmd))
      if (!StringRef(A).starts_with("-") && sys::fs::is_regular_file(A) &&
          isELF(A)) {
        Bin = A;
        break;
      }
    if (Bin.empty())
      Bin = scriptInterpreter(Cmd[0]);
  }
  std::string ProgName = sys::path::filename(Cmd[0]).str();
  std::vector<std::string> Libs;
  if (Bin.empty()) {
    Log << "decan: --lib auto: " << ProgName
        << " is no ELF program: only the libraries it loads with dlopen "
           "are measured\n";
    return Libs;
  }
  auto Closure = neededClosure(Bin, LoaderSearch::fromSystem());
  if (!Closure) {
    Log << "decan: warning: --lib auto: " << toString(Closure.takeError())
        << "\n";
    return Libs;
  }
  for (const NeededLibrary &L : *Closure) {
    if (L.Path.empty())
      Log << "decan: warning: --lib auto: " << L.Name << ", needed by "
          << L.NeededBy << ", is nowhere the dynamic loader looks\n";
    else if (!isSystemRuntime(L.Path))
      Libs.push_back(L.Path);
  }
  if (Libs.empty())
    Log << "decan: --lib auto: " << ProgName
        << " links no library besides the C and C++ runtimes\n";
  else
    Log << "decan: --lib auto: measuring the libraries " << ProgName
        << " links: " << join(Libs, ", ") << "\n";
  return Libs;
}

namespace {
/// Late variants (RunOptions::Late; docs/rewriter.md, "Late variants"):
/// the base copies the program runs, and their late packs. Round K of a
/// copy is the runtime's `<copy>.request.K` (loops that ran without
/// copies) answered by `<copy>.pack.K`, laid out in the late range past
/// the packs before it (or `<copy>.nopack.K`). A cached pack (`<copy>.pack`
/// next to the copy, its loops in `<copy>.pack-loops`) is round 0, so the
/// next run starts with it; after the run, every loop that ran (the
/// runtime's `<copy>.ran.PID`) goes into the cached pack of the next run.
class LatePacks {
public:
  LatePacks(std::string Dir, bool Wait, unsigned VariantMask, raw_ostream &Log)
      : Dir(std::move(Dir)), Wait(Wait), Log(Log) {
    Opts.VariantMask = VariantMask;
  }

  void add(StringRef Input, StringRef Copy) {
    if (Input.empty() || Copy.empty())
      return;
    for (const Base &B : Bases)
      if (B.Copy == Copy)
        return;
    Base B;
    B.Input = Input.str();
    B.Copy = Copy.str();
    B.Name = sys::path::filename(Copy).str();
    Bases.push_back(std::move(B));
  }
  bool empty() const { return Bases.empty(); }
  const std::string &dir() const { return Dir; }

  /// Before a run: the cached packs into the late directory (round 0).
  Error stage() {
    sys::fs::remove_directories(Dir);
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return createStringError("cannot create '%s': %s", Dir.c_str(),
                               EC.message().c_str());
    for (Base &B : Bases)
      stageOne(B);
    Start = std::chrono::steady_clock::now();
    return Error::success();
  }

  /// While the program runs: a copy it opens with dlopen (DlopenCopies.h),
  /// its cached pack staged before the program loads it.
  void addDuringRun(StringRef Input, StringRef Copy) {
    size_t Before = Bases.size();
    add(Input, Copy);
    if (Bases.size() > Before)
      stageOne(Bases.back());
  }

  /// While the program runs: answers each request with a pack.
  void poll() {
    for (Base &B : Bases)
      while (sys::fs::exists(round(B, "request", B.Round))) {
        unsigned K = B.Round++;
        std::vector<std::string> Ids = readLines(round(B, "request", K));
        // Loops no pack can hold (an earlier run's build left them out)
        // are not built again: nothing to wait for.
        llvm::erase_if(Ids, [&](const std::string &Id) {
          return is_contained(B.Left, Id);
        });
        double At = seconds();
        rewriter::LatePackOptions O = Opts;
        O.RangeOffset = B.NextOffset;
        if (Ids.empty()) {
          std::error_code EC;
          raw_fd_ostream(round(B, "nopack", K), EC);
          continue;
        }
        auto R = rewriter::buildLatePackFile(B.Input, B.Copy, Ids,
                                             round(B, "pack", K), O);
        if (!R) {
          Log << "decan: warning: " << B.Name
              << ": no late variants: " << toString(R.takeError()) << "\n";
          // A program waiting for this pack goes on.
          std::error_code EC;
          raw_fd_ostream(round(B, "nopack", K), EC);
          continue;
        }
        B.NextOffset = R->RangeEnd;
        append_range(B.Built, R->Built);
        Log << formatv("decan: {0}: variants of {1} loop(s) that ran built "
                       "{2:F1} s into the run, ready at {3:F1} s{4}\n",
                       B.Name, R->Built.size(), At, seconds(),
                       Wait ? " (the program waited for them: not its time)"
                            : "");
      }
  }

  /// After the run: every loop that ran goes into the pack of the next
  /// run, built again in one piece unless the run's only pack is it.
  void finish() {
    for (Base &B : Bases) {
      std::vector<std::string> Ids = B.Cached;
      auto Add = [&](ArrayRef<std::string> More) {
        for (const std::string &Id : More)
          if (!is_contained(Ids, Id))
            Ids.push_back(Id);
      };
      Add(B.Built);
      size_t BeforeRan = Ids.size();
      std::error_code EC;
      for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
           It.increment(EC))
        if (sys::path::filename(It->path()).starts_with(B.Name + ".ran."))
          Add(readLines(It->path()));
      llvm::erase_if(
          Ids, [&](const std::string &Id) { return is_contained(B.Left, Id); });
      size_t Missed = Ids.size() - std::min(Ids.size(), BeforeRan);
      if (Ids.size() == B.Cached.size())
        continue;
      if (B.Cached.empty() && B.Round == 1 && !Missed &&
          sys::fs::exists(round(B, "pack", 0))) {
        // The run's one pack is at the range's start: it is the next run's.
        if (!cacheCopy(round(B, "pack", 0), B.Copy + ".pack"))
          keepLoops(B, B.Built);
        continue;
      }
      std::string Tmp = path(B, ".next.pack");
      auto R = rewriter::buildLatePackFile(B.Input, B.Copy, Ids, Tmp, Opts);
      if (!R) {
        Log << "decan: warning: " << B.Name
            << ": no late variants for the next run: "
            << toString(R.takeError()) << "\n";
        continue;
      }
      if (cacheCopy(Tmp, B.Copy + ".pack"))
        continue;
      keepLoops(B, R->Built);
      // What no pack can hold, so that no later run waits for it.
      for (const auto &[Id, Why] : R->Left)
        B.Left.push_back(Id);
      writeLines(B.Copy + ".pack-left", B.Left);
      if (Missed)
        Log << formatv("decan: {0}: {1} loop(s) ran without variants (the "
                       "run ended before their pack, or they first ran "
                       "after the last request): the next run starts with "
                       "variants for {2} loop(s)\n",
                       B.Name, Missed, R->Built.size());
    }
  }

private:
  struct Base {
    std::string Input, Copy, Name;
    /// Loops of the cached pack staged (round 0), built this run, and
    /// left out of every pack (`<copy>.pack-left`: not asked for again).
    std::vector<std::string> Cached, Built, Left;
    unsigned Round = 0;
    uint64_t NextOffset = 0;
  };
  /// Its cached pack into the late directory (round 0), if any.
  void stageOne(Base &B) {
    B.Round = 0;
    B.NextOffset = 0;
    B.Cached = readLines(B.Copy + ".pack-loops");
    B.Left = readLines(B.Copy + ".pack-left");
    B.Built.clear();
    if (!B.Cached.empty() &&
        !sys::fs::copy_file(B.Copy + ".pack", round(B, "pack", 0))) {
      if (auto End = rangeEnd(round(B, "pack", 0))) {
        B.Round = 1;
        B.NextOffset = *End;
        Log << formatv("decan: {0}: the variants of {1} loop(s) from the "
                       "last run (cached)\n",
                       B.Name, B.Cached.size());
      }
    }
    if (!B.Round)
      B.Cached.clear();
  }
  std::string path(const Base &B, StringRef Suffix) const {
    return (Dir + "/" + B.Name + Suffix).str();
  }
  std::string round(const Base &B, StringRef Kind, unsigned K) const {
    return (Dir + "/" + B.Name + "." + Kind + "." + Twine(K)).str();
  }
  /// Where the pack at \p Path ends in the late range.
  static std::optional<uint64_t> rangeEnd(StringRef Path) {
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf || (*Buf)->getBufferSize() < sizeof(decan_late_pack_header))
      return std::nullopt;
    decan_late_pack_header H;
    memcpy(&H, (*Buf)->getBufferStart(), sizeof(H));
    if (memcmp(H.magic, "DECANLP1", 8) || H.abi_version != DECAN_ABI_VERSION)
      return std::nullopt;
    return alignTo(H.scratch_offset + H.scratch_size, 4096);
  }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  }
  static std::vector<std::string> readLines(StringRef Path) {
    std::vector<std::string> Out;
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return Out;
    SmallVector<StringRef, 64> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, false);
    for (StringRef L : Lines)
      if (!L.trim().empty())
        Out.push_back(L.trim().str());
    return Out;
  }
  /// Files next to a cached copy appear whole (writeOutput): a run killed
  /// while writing leaves the last complete one.
  static void writeLines(StringRef Path, ArrayRef<std::string> Lines) {
    std::string Text;
    for (const std::string &L : Lines)
      Text += L + "\n";
    consumeError(writeOutput(Path, Text));
  }
  /// Copies \p From to \p To; true on failure, as sys::fs::copy_file.
  static bool cacheCopy(StringRef From, StringRef To) {
    auto Buf = MemoryBuffer::getFile(From, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf)
      return true;
    if (Error E = writeOutput(To, (*Buf)->getBuffer())) {
      consumeError(std::move(E));
      return true;
    }
    return false;
  }
  void keepLoops(Base &B, ArrayRef<std::string> Built) {
    writeLines(B.Copy + ".pack-loops", Built);
  }

  std::string Dir;
  bool Wait;
  rewriter::LatePackOptions Opts;
  raw_ostream &Log;
  std::vector<Base> Bases;
  std::chrono::steady_clock::time_point Start;
};

} // namespace

/// Late variants by default when the inputs decan would rewrite (the
/// program unless it was built with the plugin or --lib names libraries,
/// and the --lib libraries without a loop table) are DECAN_LATE_MIN_MB
/// (default 16) or more: a full rewrite takes about 0.6 s per MB
/// (OpenBLAS, 36.5 MB: 22 s and a copy 6x the input) where a base copy
/// and a pack for the loops that ran take a few seconds and stay within
/// 2x (docs/rewriter.md, "Late variants").
static std::optional<std::string> lateByDefault(StringRef Program,
                                                bool ProgramPlain,
                                                ArrayRef<std::string> Libs) {
  double MinMb = 16;
  if (auto E = sys::Process::GetEnv("DECAN_LATE_MIN_MB")) {
    double V;
    if (!StringRef(*E).trim().getAsDouble(V) && V >= 0)
      MinMb = V;
  }
  uint64_t Bytes = 0;
  std::string Largest;
  uint64_t LargestBytes = 0;
  auto Count = [&](StringRef Path) {
    uint64_t Size;
    if (sys::fs::file_size(Path, Size) || !isELF(Path))
      return;
    auto Table = readLoopTable(Path);
    if (!Table) {
      consumeError(Table.takeError());
      return;
    }
    if (Table->has_value())
      return; // plugin-built: nothing to rewrite
    Bytes += Size;
    if (Size >= LargestBytes) {
      LargestBytes = Size;
      Largest = sys::path::filename(Path).str();
    }
  };
  if (!ProgramPlain && !isLauncher(Program))
    Count(Program);
  for (const std::string &L : Libs)
    Count(L);
  if (!Bytes || double(Bytes) < MinMb * 1e6)
    return std::nullopt;
  return formatv("{0} is {1:F1} MB", Largest, LargestBytes / 1e6).str();
}

/// Where a crashed or interrupted process was: "in loop f:L0, variant
/// LS", "in loop f:L0, in the original loop run after variant LS", or
/// "outside any measured loop".
static std::string whereItWas(const ProcessInfo &P) {
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

Expected<RunOutcome> runMeasurements(RunOptions O, raw_ostream &Log) {
  if (O.Command.empty())
    return createStringError("no program given (decan run [options] -- "
                             "PROGRAM [ARGS...])");
  auto Prog = resolveProgram(O.Command[0]);
  if (!Prog)
    return Prog.takeError();
  // The program sees the argv[0] the user typed, whatever file runs (a
  // rewritten copy from the cache, the path PATH gave).
  const std::string TypedArgv0 = O.Command[0];
  O.Command[0] = *Prog;
  if (!is_contained({"rotate", "replace", "instance"}, O.Mode))
    return createStringError("unknown mode '%s' (rotate, replace, instance)",
                             O.Mode.c_str());
  if (!is_contained({"ftz", "keep"}, O.FpEnv))
    return createStringError("unknown floating-point environment '%s' "
                             "(--fp-env ftz or keep)",
                             O.FpEnv.c_str());
  if (Error E = validateEvents(O.Events))
    return std::move(E);
  if (!is_contained(O.Variants, Variant::REF)) // saturations need REF
    O.Variants.insert(O.Variants.begin(), Variant::REF);

  // A decan that was killed left its directory (and maybe reports) behind.
  RunDirectory::reclaimStale(Log);
  RunDirectory Tmp;
  if (Error E = Tmp.create())
    return std::move(E);

  bool Auto = is_contained(O.Libs, "auto");
  if (Auto) {
    llvm::erase(O.Libs, "auto");
    for (std::string &L : discoverLibraries(O.Command, Log))
      if (none_of(O.Libs, [&](const std::string &G) {
            return sys::fs::equivalent(G, L);
          }))
        O.Libs.push_back(std::move(L));
  }
  // A prebuilt program or library is rewritten for what will be measured:
  // --loops names the loops; else every loop gets its variants before the
  // one run (the run belongs to the user: it happens once). With
  // --find-first, a quick REF-only copy (no dependence analysis) and a
  // first run show which loops run (--hot: the hottest of them), and only
  // those get variants.
  // Copies carry the variants this run rotates, and no others (the
  // others' dependence checks are most of a rewrite's time): --extended or
  // --groups add theirs. The mask is part of the cache key.
  unsigned Rotated = 0;
  for (Variant V : O.Variants)
    Rotated |= 1u << static_cast<unsigned>(V);
  rewriter::RewriteOptions Stage;
  Stage.VariantMask = Rotated;
  if (O.Loops != "all") {
    SmallVector<StringRef, 8> Ids;
    StringRef(O.Loops).split(Ids, ',', -1, false);
    for (StringRef Id : Ids)
      Stage.OnlyLoops.push_back(Id.trim().str());
  } else if (O.FindFirst) {
    Stage.Profile = true;
  }
  // --lib auto measures everything: the program's own loops too.
  bool PlainOk = !O.Libs.empty() && !Auto;
  bool WantLate = O.Late == RunOptions::LateMode::Always;
  if (O.Late == RunOptions::LateMode::Auto && O.Loops == "all" &&
      !O.FindFirst && !O.HotPercent)
    if (auto Why = lateByDefault(O.Command[0], PlainOk, O.Libs)) {
      WantLate = true;
      Log << "decan: " << *Why
          << ": its loops get their variants as they run (late variants; "
             "--no-late rewrites every loop first)\n";
    }
  if (WantLate && O.Loops == "all" && !O.FindFirst)
    Stage.LateBase = true;
  const std::vector<std::string> Original = O.Command;
  Expected<Target> T = Target();
  Expected<Libraries> Libs = Libraries();
  auto Prepare = [&](const rewriter::RewriteOptions &RW,
                     StringRef Dir) -> Error {
    O.Command = Original;
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return createStringError("cannot create '%s': %s", Dir.str().c_str(),
                               EC.message().c_str());
    T = prepareTarget(O.Command, Dir, PlainOk, RW);
    if (!T)
      return T.takeError();
    Libs = prepareLibraries(O.Libs, Dir, RW);
    if (!Libs)
      return Libs.takeError();
    // --lib auto: the loader finds there what an opened library needs
    // (DlopenCopies.h), even when the program links nothing.
    if (Auto && Libs->LoaderDir.empty()) {
      Libs->LoaderDir = (Dir + "/ld-path").str();
      if (std::error_code EC = sys::fs::create_directories(Libs->LoaderDir))
        return createStringError("cannot create '%s': %s",
                                 Libs->LoaderDir.c_str(), EC.message().c_str());
    }
    if (!Libs->Loops.empty()) {
      if (!T->Loops)
        T->Loops.emplace();
      append_range(*T->Loops, Libs->Loops);
    }
    return Error::success();
  };
  if (Error E = Prepare(Stage, Tmp.path() + "/stage1"))
    return std::move(E);
  bool Profiling = Stage.Profile && (T->Preload || Libs->Preload);
  std::string ProgName = sys::path::filename(O.Command[0]).str();
  // The run is the user's: every mode that runs the program again says so
  // before it starts (a program that changes its files notices).
  if (O.HotPercent)
    Log << "decan: --hot runs " << ProgName
        << " twice: a REF-only profile run, then the measured run of the "
           "hot loops\n";
  else if (Profiling)
    Log << "decan: --find-first runs " << ProgName
        << " twice: a REF-only run (its output dropped) finds the loops "
           "that run, then the measured run\n";
  if (O.Mode != "rotate" && O.Variants.size() > 1)
    Log << formatv("decan: --mode {0} runs {1} {2} times: once per variant\n",
                   O.Mode, ProgName, O.Variants.size());
  else if (O.Mode == "rotate" && O.MaxRuns > 1)
    Log << formatv("decan: --max-runs {0} may run {1} up to {0} times: again "
                   "while a loop has too few samples\n",
                   O.MaxRuns, ProgName);
  if (O.Loops != "all" && T->Loops) {
    SmallVector<StringRef, 8> Ids;
    StringRef(O.Loops).split(Ids, ',', -1, false);
    for (StringRef Id : Ids)
      if (none_of(*T->Loops, [&](const MetaLoop &L) { return L.Id == Id; }))
        return createStringError(
            "unknown loop '%s' in '%s'%s (see 'decan list %s')",
            Id.str().c_str(), T->Binary.c_str(),
            O.Libs.empty() ? "" : " or its --lib libraries",
            O.Libs.empty() ? T->Binary.c_str() : "LIBRARY");
  }
  if (T->Loops && T->Loops->empty())
    Log << "decan: warning: '" << T->Binary
        << (O.Libs.empty() ? "' has" : "' and its --lib libraries have")
        << " an empty loop table: nothing to measure\n";

  LatePacks Late(Tmp.path() + "/late", O.LateWait, Rotated, Log);
  if (Stage.LateBase) {
    Late.add(T->Input, T->Input.empty() ? "" : T->Binary);
    for (const Libraries::Lib &L : Libs->Each)
      Late.add(L.Real, L.Copy);
  }

  // --lib auto: a library the program opens with dlopen is copied while
  // it waits, as its libraries were before it ran (a base copy when large,
  // as lateByDefault decides for those).
  std::optional<DlopenCopies> Dlopen;
  if (Auto) {
    unsigned NumCopies = 0;
    Dlopen.emplace(
        [&](StringRef Real) -> Expected<std::string> {
          rewriter::RewriteOptions RW = Stage;
          RW.Profile = false;
          RW.LateBase =
              Stage.LateBase || O.Late == RunOptions::LateMode::Always ||
              (O.Late == RunOptions::LateMode::Auto && O.Loops == "all" &&
               !O.FindFirst && !O.HotPercent &&
               lateByDefault("", /*ProgramPlain=*/true, {Real.str()}));
          std::string Dir = (Tmp.path() + "/dlopen" + Twine(++NumCopies)).str();
          if (std::error_code EC = sys::fs::create_directories(Dir))
            return createStringError("cannot create '%s': %s", Dir.c_str(),
                                     EC.message().c_str());
          auto Copy = rewriter::instrumentCached(Real, Dir, RW);
          if (Copy && RW.LateBase && *Copy != Real)
            Late.addDuringRun(Real, *Copy);
          return Copy;
        },
        Log);
  }

  RunOutcome Out;
  RawMerger M;
  bool Crashed = false;
  unsigned Planned = 1;

  auto RunOnce = [&](StringRef Loops, ArrayRef<Variant> Variants,
                     RawMerger &Into, StringRef What,
                     bool Quiet = false) -> Expected<unsigned> {
    ++Out.Runs;
    std::string Dir = (Tmp.path() + "/run" + Twine(Out.Runs)).str();
    if (std::error_code EC = sys::fs::create_directory(Dir))
      return createStringError("cannot create '%s': %s", Dir.c_str(),
                               EC.message().c_str());
    // The late directory also carries --lib auto's dlopen requests.
    bool Serve = !Late.empty() || Dlopen;
    if (Serve)
      if (Error E = Late.stage())
        return std::move(E);
    if (Dlopen)
      Dlopen->startRun();
    std::vector<std::string> Argv = O.Command;
    Argv[0] = TypedArgv0;
    Expected<int> Status = [&] {
      Progress P(O.Progress, Out.Runs, std::max(Planned, Out.Runs), What);
      if (Serve)
        return runProgram(
            Argv,
            makeEnv(O, Loops, Variants, Dir,
                    T->Preload || Libs->Preload || Dlopen, *Libs, Late.dir(),
                    bool(Dlopen)),
            Quiet,
            [&] {
              if (Dlopen)
                Dlopen->poll(Late.dir(), Libs->LoaderDir);
              Late.poll();
            },
            O.Command[0]);
      return runProgram(
          Argv,
          makeEnv(O, Loops, Variants, Dir, T->Preload || Libs->Preload, *Libs),
          Quiet, {}, O.Command[0]);
    }();
    if (!Late.empty())
      Late.finish();
    if (!Status)
      return Status.takeError();
    unsigned Before = Into.size();
    Into.setRun(Out.Runs);
    unsigned N = collect(Dir, Into, Log, O.KeepRawDir, Out.Runs);
    if (Out.Runs == 1 || !Out.WaitStatus)
      Out.WaitStatus = *Status;
    std::string Run =
        Out.Runs > 1 ? formatv(" (run {0})", Out.Runs).str() : std::string();
    std::string Problem;
    if (WIFSIGNALED(*Status)) {
      int Sig = WTERMSIG(*Status);
      Problem = Sig == SIGINT || Sig == SIGTERM || Sig == SIGHUP
                    ? formatv("{0} was interrupted ({1}){2}; the data measured "
                              "until then are kept",
                              ProgName, signalName(Sig), Run)
                          .str()
                    : formatv("{0} was killed by {1}{2}", ProgName,
                              signalName(Sig), Run)
                          .str();
    } else if (WIFEXITED(*Status) && WEXITSTATUS(*Status)) {
      Problem = formatv("{0} exited with status {1}{2}", ProgName,
                        WEXITSTATUS(*Status), Run)
                    .str();
    }
    Report Now = Into.finish();
    describeProcesses(ArrayRef<ProcessInfo>(Now.Processes).drop_front(Before),
                      Now.Loops, Dir, Log);
    bool Named = false;
    for (size_t I = Before; I < Now.Processes.size(); ++I) {
      const ProcessInfo &P = Now.Processes[I];
      if (P.Status != "crashed")
        continue;
      Crashed = Named = true;
      std::string Where = whereItWas(P);
      Out.Problems.push_back(
          formatv("{0} crashed ({1}) {2}{3}{4}; the data measured before the "
                  "crash are kept",
                  ProgName, P.CrashSignal.empty() ? "?" : P.CrashSignal, Where,
                  P.Rank ? formatv(" (rank {0})", *P.Rank).str() : "", Run)
              .str());
    }
    // Interrupted (a timeout's SIGTERM, ^C): where the program was, so a
    // run stopped in a variant names it.
    if (!Problem.empty() && WIFSIGNALED(*Status))
      for (size_t I = Before; I < Now.Processes.size(); ++I)
        if (const ProcessInfo &P = Now.Processes[I];
            P.Status == "interrupted" && !P.CrashLoop.empty()) {
          Problem += " (it was " + whereItWas(P) + ")";
          break;
        }
    if (!Problem.empty()) {
      if (WIFSIGNALED(*Status))
        Crashed = true;
      // The crash line already says what the signal did.
      if (!Named)
        Out.Problems.push_back(Problem);
    }
    if (!N && !Before && WIFSIGNALED(*Status))
      return make_error<ProgramKilled>(
          WTERMSIG(*Status),
          formatv("{0} was killed by {1}{2} before it wrote a decan report",
                  ProgName, signalName(WTERMSIG(*Status)), Run)
              .str());
    if (!N && !Before)
      return createStringError(
          "%s wrote no decan report%s: was it built with $(decan flags), "
          "and does it reach exit?",
          ProgName.c_str(),
          Problem.empty() ? "" : (" (" + Problem + ")").c_str());
    return N;
  };

  // --hot, or a profiling copy: a REF-only run gives the profile; keep the
  // loops covering the requested part of measured loop time (--hot), or
  // every loop that ran.
  std::string Loops = O.Loops;
  if (O.HotPercent || Profiling) {
    Planned = 2;
    RawMerger Profile;
    // The user asked for two runs with --hot; otherwise this one is
    // decan's: its standard output is dropped, like --lib auto's.
    auto N = RunOnce(Loops, ArrayRef<Variant>{Variant::REF}, Profile,
                     Profiling ? "finding the loops that run (REF)"
                               : "profile (REF)",
                     /*Quiet=*/!O.HotPercent);
    if (!N)
      return N.takeError();
    Report P = Profile.finish();
    std::vector<const LoopReport *> Order;
    for (const LoopReport &L : P.Loops)
      Order.push_back(&L);
    llvm::stable_sort(Order, [](const LoopReport *A, const LoopReport *B) {
      return A->Share > B->Share;
    });
    std::vector<std::string> Keep;
    if (O.HotPercent) {
      std::string Hot;
      double Covered = 0;
      for (const LoopReport *L : Order) {
        if (Covered * 100 >= *O.HotPercent || L->Share <= 0)
          break;
        Hot += (Hot.empty() ? "" : ",") + L->Id;
        Keep.push_back(L->Id);
        Covered += L->Share;
      }
      if (Hot.empty())
        return createStringError("--hot: no loop was measured in the profile "
                                 "run");
      Log << formatv("decan: --hot {0}: {1} of {2} loops cover {3:F1}% of "
                     "measured loop time: {4}\n",
                     formatv("{0}", format("%g", *O.HotPercent)).str(),
                     Keep.size(), P.Loops.size(), Covered * 100, Hot);
      Loops = Hot;
    } else {
      for (const LoopReport *L : Order)
        if (L->RunCalls || L->CallsSeen ||
            (L->Variants[Variant::REF] && L->Variants[Variant::REF]->Calls))
          Keep.push_back(L->Id);
    }
    if (Profiling) {
      rewriter::RewriteOptions Final;
      Final.VariantMask = Rotated;
      Final.OnlyLoops = Keep;
      Final.OnlyListed = true;
      Final.ListUnselected = false;
      // The loops left out are not in the final copies' tables: count them
      // from the profiling copies' (explainLibraries).
      std::vector<unsigned> Before;
      for (const Libraries::Lib &L : Libs->Each)
        Before.push_back(L.Measurable);
      if (Error E = Prepare(Final, Tmp.path() + "/stage2"))
        return std::move(E);
      for (size_t K = 0; K < Libs->Each.size() && K < Before.size(); ++K)
        if (Before[K] > Libs->Each[K].Measurable)
          Libs->Each[K].NotSelected += Before[K] - Libs->Each[K].Measurable;
      if (!O.HotPercent)
        Log << formatv("decan: {0} loop(s) ran in the first run: variants "
                       "built for those (--find-first)\n",
                       Keep.size());
    }
  }

  // Replace mode runs only the first requested variant of a loop and
  // instance mode measures one call: both take one run per variant (REF
  // first), so that every variant is measured on the same calls.
  bool PerVariant = O.Mode != "rotate";
  if (PerVariant) {
    Planned = Out.Runs + O.Variants.size();
    for (Variant V : O.Variants) {
      auto N = RunOnce(Loops, ArrayRef<Variant>{V}, M,
                       "variant " + std::string(variantName(V)));
      if (!N)
        return N.takeError();
    }
  } else {
    auto First = RunOnce(Loops, O.Variants, M, "measuring");
    if (!First)
      return First.takeError();
  }

  // Only when asked (--max-runs): run again while a loop called more than
  // once has fewer usable pairs than a verdict needs for a variant it runs.
  constexpr uint64_t kMinPairs = 5;
  while (!PerVariant && !Crashed && Out.Runs < O.MaxRuns) {
    Report Now = M.finish();
    std::string Need;
    for (const LoopReport &L : Now.Loops) {
      if (O.Loops != "all" || O.HotPercent) {
        SmallVector<StringRef, 8> Ids;
        StringRef(Loops).split(Ids, ',', -1, false);
        if (!is_contained(Ids, StringRef(L.Id)))
          continue;
      }
      if (L.RunCalls < 2)
        continue; // an init loop called once: more runs change nothing
      bool Short = false;
      for (Variant V : O.Variants)
        if (L.Variants[V] && L.Variants[V]->Pairs.size() < kMinPairs)
          Short = true;
      if (Short)
        Need += (Need.empty() ? "" : ",") + L.Id;
    }
    if (Need.empty())
      break;
    Planned = O.MaxRuns;
    Log << formatv("decan: loop(s) {0} have fewer than {1} paired samples "
                   "per variant: running {2} again (run {3} of at most {4}, "
                   "--max-runs)\n",
                   Need, kMinPairs, ProgName, Out.Runs + 1, O.MaxRuns);
    auto N = RunOnce(Need, O.Variants, M, "more samples");
    if (!N)
      return N.takeError();
  }
  Out.Merged = M.finish();
  if (Stage.LateBase) {
    // What the late variants covered (docs/rewriter.md, "Late variants").
    unsigned Installed = 0, Waiting = 0;
    double Latest = 0;
    for (const LoopReport &L : Out.Merged.Loops) {
      if (L.Late == "installed") {
        ++Installed;
        Latest = std::max(Latest, L.LateSince);
      } else if (L.Late == "waiting" && L.LateCallsSeen) {
        ++Waiting;
      }
    }
    if (Installed)
      Log << formatv("decan: --late: {0} loop(s) measured with their "
                     "variants from at most {1:F2} s into the run on (their "
                     "calls before were not measured)\n",
                     Installed, Latest);
    if (Waiting)
      Log << formatv("decan: --late: {0} loop(s) ran without variants (still "
                     "being built, or first run after the request): not "
                     "measured in this run\n",
                     Waiting);
  }
  // (--late says itself which loops ran without variants.)
  if (O.Loops == "all" && !O.HotPercent && !Stage.LateBase)
    explainLibraries(Out.Merged, *Libs, ProgName, Log, /*Hint=*/!Auto);
  if (Dlopen)
    listUnmeasured(Out.Merged, *Libs, *Dlopen, Log);
  if (!O.Events.empty())
    Out.Merged.Config["events"] = json::Array(O.Events);
  Out.Merged.Config["runs"] = static_cast<int64_t>(Out.Runs);
  // How the prebuilt inputs were rewritten: every loop first, or late
  // variants (docs/rewriter.md).
  if (!Late.empty())
    Out.Merged.Config["late_variants"] = O.LateWait ? "waited" : "no wait";
  if (!Out.Merged.Config.getInteger("reps"))
    Out.Merged.Config["reps"] = static_cast<int64_t>(O.Reps);
  return Out;
}

} // namespace decan::tool
