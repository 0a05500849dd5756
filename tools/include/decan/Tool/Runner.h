//===- decan/Tool/Runner.h - Run a program under the decan protocol -------===//
//
// Part of decan. `decan run`: sets the environment protocol of
// docs/design.md, runs the program (or its launcher: mpirun, srun, a script)
// in a fresh temporary output directory, once (again only when asked with
// --max-runs, for loops short of samples), and merges every raw report
// (processes, ranks, threads, runs) into one Report.
//
// A RunSession does it in phases, as RewriteInstance rewrites:
//
//   create              the options checked, the program found
//   prepareDirectory    the run's temporary directory
//   chooseLibraries     --lib auto: the libraries the program links
//   planRewrite         which loops of prebuilt inputs get which variants,
//                       late variants or not
//   prepareInputs       the program and --lib libraries made measurable
//   announce            what the run will do, said before it starts
//   prepareLatePacks    late variants' base copies
//   prepareDlopenCopies --lib auto: copies of what the program dlopens
//   profile             --hot, --find-first: a REF-only run, then the
//                       copies of the loops that ran
//   measure             the measured run (one per variant in replace and
//                       instance modes)
//   measureAgain        --max-runs: again while loops are short of samples
//   collect             the merged report, and what was not measured
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_RUNNER_H
#define DECAN_TOOL_RUNNER_H

#include "decan/Tool/DlopenCopies.h"
#include "decan/Tool/LatePacks.h"
#include "decan/Tool/LibraryCopies.h"
#include "decan/Tool/Process.h"
#include "decan/Tool/Report.h"
#include "decan/Tool/RunOptions.h"
#include "decan/Tool/RunTarget.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// What happened besides the measurements.
struct RunOutcome {
  Report Merged;                     ///< merged, not yet analysed
  unsigned Runs = 0;                 ///< program runs
  std::vector<std::string> Problems; ///< exit status / crash, one line each
  /// The program's wait status (its first run that failed, else its last):
  /// decan exits with it, like time(1).
  int WaitStatus = 0;
};

class RunSession {
public:
  /// Checks every option (validateRunOptions) and finds the program;
  /// nothing runs and nothing is written yet.
  static llvm::Expected<std::unique_ptr<RunSession>>
  create(RunOptions O, llvm::raw_ostream &Log);

  /// Runs the phases. Errors (bad input, no report written) are one line;
  /// a program that fails after writing reports is a Problem, not an
  /// error, so measured data are never lost.
  llvm::Expected<RunOutcome> run();

private:
  RunSession(RunOptions O, llvm::raw_ostream &Log)
      : O(std::move(O)), Log(Log) {}

  llvm::Error prepareDirectory();
  void chooseLibraries();
  void planRewrite();
  llvm::Error prepareInputs(const rewriter::RewriteOptions &RW,
                            llvm::StringRef Dir);
  llvm::Error announce();
  void prepareLatePacks();
  void prepareDlopenCopies();
  llvm::Error profile();
  llvm::Error measure();
  llvm::Error measureAgain();
  RunOutcome collect();

  /// One run of the program: \p Loops and \p Variants measured, its
  /// reports into \p Into; \p What for the progress line; \p Quiet drops
  /// its standard output. Returns how many reports it wrote.
  llvm::Expected<unsigned> runOnce(llvm::StringRef Loops,
                                   llvm::ArrayRef<Variant> Variants,
                                   RawMerger &Into, llvm::StringRef What,
                                   bool Quiet = false);
  /// Starts the program and waits for it (answering late-pack and dlopen
  /// requests meanwhile); its wait status.
  llvm::Expected<int> spawn(llvm::StringRef Loops,
                            llvm::ArrayRef<Variant> Variants,
                            llvm::StringRef Dir, llvm::StringRef What,
                            bool Quiet);
  /// What run Out.Runs's status and reports (processes from \p Before on
  /// in \p Into) say: Problems, crashes, and an error when it wrote no
  /// report at all (\p N reports this run).
  llvm::Error judgeRun(int Status, RawMerger &Into, unsigned Before, unsigned N,
                       llvm::StringRef Dir);
  /// The loops of \p P that --hot keeps, or (--find-first) every loop that
  /// ran; sets RunLoops for --hot.
  llvm::Expected<std::vector<std::string>> chooseLoops(const Report &P);
  /// Says what the late variants covered (docs/rewriter.md).
  void summariseLate(const Report &R);

  RunOptions O;
  llvm::raw_ostream &Log;
  /// The program sees the argv[0] the user typed, whatever file runs (a
  /// rewritten copy from the cache, the path PATH gave).
  std::string TypedArgv0;
  std::vector<std::string> Original; ///< the command, program resolved
  std::string ProgName;
  RunDirectory Tmp;
  bool AutoLibs = false;          ///< --lib auto
  unsigned Rotated = 0;           ///< mask of the variants rotated
  bool PlainOk = false;           ///< the program may run without a loop table
  rewriter::RewriteOptions Stage; ///< how prebuilt inputs are rewritten
  bool Profiling = false;         ///< --find-first on a rewritten input
  Target T;
  LibraryCopies Libs;
  /// Why no loop of the inputs' tables can be measured ("" when one can).
  std::string NothingInstrumented;
  std::optional<LatePacks> Late;
  std::optional<DlopenCopies> Dlopen;
  unsigned NumDlopenCopies = 0;
  std::string RunLoops; ///< DECAN_LOOPS of the measured runs
  RunOutcome Out;
  RawMerger Merger;
  bool Crashed = false;
  unsigned Planned = 1; ///< runs the progress line expects
};

/// RunSession::create, then run.
llvm::Expected<RunOutcome> runMeasurements(RunOptions Opts,
                                           llvm::raw_ostream &Log);

} // namespace decan::tool

#endif // DECAN_TOOL_RUNNER_H
