//===- Pairing.cpp - Variant samples paired with REF ----------------------===//
//-----------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Pairing.h"

#include <algorithm>
#include <numeric>

namespace decan::tool {

const char *pairKindName(PairKind K) {
  switch (K) {
  case PairKind::Exact:
    return "exact";
  case PairKind::Interpolated:
    return "interpolated";
  case PairKind::Unchecked:
    return "unchecked";
  case PairKind::TripsDiffer:
    return "trips-differ";
  case PairKind::NoEqualWork:
    return "no-equal-work";
  case PairKind::Switched:
    return "switched";
  }
  return "?";
}

namespace {
struct Neighbour {
  double Cycles, Trips;
};

/// The REF estimate from two neighbours of the same work: their mean, or the
/// smaller when they disagree widely (a disturbance only adds time).
double sameWork(double A, double B) {
  double Lo = std::min(A, B), Hi = std::max(A, B);
  return Hi > 1.5 * Lo ? Lo : (A + B) / 2;
}
} // namespace

PairKind pairSample(const Sample &S, bool IsRef, Pair &Out) {
  Out = Pair();
  Out.Var = S.Cycles;
  Out.Call = S.Call;
  if (S.Flags & DECAN_SAMPLE_SWITCHED)
    return PairKind::Switched;
  // A variant's trip count comes from its induction variable after the
  // loop; where the variant deleted that variable's update it is garbage
  // (orders of magnitude off), not a changed control flow: unknown then.
  bool VarTripsPlausible =
      S.Trips > 0 && S.Trips <= 16 * std::max(S.RerunTrips, 1.0);
  if (!IsRef && S.RerunTrips > 0 && VarTripsPlausible &&
      S.Trips != S.RerunTrips)
    return PairKind::TripsDiffer;
  double Work = S.RerunTrips > 0 ? S.RerunTrips : S.Trips;
  Out.Work = Work;
  std::vector<Neighbour> N;
  bool AnySwitched = false;
  if (!(S.Flags & DECAN_SAMPLE_NO_PRE) && S.PreCycles > 0) {
    if (S.Flags & DECAN_SAMPLE_PRE_SWITCHED)
      AnySwitched = true;
    else
      N.push_back({S.PreCycles, S.PreTrips});
  }
  if (!(S.Flags & DECAN_SAMPLE_NO_POST) && S.PostCycles > 0) {
    if (S.Flags & DECAN_SAMPLE_POST_SWITCHED)
      AnySwitched = true;
    else
      N.push_back({S.PostCycles, S.PostTrips});
  }
  if (N.empty())
    return AnySwitched ? PairKind::Switched : PairKind::NoEqualWork;
  if (Work <= 0) {
    Out.Ref = N.size() == 2 ? sameWork(N[0].Cycles, N[1].Cycles) : N[0].Cycles;
    return PairKind::Unchecked;
  }
  std::vector<double> Equal;
  for (const Neighbour &X : N)
    if (X.Trips == Work)
      Equal.push_back(X.Cycles);
  if (Equal.size() == 2) {
    Out.Ref = sameWork(Equal[0], Equal[1]);
    return PairKind::Exact;
  }
  if (Equal.size() == 1) {
    Out.Ref = Equal[0];
    return PairKind::Exact;
  }
  if (N.size() == 2 && N[0].Trips > 0 && N[1].Trips > 0 &&
      (N[0].Trips - Work) * (N[1].Trips - Work) < 0) {
    double F = (Work - N[0].Trips) / (N[1].Trips - N[0].Trips);
    Out.Ref = N[0].Cycles + F * (N[1].Cycles - N[0].Cycles);
    return PairKind::Interpolated;
  }
  return PairKind::NoEqualWork;
}

std::vector<double> voronoiWeights(const std::vector<uint64_t> &Calls,
                                   uint64_t CallsSeen) {
  std::vector<size_t> Order(Calls.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t B) { return Calls[A] < Calls[B]; });
  std::vector<double> W(Calls.size(), 1);
  uint64_t End = std::max<uint64_t>(CallsSeen, Calls.empty() ? 0 : 1);
  for (size_t K = 0; K < Order.size(); ++K) {
    double C = (double)Calls[Order[K]];
    double Prev = K ? (double)Calls[Order[K - 1]] : 0;
    double Next = K + 1 < Order.size() ? (double)Calls[Order[K + 1]]
                                       : std::max<double>((double)End, C);
    // Ends count whole (nothing samples the run before the first sample).
    double Left = K ? (C - Prev) / 2 : C - Prev;
    double Right = K + 1 < Order.size() ? (Next - C) / 2 : Next - C;
    W[Order[K]] = std::max(1.0, Left + Right);
  }
  return W;
}

std::vector<PairedSample>
pairThreadSamples(llvm::ArrayRef<ThreadSample> Samples, uint64_t CallsSeen) {
  std::vector<uint64_t> Calls;
  for (const ThreadSample &T : Samples)
    Calls.push_back(T.S.Call);
  std::vector<double> W = voronoiWeights(Calls, CallsSeen);
  std::vector<PairedSample> Out(Samples.size());
  for (size_t I = 0; I < Samples.size(); ++I) {
    PairedSample &PS = Out[I];
    PS.Kind = pairSample(Samples[I].S, Samples[I].IsRef, PS.P);
    if (!pairUsable(PS.Kind))
      continue;
    PS.P.Weight = W[I];
    PS.P.RunPos = CallsSeen ? std::min(1.0, (double)PS.P.Call / CallsSeen) : 0;
  }
  return Out;
}

} // namespace decan::tool
