//===- decan/Tool/HotLoops.h - The loops that matter in a report ----------===//
//
// Part of decan. `decan flags --hot REPORT.json[:PERCENT]`: the loops that
// cover PERCENT of the measured loops' time in an earlier run, as
// `-decan-loops`
// entries the plugin matches in the next build (docs/pgo.md).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_HOTLOOPS_H
#define DECAN_TOOL_HOTLOOPS_H

#include "decan/Tool/Report.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace decan::tool {

/// REPORT.json[:PERCENT], PERCENT in (0, 100], 90 by default.
struct HotSpec {
  std::string Report;
  double Percent = 90;
};

/// Parses --hot's value; a trailing ":NUMBER" is the percentage unless the
/// whole value names an existing file.
llvm::Expected<HotSpec> parseHotSpec(llvm::StringRef Value);

struct HotSelection {
  /// `-decan-loops` entries: the loop's FILE:LINE:COL where its source
  /// identity is known (stable across builds), FILE:LINE, else its id.
  std::vector<std::string> Entries;
  std::vector<std::string> Loops; ///< their ids, hottest first
  double Covered = 0;             ///< share of the measured loops' time
  double ProgramCovered = 0;      ///< share of the program's time (0 unknown)
};

/// The hottest loops of \p R until they cover \p Percent of the measured
/// loops' time (the time outside innermost loops is no loop's to cover).
HotSelection selectHotLoops(const Report &R, double Percent);

} // namespace decan::tool

#endif // DECAN_TOOL_HOTLOOPS_H
