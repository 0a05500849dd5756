//===- decan/Tool/AnalysisList.h - The analyses, one unit each ------------===//
//
// Part of decan. analyse() runs a list of analyses, as llvm-mca runs its
// views: each is a unit with a name and one entry point, in a file of its
// own under tools/lib/analyses/, and each writes its part of the report
// (a field, a diagnosis line, a warning). The list's order is the order of
// the lines a loop's diagnosis and warnings print in.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_ANALYSISLIST_H
#define DECAN_TOOL_ANALYSISLIST_H

#include "decan/Tool/Analysis.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace decan::tool {

/// What the analyses of one loop share: the saturations its claims read
/// (against NO_CALL for the variants that deleted the loop's calls), their
/// bootstrap replicates (empty: unpaired) and intervals, and whether its
/// calls are too short to diagnose.
struct LoopState {
  VariantArray<std::optional<double>> Sat;
  VariantArray<std::vector<double>> Boot;
  VariantArray<std::optional<Interval>> SatI;
  /// Mean cycles per call (whole run, else REF's samples; 0 unknown).
  double MeanCall = 0;
  /// Below the precision floor: no verdict is drawn from the samples.
  bool TooShort = false;
  /// How far below its point each saturation may lie: a short call's bias
  /// (Thresholds::ShortCallProbes), which its interval and claims include.
  double ShortCall = 0;
  /// Mostly blocked (analyses/Blocked.cpp): no claim is drawn from it.
  bool Blocked = false;
};

/// What one run of the list works on.
struct AnalysisContext {
  Report &R;
  Thresholds T;
  /// T with the report's mode applied (instance mode: one call per
  /// variant is enough): what the counts of calls and pairs are held to.
  Thresholds TC;
  /// One per R.Loops, same order.
  std::vector<LoopState> Loops;
};

/// One analysis: its name and its entry point.
struct AnalysisUnit {
  llvm::StringRef Name;
  void (*Run)(AnalysisContext &C);
};

/// The analyses analyse() runs, in order.
llvm::ArrayRef<AnalysisUnit> analysisList();

/// Clears what the analyses write, then runs \p Units on \p R in order.
void runAnalyses(Report &R, const Thresholds &T,
                 llvm::ArrayRef<AnalysisUnit> Units);

} // namespace decan::tool

#endif // DECAN_TOOL_ANALYSISLIST_H
