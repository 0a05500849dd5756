//===- decan/Tool/Statistics.h - Saturations from pairs ---------*- C++ -*-===//
//
// Part of decan. How a variant's paired samples (Pairing.h) become a
// saturation with an interval (docs/tool.md, "Statistics"):
//
//  * Sat = sum(w * variant) / sum(w * REF): the variant's time over REF's
//    time on the same calls, each pair weighted by the calls it stands for;
//  * pairs disturbed on one side only (an interrupt, a page fault) are
//    trimmed first;
//  * a percentile bootstrap over pairs (deterministic seed) gives the 95%
//    interval, and replicates that the verdicts are re-derived from;
//  * a block bootstrap over time blocks of the run adds what drifts slowly
//    inside it (the other hardware thread's load, frequency, caches shared
//    with other processes): the wider of the two is the interval.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_STATISTICS_H
#define DECAN_TOOL_STATISTICS_H

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace decan::tool {

/// A sample and REF's cycles on the same work.
struct Pair {
  double Var = 0, Ref = 0;
  double Work = 0;   ///< trip count of the input (0: unknown)
  double Weight = 1; ///< calls of the run this sample stands for
  uint64_t Call = 0; ///< call index on its thread
  double RunPos = 0; ///< Call / calls of the thread, in [0, 1]
};

/// A pair in JSON: [var, ref, work, weight, call, run_pos] (a report holds
/// thousands: an array, not an object, per pair).
llvm::json::Value toJSON(const Pair &P);
bool fromJSON(const llvm::json::Value &E, Pair &P, llvm::json::Path Path);

/// The pairs whose ratio Var/Ref lies within \p K median absolute
/// deviations (of the log ratio, at least 2%) of the median: a call hit by
/// an interrupt or a page fault on one side only is a disturbance, not a
/// saturation.
std::vector<Pair> trimOutliers(const std::vector<Pair> &Pairs, double K = 5);

/// sum(w * Var) / sum(w * Ref); 0 without pairs.
double ratioOfSums(const std::vector<Pair> &Pairs);

/// \p B bootstrap replicates of ratioOfSums (pairs resampled with
/// replacement); deterministic for a given \p Seed.
std::vector<double> bootstrapRatios(const std::vector<Pair> &Pairs, unsigned B,
                                    uint64_t Seed);

/// \p B replicates of ratioOfSums from a block bootstrap: the run cut in
/// \p Blocks equal spans of RunPos, whole blocks resampled with
/// replacement, each replicate's spread around the point scaled by
/// sqrt(K/(K-1)) for the K blocks with pairs (few blocks understate it).
/// Empty when fewer than 4 blocks hold pairs.
std::vector<double> blockBootstrapRatios(const std::vector<Pair> &Pairs,
                                         unsigned B, uint64_t Seed,
                                         unsigned Blocks);

/// The replicates a saturation's interval and verdicts come from: the
/// block bootstrap's (\p BlockSeed, up to 10 blocks of at least 4 pairs
/// each on average) when its 95% range is wider than the pair bootstrap's
/// (\p PairSeed), which drift inside the run makes it; else the pairs'.
std::vector<double> runReplicates(const std::vector<Pair> &Pairs, unsigned B,
                                  uint64_t PairSeed, uint64_t BlockSeed);

/// An estimate with its interval.
struct Interval {
  double Value = 0, Lo = 0, Hi = 0;
  unsigned N = 0; ///< pairs behind it
};

/// {"value", "lo", "hi", "pairs"}.
llvm::json::Value toJSON(const Interval &I);
bool fromJSON(const llvm::json::Value &E, Interval &I, llvm::json::Path P);

/// The (1-Level)/2 and (1+Level)/2 percentiles of \p Replicates around
/// \p Value.
Interval percentileInterval(double Value, std::vector<double> Replicates,
                            unsigned N, double Level = 0.95);

/// Stable 64-bit hash of a string (bootstrap seeds per loop).
uint64_t stableHash(const std::string &S);

} // namespace decan::tool

#endif // DECAN_TOOL_STATISTICS_H
