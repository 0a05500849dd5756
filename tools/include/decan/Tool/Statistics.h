//===- decan/Tool/Statistics.h - Paired, weighted, bootstrapped samples ---===//
//
// Part of decan. How a variant's samples become a saturation with an
// interval (docs/tool.md, "Statistics"):
//
//  * pairing: each sample is compared with REF on equal work, from the REF
//    calls just before and after it on the same thread (Schedule.h slots):
//    the neighbour with the sample's trip count, or a linear interpolation
//    between neighbours that bracket it. A variant whose trip count differs
//    from the original run on the same input is no evidence and is
//    excluded, as are samples whose call or neighbours were context
//    switched;
//  * weighting: a sample stands for the calls around it (half the distance
//    to the previous and next sample of its thread), so the estimate covers
//    the whole run whatever the sampling density;
//  * Sat = sum(w * variant) / sum(w * REF): the variant's time over REF's
//    time on the same calls;
//  * a percentile bootstrap over pairs (deterministic seed) gives the 95%
//    interval, and replicates that the verdicts are re-derived from.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_STATISTICS_H
#define DECAN_TOOL_STATISTICS_H

#include <cstdint>
#include <string>
#include <vector>

namespace decan::tool {

/// Bits of a raw record's flags (runtime/src/Records.h).
enum SampleFlags : uint64_t {
  kSampleSwitched = 1,
  kSampleCounterFailed = 2,
  kSamplePreSwitched = 4,
  kSamplePostSwitched = 8,
  kSampleNoPre = 16,
  kSampleNoPost = 32,
  kSampleNoRerun = 64
};

/// One sampled call as recorded (`decan-raw-2` fields).
struct Sample {
  double Cycles = 0, Trips = 0;
  uint64_t Flags = 0, Call = 0;
  double PreCycles = 0, PreTrips = 0, PostCycles = 0, PostTrips = 0;
  double RerunTrips = 0;
};

/// A sample and REF's cycles on the same work.
struct Pair {
  double Var = 0, Ref = 0;
  double Work = 0;   ///< trip count of the input (0: unknown)
  double Weight = 1; ///< calls of the run this sample stands for
  uint64_t Call = 0; ///< call index on its thread
  double RunPos = 0; ///< Call / calls of the thread, in [0, 1]
};

/// What pairing made of a sample.
enum class PairKind {
  Exact,        ///< a REF neighbour of the same trip count
  Interpolated, ///< between REF neighbours that bracket the trip count
  Unchecked,    ///< trip counts unknown: REF neighbours' mean
  TripsDiffer,  ///< the variant's trip count differs on the same input
  NoEqualWork,  ///< no REF neighbour of comparable work
  Switched      ///< a context switch in the sample or its neighbours
};

/// "exact", "interpolated", ...
const char *pairKindName(PairKind K);

/// True for the kinds that enter the statistics.
inline bool pairUsable(PairKind K) {
  return K == PairKind::Exact || K == PairKind::Interpolated ||
         K == PairKind::Unchecked;
}

/// Pairs \p S with REF's cycles on its input; \p IsRef: a REF sample (no
/// original run follows it).
PairKind pairSample(const Sample &S, bool IsRef, Pair &Out);

/// Sets the weight of samples at call indices \p Calls (one thread, all
/// variants) to half the distance to their neighbours, the run's ends
/// being call 0 and \p CallsSeen. Returns weights in the order given.
std::vector<double> voronoiWeights(const std::vector<uint64_t> &Calls,
                                   uint64_t CallsSeen);

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

/// An estimate with its interval.
struct Interval {
  double Value = 0, Lo = 0, Hi = 0;
  unsigned N = 0; ///< pairs behind it
};

/// The (1-Level)/2 and (1+Level)/2 percentiles of \p Replicates around
/// \p Value.
Interval percentileInterval(double Value, std::vector<double> Replicates,
                            unsigned N, double Level = 0.95);

/// Stable 64-bit hash of a string (bootstrap seeds per loop).
uint64_t stableHash(const std::string &S);

} // namespace decan::tool

#endif // DECAN_TOOL_STATISTICS_H
