//===- decan/Tool/Tune.h - Optimization candidates, measured in one run ---===//
//
// Part of decan. `decan tune`: a program built with `decan flags --tune`
// runs each hot loop as several candidates (the same code with other loop
// hints: vectorisation width, interleave count, unroll count, scalar;
// llvm-plugins/IRTune.h), one per call of the loop in turn, so every
// candidate of every hot loop is timed in one run, under the same inputs and
// phases. Per source loop: each candidate's cycles per source iteration, its
// speedup over the compiler's default paired by quarter of the run, and the
// choice, which `decan flags --apply tune.json` puts on the loop in the next
// build (docs/pgo.md).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_TUNE_H
#define DECAN_TOOL_TUNE_H

#include "decan/Tool/Report.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

struct TuneCandidate {
  std::string Name;              ///< "default", "scalar", "vf4", ...
  double CyclesPerIteration = 0; ///< per source iteration, whole run
  /// Cycles per source iteration in each undisturbed quarter of the run (by
  /// call; from its sampled calls, the disturbed ones left out, where every
  /// candidate has enough, else from the quarter's sums; a quarter 1.5x
  /// slower than the candidate's best is disturbed), and their range: the
  /// interval.
  std::vector<double> Quarters;
  double Lo = 0, Hi = 0;
  unsigned Step = 0;  ///< largest iteration step of its loops (VF x IC x UF)
  uint64_t Calls = 0; ///< calls of its main loop
  /// The default's time over this candidate's: whole run, and the range of
  /// the per-quarter ratios (each quarter's candidate calls against the
  /// default's calls of the same quarter).
  double Speedup = 1, SpeedupLo = 1, SpeedupHi = 1;
  unsigned Pairs = 0; ///< undisturbed quarters paired with the default's
};

struct TunedLoop {
  std::string Position; ///< FILE:LINE:COL
  std::string Function; ///< the function tuned
  std::vector<TuneCandidate> Candidates;
  std::string Choice = "default";
  /// The choice's speedup over the default and its interval, widened by
  /// LayoutSpread.
  double Predicted = 1, PredictedLo = 1, PredictedHi = 1;
  /// How far the default's twin (the same code at another address, its loop
  /// on a 64-byte line as the default's) strayed from the default in its
  /// quarters: what the run alone moves.
  double LayoutSpread = 0;
  std::string Why; ///< why the choice (one line)
  /// In the tune run: the loop's cycles over all its candidates, and its
  /// source iterations (what the default would have run).
  double LoopCycles = 0, SourceIterations = 0;
};

/// The program's time with every choice applied against the default build,
/// from the tune run: the program's own cycles, each tuned loop's cycles
/// replaced by its iterations at the default's and at the choice's cycles
/// per source iteration (the choice's quarter range for the interval).
struct ProgramPrediction {
  bool Known = false;
  double Speedup = 1, Lo = 1, Hi = 1;
  double TunedShare = 0; ///< the tuned loops' share at the default's speed
};
/// A loop kept at the default counts in the interval at [1 - v, 1 + v], v
/// its runToRunSpread(): identical builds differ by that much.
ProgramPrediction predictProgram(const Report &R,
                                 const std::vector<TunedLoop> &Loops);

/// How far \p T's default code varies between identical runs, as far as
/// one run shows it: the larger of its twin's spread (LayoutSpread) and its
/// quarters' largest distance from their median (\p Default's), at most
/// 50%.
double runToRunSpread(const TunedLoop &T, const TuneCandidate &Default);

/// The tuned loops of an analysed report of a `--tune` build. A candidate
/// is chosen when it is the fastest and beats the default by more than
/// \p MinGain in every quarter of the run.
std::vector<TunedLoop> tuneResults(const Report &R, double MinGain = 0.02);

/// `decan-tune-1`: {"tool", "format", "loops": [{"source", "function",
/// "candidates": [{"name", "cycles_per_iteration", "interval",
/// "iteration_step", "calls", "speedup", "speedup_interval"}], "choice",
/// "predicted_speedup", "predicted_interval", "why"}]}.
llvm::json::Value tuneJSON(const std::vector<TunedLoop> &Loops,
                           const ProgramPrediction &P = {});

/// Whether \p Path is a `decan-tune-1` file (false when unreadable).
bool isTuneFile(llvm::StringRef Path);

/// Reads a `decan-tune-1` file back (choice and prediction per loop).
llvm::Expected<std::vector<TunedLoop>> readTuneFile(llvm::StringRef Path);

/// Whether \p R has loops of tuning candidates (a `--tune` build), run or
/// not.
bool hasTuneCandidates(const Report &R);

/// The table of `decan tune`; \p Built: the program has candidates (what
/// to say when none was measured).
void printTune(llvm::raw_ostream &OS, const std::vector<TunedLoop> &Loops,
               bool Built = false);

/// The program-level prediction `decan tune` prints under its table.
void printProgramPrediction(llvm::raw_ostream &OS, const ProgramPrediction &P);

} // namespace decan::tool

#endif // DECAN_TOOL_TUNE_H
