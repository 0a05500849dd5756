//===- decan/Tool/Compare.h - Compare two analysed reports ----------------===//
//
// Part of decan. `decan compare A.json B.json`: per loop, the speedup of B
// over A (REF median cycles per call), and whether the gain A's saturations
// predicted showed up in B.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_COMPARE_H
#define DECAN_TOOL_COMPARE_H

#include "decan/Tool/Analysis.h"
#include "decan/Tool/Report.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// One loop present in A (and maybe in B).
struct LoopComparison {
  std::string Id;
  double CyclesA = 0, CyclesB = 0; ///< REF median cycles per call
  std::optional<double> Speedup;   ///< CyclesA / CyclesB
  /// The largest speedup A's saturations promise, 1/Sat(V), over DL1 (data
  /// in L1), NO_DIV (no divisions) and max(Sat LS, Sat FP) (streams fully
  /// overlapped); nullopt when A measured none of them below 1.
  std::optional<double> Predicted;
  std::string PredictedBy; ///< "DL1", "NO_DIV" or "LS/FP overlap"
  /// (Speedup - 1) / (Predicted - 1).
  std::optional<double> Realized;
  /// "gain showed up", "beyond prediction", "partly", "no gain", "slower",
  /// "only in A".
  std::string Verdict;
  std::string Note; ///< e.g. trip counts differ between A and B
};

/// Compares every loop of \p A with the loop of the same id in \p B.
std::vector<LoopComparison> compareReports(const Report &A, const Report &B,
                                           const Thresholds &T = Thresholds());

/// The table of `decan compare`.
void printComparison(llvm::raw_ostream &OS,
                     const std::vector<LoopComparison> &C, const Report &B);

} // namespace decan::tool

#endif // DECAN_TOOL_COMPARE_H
