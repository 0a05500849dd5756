//===- decan/Tool/Compare.h - Compare two analysed reports ----------------===//
//
// Part of decan. `decan compare A.json B.json`: two builds (plain, PGO,
// PGO+LTO, another flag) or two runs, loop by loop. Loops are matched by
// their source identity (function, file:line:column, nest, inlined-at chain;
// abi.h), not by their ids, which number loops by header position and shift
// when inlining, unrolling or layout change; loops an edit moved are matched
// fuzzily, and say so (LoopMatching.h). Per matched pair: time per call
// and per source iteration (a changed vector or unroll factor is the same
// work), program share, the bottleneck in A and in B, and whether the gain
// A's saturations predicted showed up in B. docs/pgo.md.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_COMPARE_H
#define DECAN_TOOL_COMPARE_H

#include "decan/Tool/Analysis.h"
#include "decan/Tool/Report.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

struct TunedLoop;

/// One source loop: in A and B, or in one of them only.
struct LoopComparison {
  std::string Id;  ///< A's id, or B's for a loop in B only
  std::string IdB; ///< B's id when matched
  /// How the pair was matched (None: one side only).
  MatchKind MatchedBy = MatchKind::None;
  /// A fuzzy match's evidence ("fuzzy, matched by function, nest position
  /// and ...; line 16 -> 18; score 0.93"); "" for exact ones.
  std::string MatchedHow;
  std::string Where;               ///< "file:line:col in origin" or the id
  double CyclesA = 0, CyclesB = 0; ///< REF median cycles per call
  /// REF median cycles per source iteration (per iteration / step); nullopt
  /// when the trip count or the iteration step is unknown.
  std::optional<double> PerSourceIterA, PerSourceIterB;
  /// A's time over B's: per source iteration when both sides know it, else
  /// per call; SpeedupBasis says which.
  std::optional<double> Speedup;
  SpeedupPer SpeedupBasis = SpeedupPer::None;
  std::optional<double> ShareA, ShareB; ///< of the program's time
  /// The loop's verdict class (its streams class when it has no verdict).
  VerdictClass BottleneckA = VerdictClass::None,
               BottleneckB = VerdictClass::None;
  /// The largest speedup A's saturations promise, 1/Sat(V), over DL1 (data
  /// in L1), NO_DIV (no divisions) and max(Sat LS, Sat FP) (streams fully
  /// overlapped); nullopt when A measured none of them below 1.
  std::optional<double> Predicted;
  std::string PredictedBy; ///< "DL1", "NO_DIV" or "LS/FP overlap"
  /// (Speedup - 1) / (Predicted - 1), only when the prediction is a gain
  /// beyond the noise (a prediction of 1.00x realizes nothing measurable).
  std::optional<double> Realized;
  /// Whether the gain A predicted showed up in B (Verdicts.h).
  CompareVerdict Verdict = CompareVerdict::NoGain;
  std::vector<std::string> Notes;
};

/// Matches the loops of \p A and \p B and compares each pair; A's loops in
/// its ranking order, then the loops of B only.
std::vector<LoopComparison> compareReports(const Report &A, const Report &B,
                                           const Thresholds &T = Thresholds());

/// `decan compare --tune tune.json`: A's prediction for each loop `decan
/// tune` chose a candidate for is the tune's (its speedup over the default,
/// with its quarter interval), and a note says whether B realized it within
/// that interval.
void applyTunePredictions(std::vector<LoopComparison> &C,
                          const std::vector<TunedLoop> &Tuned, const Report &A);

/// The table of `decan compare`.
void printComparison(llvm::raw_ostream &OS,
                     const std::vector<LoopComparison> &C);

/// The comparison as JSON (`decan compare --json`).
llvm::json::Value comparisonJSON(const std::vector<LoopComparison> &C);

/// One self-contained HTML page of the comparison (`decan compare --html`).
void writeComparisonHTML(llvm::raw_ostream &OS,
                         const std::vector<LoopComparison> &C,
                         llvm::StringRef NameA, llvm::StringRef NameB);

} // namespace decan::tool

#endif // DECAN_TOOL_COMPARE_H
