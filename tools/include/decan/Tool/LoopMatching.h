//===- decan/Tool/LoopMatching.h - Loops of two reports paired --*- C++ -*-===//
//
// Part of decan. Which loop of report B is which loop of report A, for
// `decan compare` (Compare.h). Exact passes first: the same source identity
// ("ORIGIN|FILE:LINE:COL|NEST|INLINED", abi.h), the same loop as written
// (origin and FILE:LINE:COL) in another nest or inlining context, the same
// id where neither side has a source identity. Then, for the loops an edit
// moved (a reciprocal hoisted above a loop shifts it and every loop after it
// by a line or two), a fuzzy pass over the source loops left: same origin
// function and file required, scored on the loop's nest position (its index
// among its function's source loops, its depth), its own statements (the
// arrays it accesses, its source iterations per call) and its line and
// column as hints; pairs above a threshold, best first, each loop once, and
// never two loops whose accesses have nothing in common.
//
// The machine loops of one source loop (a vector body and its remainder,
// inlined copies) pair widest first (largest iteration step: body with
// body), then by time share.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LOOPMATCHING_H
#define DECAN_TOOL_LOOPMATCHING_H

#include "decan/Tool/Report.h"
#include "decan/Tool/Verdicts.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace decan::tool {

/// The parts of a source identity "ORIGIN|FILE:LINE:COL|NEST|INLINED".
struct SourceParts {
  llvm::StringRef Origin, Pos, Nest, Inlined;
  explicit SourceParts(llvm::StringRef Key);
  /// Origin and position: the loop as written, wherever it was inlined.
  std::string written() const { return (Origin + "|" + Pos).str(); }
};

/// A fuzzy pair needs at least this score (0 to 1; LoopMatching.cpp).
inline constexpr double kFuzzyMatchThreshold = 0.6;

/// One loop of A paired with one of B.
struct LoopMatch {
  const LoopReport *A = nullptr, *B = nullptr;
  MatchKind By = MatchKind::None;
  /// Fuzzy pairs: the score and what agreed and moved ("matched by
  /// function and nest position, the same accesses (A, B); line 16 -> 18").
  double Score = 0;
  std::string Why;
};

/// Pairs the loops of two reports (each loop once at most); the loops in
/// no pair are in one report only.
std::vector<LoopMatch> matchLoops(llvm::ArrayRef<const LoopReport *> As,
                                  llvm::ArrayRef<const LoopReport *> Bs,
                                  double Threshold = kFuzzyMatchThreshold);

} // namespace decan::tool

#endif // DECAN_TOOL_LOOPMATCHING_H
