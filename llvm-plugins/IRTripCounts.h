//===- IRTripCounts.h - decan: measured trip counts into the next build ---===//
//
// Part of decan. `-mllvm -decan-trip-counts=FILE:LINE:COL=N,...` (what
// `decan flags --apply REPORT.json` prints): before the loop vectoriser and
// unroller run, each loop starting at one of those source positions gets
// llvm.loop.estimated_trip_count N and latch branch weights to match, so
// they plan for the trip count decan measured, as they would with a PGO
// profile (docs/pgo.md).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRTRIPCOUNTS_H
#define DECAN_LLVM_PLUGINS_IRTRIPCOUNTS_H

#include "llvm/IR/PassManager.h"

namespace decan {

/// Whether -decan-trip-counts names any loop.
bool tripCountsGiven();

/// Sets the estimated trip count of the loops -decan-trip-counts names.
class ApplyTripCountsPass : public llvm::PassInfoMixin<ApplyTripCountsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRTRIPCOUNTS_H
