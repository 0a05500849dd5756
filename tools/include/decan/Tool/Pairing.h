//===- decan/Tool/Pairing.h - Variant samples paired with REF ---*- C++ -*-===//
//-*-===//
//
// Part of decan. What the tool makes of one thread's samples before any
// statistics (docs/tool.md, "Statistics"):
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
//    the whole run whatever the sampling density.
//
// pairThreadSamples is the entry point (RawMerger calls it per thread);
// pairSample and voronoiWeights are its two steps, public for their tests.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_PAIRING_H
#define DECAN_TOOL_PAIRING_H

#include "decan/Tool/Statistics.h"
#include "decan/abi.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace decan::tool {

/// One sampled call as recorded (`decan-raw-2` and later fields).
struct Sample {
  double Cycles = 0, Trips = 0;
  uint64_t Flags = 0, Call = 0;
  double PreCycles = 0, PreTrips = 0, PostCycles = 0, PostTrips = 0;
  double RerunTrips = 0;
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

/// How many PairKinds there are.
constexpr unsigned NumPairKinds = 6;

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

/// One sample of a thread and whether it is REF's.
struct ThreadSample {
  Sample S;
  bool IsRef = false;
};

/// What pairing made of one sample: its kind, and the pair (weight and
/// position in the run set) when the kind is usable.
struct PairedSample {
  PairKind Kind = PairKind::NoEqualWork;
  Pair P;
};

/// Pairs every sample of one thread (all variants: their weights come from
/// the whole thread's sampling positions) with REF on equal work;
/// \p CallsSeen: the thread's calls of the loop, measured or not. Returns
/// one result per sample, in the order given.
std::vector<PairedSample>
pairThreadSamples(llvm::ArrayRef<ThreadSample> Samples, uint64_t CallsSeen);

} // namespace decan::tool

#endif // DECAN_TOOL_PAIRING_H
