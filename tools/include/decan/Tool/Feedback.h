//===- decan/Tool/Feedback.h - A report fed into the next build -----------===//
//
// Part of decan. What `decan flags` takes from an earlier report for the
// next build (docs/pgo.md): with --hot REPORT.json[:PERCENT], the loops that
// cover PERCENT of the measured loops' time, as `-decan-loops` entries; with
// --apply REPORT.json, each source loop's measured trip count per call, as
// `-decan-trip-counts` entries the plugin turns into
// llvm.loop.estimated_trip_count before the vectoriser and unroller run.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_FEEDBACK_H
#define DECAN_TOOL_FEEDBACK_H

#include "decan/Tool/Report.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// REPORT.json[:PERCENT], PERCENT in (0, 100], 90 by default.
struct HotSpec {
  std::string Report;
  double Percent = 90;
};

/// PERCENT as both `decan run --hot` and `decan flags --hot` read it: "90"
/// or "90%"; nullopt when it is no number (the range is the caller's).
std::optional<double> readHotPercent(llvm::StringRef Value);

/// Parses --hot's value; a trailing ":NUMBER" is the percentage unless the
/// whole value names an existing file.
llvm::Expected<HotSpec> parseHotSpec(llvm::StringRef Value);

struct HotSelection {
  /// `-decan-loops` entries by source position: the loop's FILE:LINE:COL
  /// where its source identity is known, FILE:LINE, else its id; every
  /// inlined copy and template instance of a hot source loop matches
  /// (what `--tune` selects: its candidates are clones of the function).
  std::vector<std::string> Entries;
  /// `-decan-loops` entries by instance (`--hot`): ID@FILE:LINE:COL, the
  /// loop the report measured (its function, mangled, and its index there),
  /// which the plugin checks against the position (a function whose loop
  /// moved falls back to the position within that function); the bare id
  /// where the report has no position.
  std::vector<std::string> Instances;
  std::vector<std::string> Loops; ///< their ids, hottest first
  unsigned ByIdOnly = 0;          ///< instances without a position to check
  double Covered = 0;             ///< share of the measured loops' time
  double ProgramCovered = 0;      ///< share of the program's time (0 unknown)
};

/// \p L's `-decan-loops` entry: its FILE:LINE:COL where its source
/// identity is known, FILE:LINE, else its id.
std::string hotEntry(const LoopReport &L);

/// The hottest loops of \p R until they cover \p Percent of the measured
/// loops' time (the time outside innermost loops is no loop's to cover).
/// Loops called fewer than \p MinCalls times are left out (tuning
/// candidates need calls to share).
HotSelection selectHotLoops(const Report &R, double Percent,
                            uint64_t MinCalls = 0);

/// One source loop's measured trip count.
struct TripCount {
  std::string Position; ///< FILE:LINE:COL (the loop as written)
  uint64_t Trips = 0;   ///< mean source iterations per call, rounded
  uint64_t Calls = 0;   ///< calls measured
  /// Per call, the fewest and most iterations the sampled calls ran (of
  /// its most-called machine loop, in source iterations; 0: unknown).
  uint64_t MinTrips = 0, MaxTrips = 0;
  /// The calls' trip counts spread too far for one count to stand for them
  /// (the most at least 4x the fewest): a build specialised to the mean
  /// would slow the calls far from it.
  bool Wide = false;
};

/// The mean source iterations per call of each source loop of \p R with a
/// source identity and whole-run trip counts: per inlining context, the
/// iterations of its machine loops (vector body, remainder) times their
/// iteration steps over the calls of the most-called one; over the
/// contexts, total iterations over total calls.
std::vector<TripCount> measuredTripCounts(const Report &R);

} // namespace decan::tool

#endif // DECAN_TOOL_FEEDBACK_H
