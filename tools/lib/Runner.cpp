//===- Runner.cpp - Run a program under the decan protocol ----------------===//
//
// Part of decan. RunSession's phases (see Runner.h); each reads what the
// ones before left in the session. The pieces they use live in files of
// their own: RunTarget and LibraryCopies (inputs made measurable),
// LatePacks, DlopenCopies, RunEnvironment, Process (the program's
// lifetime), RawReports, RunHints.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Runner.h"
#include "decan/Tool/Libraries.h"
#include "decan/Tool/LoopNames.h"
#include "decan/Tool/Progress.h"
#include "decan/Tool/RawReports.h"
#include "decan/Tool/RunEnvironment.h"
#include "decan/Tool/RunHints.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <csignal>
#include <sys/wait.h>

using namespace llvm;

namespace decan::tool {

Expected<std::unique_ptr<RunSession>> RunSession::create(RunOptions O,
                                                         raw_ostream &Log) {
  if (Error E = validateRunOptions(O))
    return std::move(E);
  auto Prog = resolveProgram(O.Command[0]);
  if (!Prog)
    return Prog.takeError();
  O.Variants = O.rotation();
  std::unique_ptr<RunSession> S(new RunSession(std::move(O), Log));
  S->TypedArgv0 = S->O.Command[0];
  S->O.Command[0] = *Prog;
  S->RunLoops = S->O.Loops;
  return std::move(S);
}

Expected<RunOutcome> RunSession::run() {
  if (Error E = prepareDirectory())
    return std::move(E);
  chooseLibraries();
  planRewrite();
  if (Error E = prepareInputs(Stage, Tmp.path() + "/stage1"))
    return std::move(E);
  if (Error E = announce())
    return std::move(E);
  prepareLatePacks();
  prepareDlopenCopies();
  if (Error E = profile())
    return std::move(E);
  if (Error E = measure())
    return std::move(E);
  if (Error E = measureAgain())
    return std::move(E);
  return collect();
}

Expected<RunOutcome> runMeasurements(RunOptions Opts, raw_ostream &Log) {
  auto S = RunSession::create(std::move(Opts), Log);
  if (!S)
    return S.takeError();
  return (*S)->run();
}

Error RunSession::prepareDirectory() {
  // A decan that was killed left its directory (and maybe reports) behind.
  RunDirectory::reclaimStale(Log);
  return Tmp.create();
}

void RunSession::chooseLibraries() {
  AutoLibs = is_contained(O.Libs, "auto");
  if (!AutoLibs)
    return;
  llvm::erase(O.Libs, "auto");
  for (std::string &L : discoverLibraries(O.Command, Log))
    if (none_of(O.Libs, [&](const std::string &G) {
          return sys::fs::equivalent(G, L);
        }))
      O.Libs.push_back(std::move(L));
}

void RunSession::planRewrite() {
  // A prebuilt program or library is rewritten for what will be measured:
  // --loops names the loops; else every loop gets its variants before the
  // one run (the run belongs to the user: it happens once). With
  // --find-first, a quick REF-only copy (no dependence analysis) and a
  // first run show which loops run (--hot: the hottest of them), and only
  // those get variants.
  // Copies carry the variants this run rotates, and no others (the
  // others' dependence checks are most of a rewrite's time): --extended or
  // --groups add theirs. The mask is part of the cache key.
  for (Variant V : O.Variants)
    Rotated |= 1u << static_cast<unsigned>(V);
  Stage.VariantMask = Rotated;
  Stage.Regions = O.Regions; // outer loops timed REF only (RegionFinder.h)
  Stage.Nests = O.Nests;     // 2-level nests as loops (NestFinder.h)
  if (O.Loops != "all") {
    Stage.OnlyLoops = O.loopIds();
    // Short C++ names too (LoopNames.h); a library's "object!" prefix is
    // checked once its loops are known (announce).
    Stage.NamesLoop = namesLoopOfAnyObject;
  } else if (O.FindFirst)
    Stage.Profile = true;
  // --lib auto measures everything: the program's own loops too.
  PlainOk = !O.Libs.empty() && !AutoLibs;
  bool WantLate = O.lateMode() == RunOptions::LateMode::Always;
  if (O.lateMode() == RunOptions::LateMode::Auto && O.Loops == "all" &&
      !O.FindFirst && !O.HotPercent && !O.Nests)
    if (auto Why = lateByDefault(O.Command[0], PlainOk, O.Libs)) {
      WantLate = true;
      Log << "decan: " << *Why
          << ": its loops get their variants as they run (late variants; "
             "--no-late rewrites every loop first)\n";
    }
  // (A late pack has no nests: --nests rewrites every loop first.)
  if (WantLate && O.Loops == "all" && !O.FindFirst && !O.Nests)
    Stage.LateBase = true;
  Original = O.Command;
}

Error RunSession::prepareInputs(const rewriter::RewriteOptions &RW,
                                StringRef Dir) {
  O.Command = Original;
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError("cannot create '%s': %s", Dir.str().c_str(),
                             EC.message().c_str());
  auto Tgt = prepareTarget(O.Command, Dir, PlainOk, RW);
  if (!Tgt)
    return Tgt.takeError();
  T = std::move(*Tgt);
  auto L = prepareLibraries(O.Libs, Dir, RW);
  if (!L)
    return L.takeError();
  Libs = std::move(*L);
  // --lib auto: the loader finds there what an opened library needs
  // (DlopenCopies.h), even when the program links nothing.
  if (AutoLibs && Libs.LoaderDir.empty()) {
    Libs.LoaderDir = (Dir + "/ld-path").str();
    if (std::error_code EC = sys::fs::create_directories(Libs.LoaderDir))
      return createStringError("cannot create '%s': %s", Libs.LoaderDir.c_str(),
                               EC.message().c_str());
  }
  if (!Libs.Loops.empty()) {
    if (!T.Loops)
      T.Loops.emplace();
    append_range(*T.Loops, Libs.Loops);
  }
  return Error::success();
}

Error RunSession::announce() {
  Profiling = Stage.Profile && (T.Preload || Libs.Preload);
  ProgName = sys::path::filename(O.Command[0]).str();
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
  if (O.Loops != "all" && T.Loops) {
    // Names (LoopNames.h) become the ids the runtime selects by.
    auto Ids = resolveLoopNames(O.loopIds(), loopIdentities(*T.Loops));
    if (!Ids)
      return createStringError("%s in '%s'%s (see 'decan list %s')",
                               toString(Ids.takeError()).c_str(),
                               T.Binary.c_str(),
                               O.Libs.empty() ? "" : " or its --lib libraries",
                               O.Libs.empty() ? T.Binary.c_str() : "LIBRARY");
    RunLoops = join(*Ids, ",");
  }
  if (T.Loops && T.Loops->empty())
    Log << "decan: warning: '" << T.Binary
        << (O.Libs.empty() ? "' has" : "' and its --lib libraries have")
        << " an empty loop table: nothing to measure\n";
  if (T.Loops)
    NothingInstrumented = whyNoLoopInstrumented(*T.Loops, T.Binary);
  if (!NothingInstrumented.empty())
    Log << "decan: warning: " << NothingInstrumented << "\n";
  return Error::success();
}

void RunSession::prepareLatePacks() {
  Late.emplace(Tmp.path() + "/late", O.lateWait(), Rotated, Log);
  if (!Stage.LateBase)
    return;
  Late->add(T.Input, T.Input.empty() ? "" : T.Binary);
  for (const LibraryCopies::Lib &L : Libs.Each)
    Late->add(L.Real, L.Copy);
}

void RunSession::prepareDlopenCopies() {
  // --lib auto: a library the program opens with dlopen is copied while
  // it waits, as its libraries were before it ran (a base copy when large,
  // as lateByDefault decides for those).
  if (!AutoLibs)
    return;
  Dlopen.emplace(
      [this](StringRef Real) -> Expected<std::string> {
        rewriter::RewriteOptions RW = Stage;
        RW.Profile = false;
        RW.LateBase =
            !O.Nests &&
            (Stage.LateBase || O.lateMode() == RunOptions::LateMode::Always ||
             (O.lateMode() == RunOptions::LateMode::Auto && O.Loops == "all" &&
              !O.FindFirst && !O.HotPercent &&
              lateByDefault("", /*ProgramPlain=*/true, {Real.str()})));
        std::string Dir =
            (Tmp.path() + "/dlopen" + Twine(++NumDlopenCopies)).str();
        if (std::error_code EC = sys::fs::create_directories(Dir))
          return createStringError("cannot create '%s': %s", Dir.c_str(),
                                   EC.message().c_str());
        auto Copy = rewriter::instrumentCached(Real, Dir, RW);
        if (Copy && RW.LateBase && *Copy != Real)
          Late->addDuringRun(Real, *Copy);
        return Copy;
      },
      Log);
}

Expected<int> RunSession::spawn(StringRef Loops, ArrayRef<Variant> Variants,
                                StringRef Dir, StringRef What, bool Quiet) {
  RunEnvironment Env;
  Env.Loops = Loops.str();
  Env.Variants = Variants.vec();
  Env.OutDir = Dir.str();
  Env.Preload = T.Preload || Libs.Preload;
  Env.LoaderDir = Libs.LoaderDir;
  Env.MapFile = Libs.MapFile;
  // The late directory also carries --lib auto's dlopen requests.
  bool Serve = !Late->empty() || Dlopen;
  if (Serve) {
    if (Error E = Late->stage())
      return std::move(E);
    Env.Preload |= bool(Dlopen);
    Env.LateDir = Late->dir();
    Env.AskDlopen = bool(Dlopen);
  }
  if (Dlopen)
    Dlopen->startRun();
  std::vector<std::string> Argv = O.Command;
  Argv[0] = TypedArgv0;
  Progress P(O.Progress, Out.Runs, std::max(Planned, Out.Runs), What);
  auto Poll = [&] {
    if (Dlopen)
      Dlopen->poll(Late->dir(), Libs.LoaderDir);
    Late->poll();
  };
  return runProgram(Argv, buildEnvironment(O, Env), Quiet,
                    Serve ? function_ref<void()>(Poll) : function_ref<void()>(),
                    O.Command[0]);
}

Expected<unsigned> RunSession::runOnce(StringRef Loops,
                                       ArrayRef<Variant> Variants,
                                       RawMerger &Into, StringRef What,
                                       bool Quiet) {
  ++Out.Runs;
  std::string Dir = (Tmp.path() + "/run" + Twine(Out.Runs)).str();
  if (std::error_code EC = sys::fs::create_directory(Dir))
    return createStringError("cannot create '%s': %s", Dir.c_str(),
                             EC.message().c_str());
  Expected<int> Status = spawn(Loops, Variants, Dir, What, Quiet);
  if (!Late->empty())
    Late->finish();
  if (!Status)
    return Status.takeError();
  unsigned Before = Into.size();
  Into.setRun(Out.Runs);
  unsigned N = collectRawReports(Dir, Into, Log, O.KeepRawDir, Out.Runs);
  if (Out.Runs == 1 || !Out.WaitStatus)
    Out.WaitStatus = *Status;
  if (Error E = judgeRun(*Status, Into, Before, N, Dir))
    return std::move(E);
  return N;
}

Error RunSession::judgeRun(int Status, RawMerger &Into, unsigned Before,
                           unsigned N, StringRef Dir) {
  std::string Run =
      Out.Runs > 1 ? formatv(" (run {0})", Out.Runs).str() : std::string();
  std::string Problem;
  if (WIFSIGNALED(Status)) {
    int Sig = WTERMSIG(Status);
    Problem = Sig == SIGINT || Sig == SIGTERM || Sig == SIGHUP
                  ? formatv("{0} was interrupted ({1}){2}; the data measured "
                            "until then are kept",
                            ProgName, signalName(Sig), Run)
                        .str()
                  : formatv("{0} was killed by {1}{2}", ProgName,
                            signalName(Sig), Run)
                        .str();
  } else if (WIFEXITED(Status) && WEXITSTATUS(Status)) {
    Problem = formatv("{0} exited with status {1}{2}", ProgName,
                      WEXITSTATUS(Status), Run)
                  .str();
  }
  Report Now = Into.finish();
  ArrayRef<ProcessInfo> Procs =
      ArrayRef<ProcessInfo>(Now.Processes).drop_front(Before);
  describeProcesses(Procs, Now.Loops, Dir, Log);
  bool Named = false;
  for (const ProcessInfo &P : Procs) {
    if (P.Status != "crashed")
      continue;
    Crashed = Named = true;
    Out.Problems.push_back(
        formatv("{0} crashed ({1}) {2}{3}{4}; the data measured before the "
                "crash are kept",
                ProgName, P.CrashSignal.empty() ? "?" : P.CrashSignal,
                whereItWas(P),
                P.Rank ? formatv(" (rank {0})", *P.Rank).str() : "", Run)
            .str());
  }
  // Interrupted (a timeout's SIGTERM, ^C): where the program was, so a
  // run stopped in a variant names it.
  if (!Problem.empty() && WIFSIGNALED(Status))
    for (const ProcessInfo &P : Procs)
      if (P.Status == "interrupted" && !P.CrashLoop.empty()) {
        Problem += " (it was " + whereItWas(P) + ")";
        break;
      }
  if (!Problem.empty()) {
    if (WIFSIGNALED(Status))
      Crashed = true;
    // The crash line already says what the signal did.
    if (!Named)
      Out.Problems.push_back(Problem);
  }
  if (!N && !Before && WIFSIGNALED(Status))
    return make_error<ProgramKilled>(
        WTERMSIG(Status),
        formatv("{0} was killed by {1}{2} before it wrote a decan report",
                ProgName, signalName(WTERMSIG(Status)), Run)
            .str());
  if (!N && !Before)
    return createStringError(
        "%s wrote no decan report%s: was it built with $(decan flags), "
        "and does it reach exit?",
        ProgName.c_str(),
        Problem.empty() ? "" : (" (" + Problem + ")").c_str());
  return Error::success();
}

Expected<std::vector<std::string>> RunSession::chooseLoops(const Report &P) {
  std::vector<const LoopReport *> Order;
  for (const LoopReport &L : P.Loops)
    Order.push_back(&L);
  llvm::stable_sort(Order, [](const LoopReport *A, const LoopReport *B) {
    return A->Share > B->Share;
  });
  std::vector<std::string> Keep;
  if (!O.HotPercent) {
    for (const LoopReport *L : Order)
      if (L->RunCalls || L->CallsSeen ||
          (L->Variants[Variant::REF] && L->Variants[Variant::REF]->Calls))
        Keep.push_back(L->Id);
    return Keep;
  }
  double Covered = 0;
  for (const LoopReport *L : Order) {
    if (Covered * 100 >= *O.HotPercent || L->Share <= 0)
      break;
    Keep.push_back(L->Id);
    Covered += L->Share;
  }
  if (Keep.empty())
    return createStringError("--hot: no loop was measured in the profile "
                             "run");
  RunLoops = join(Keep, ",");
  Log << formatv("decan: --hot {0}: {1} of {2} loops cover {3:F1}% of "
                 "measured loop time: {4}\n",
                 formatv("{0}", format("%g", *O.HotPercent)).str(), Keep.size(),
                 P.Loops.size(), Covered * 100, RunLoops);
  return Keep;
}

Error RunSession::profile() {
  // --hot, or a profiling copy: a REF-only run gives the profile; keep the
  // loops covering the requested part of measured loop time (--hot), or
  // every loop that ran.
  if (!O.HotPercent && !Profiling)
    return Error::success();
  Planned = 2;
  RawMerger Profile;
  // The user asked for two runs with --hot; otherwise this one is
  // decan's: its standard output is dropped, like --lib auto's.
  auto N =
      runOnce(RunLoops, ArrayRef<Variant>{Variant::REF}, Profile,
              Profiling ? "finding the loops that run (REF)" : "profile (REF)",
              /*Quiet=*/!O.HotPercent);
  if (!N)
    return N.takeError();
  auto Keep = chooseLoops(Profile.finish());
  if (!Keep)
    return Keep.takeError();
  if (!Profiling)
    return Error::success();
  rewriter::RewriteOptions Final;
  Final.VariantMask = Rotated;
  Final.Regions = O.Regions;
  Final.Nests = O.Nests;
  Final.OnlyLoops = *Keep;
  Final.OnlyListed = true;
  Final.ListUnselected = false;
  // The loops left out are not in the final copies' tables: count them
  // from the profiling copies' (explainLibraries).
  std::vector<unsigned> Before;
  for (const LibraryCopies::Lib &L : Libs.Each)
    Before.push_back(L.Measurable);
  if (Error E = prepareInputs(Final, Tmp.path() + "/stage2"))
    return E;
  for (size_t K = 0; K < Libs.Each.size() && K < Before.size(); ++K)
    if (Before[K] > Libs.Each[K].Measurable)
      Libs.Each[K].NotSelected += Before[K] - Libs.Each[K].Measurable;
  if (!O.HotPercent)
    Log << formatv("decan: {0} loop(s) ran in the first run: variants "
                   "built for those (--find-first)\n",
                   Keep->size());
  return Error::success();
}

Error RunSession::measure() {
  // Replace mode runs only the first requested variant of a loop and
  // instance mode measures one call: both take one run per variant (REF
  // first), so that every variant is measured on the same calls.
  if (O.Mode == "rotate")
    return runOnce(RunLoops, O.Variants, Merger, "measuring").takeError();
  Planned = Out.Runs + O.Variants.size();
  for (Variant V : O.Variants) {
    auto N = runOnce(RunLoops, ArrayRef<Variant>{V}, Merger,
                     "variant " + std::string(variantName(V)));
    if (!N)
      return N.takeError();
  }
  return Error::success();
}

Error RunSession::measureAgain() {
  // Only when asked (--max-runs): run again while a loop called more than
  // once has fewer usable pairs than a verdict needs for a variant it runs.
  constexpr uint64_t MinPairs = 5;
  while (O.Mode == "rotate" && !Crashed && Out.Runs < O.MaxRuns) {
    Report Now = Merger.finish();
    SmallVector<StringRef, 8> Ids;
    StringRef(RunLoops).split(Ids, ',', -1, false);
    std::string Need;
    for (const LoopReport &L : Now.Loops) {
      if ((O.Loops != "all" || O.HotPercent) &&
          !is_contained(Ids, StringRef(L.Id)))
        continue;
      if (L.RunCalls < 2)
        continue; // an init loop called once: more runs change nothing
      bool Short = any_of(O.Variants, [&](Variant V) {
        return L.Variants[V] && L.Variants[V]->Pairs.size() < MinPairs;
      });
      if (Short)
        Need += (Need.empty() ? "" : ",") + L.name();
    }
    if (Need.empty())
      break;
    Planned = O.MaxRuns;
    Log << formatv("decan: loop(s) {0} have fewer than {1} paired samples "
                   "per variant: running {2} again (run {3} of at most {4}, "
                   "--max-runs)\n",
                   Need, MinPairs, ProgName, Out.Runs + 1, O.MaxRuns);
    auto N = runOnce(Need, O.Variants, Merger, "more samples");
    if (!N)
      return N.takeError();
  }
  return Error::success();
}

void RunSession::summariseLate(const Report &R) {
  unsigned Installed = 0, Waiting = 0;
  double Latest = 0;
  for (const LoopReport &L : R.Loops) {
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

RunOutcome RunSession::collect() {
  Out.Merged = Merger.finish();
  Report &R = Out.Merged;
  // The table says "no loop was measured": and why, in the report too.
  if (!NothingInstrumented.empty())
    R.Warnings.push_back(NothingInstrumented);
  if (std::string Note = noLocationNote(R); !Note.empty())
    R.Warnings.push_back(Note);
  if (Stage.LateBase)
    summariseLate(R);
  // (--late says itself which loops ran without variants.)
  if (O.Loops == "all" && !O.HotPercent && !Stage.LateBase)
    explainLibraries(R, Libs, ProgName, Log, /*Hint=*/!AutoLibs);
  if (Dlopen)
    listUnmeasured(R, Libs, *Dlopen, Log);
  explainNotBuilt(R, O, Log);
  if (!O.Events.empty())
    R.Config["events"] = json::Array(O.Events);
  R.Config["runs"] = static_cast<int64_t>(Out.Runs);
  // Names from the whole loop tables: an overload keeps its suffix when
  // the run measured it alone.
  if (T.Loops)
    nameLoops(R.Loops, *T.Loops);
  // A prebuilt program's copy: the HTML report's listings are read from it
  // (Listings.h).
  if (!T.Input.empty()) {
    SmallString<256> Copy(T.Binary);
    if (!sys::fs::make_absolute(Copy))
      R.Config["rewritten_binary"] = std::string(Copy);
  }
  // How the prebuilt inputs were rewritten: every loop first, or late
  // variants (docs/rewriter.md).
  if (!Late->empty())
    R.Config["late_variants"] = O.lateWait() ? "waited" : "no wait";
  if (!R.Config.getInteger("reps"))
    R.Config["reps"] = static_cast<int64_t>(O.Reps);
  return std::move(Out);
}

} // namespace decan::tool
