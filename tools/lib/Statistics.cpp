//===- Statistics.cpp - Paired, weighted, bootstrapped samples ------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Statistics.h"

#include <algorithm>
#include <cmath>
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
  if (S.Flags & kSampleSwitched)
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
  if (!(S.Flags & kSampleNoPre) && S.PreCycles > 0) {
    if (S.Flags & kSamplePreSwitched)
      AnySwitched = true;
    else
      N.push_back({S.PreCycles, S.PreTrips});
  }
  if (!(S.Flags & kSampleNoPost) && S.PostCycles > 0) {
    if (S.Flags & kSamplePostSwitched)
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

std::vector<Pair> trimOutliers(const std::vector<Pair> &Pairs, double K) {
  std::vector<double> L;
  for (const Pair &P : Pairs)
    if (P.Var > 0 && P.Ref > 0)
      L.push_back(std::log(P.Var / P.Ref));
  if (L.size() < 5)
    return Pairs;
  auto Median = [](std::vector<double> V) {
    std::sort(V.begin(), V.end());
    size_t N = V.size();
    return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
  };
  double M = Median(L);
  std::vector<double> Dev;
  for (double X : L)
    Dev.push_back(std::fabs(X - M));
  double Mad = std::max(Median(Dev), 0.02);
  std::vector<Pair> Out;
  for (const Pair &P : Pairs)
    if (P.Var > 0 && P.Ref > 0 && std::fabs(std::log(P.Var / P.Ref) - M) <= K * Mad)
      Out.push_back(P);
  return Out;
}

double ratioOfSums(const std::vector<Pair> &Pairs) {
  double V = 0, R = 0;
  for (const Pair &P : Pairs) {
    V += P.Weight * P.Var;
    R += P.Weight * P.Ref;
  }
  return R > 0 ? V / R : 0;
}

std::vector<double> bootstrapRatios(const std::vector<Pair> &Pairs, unsigned B,
                                    uint64_t Seed) {
  std::vector<double> Out;
  if (Pairs.empty())
    return Out;
  Out.reserve(B);
  uint64_t X = Seed * 0x9E3779B97F4A7C15ull | 1;
  auto Next = [&X] {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    return X;
  };
  size_t N = Pairs.size();
  for (unsigned K = 0; K < B; ++K) {
    double V = 0, R = 0;
    for (size_t I = 0; I < N; ++I) {
      const Pair &P = Pairs[Next() % N];
      V += P.Weight * P.Var;
      R += P.Weight * P.Ref;
    }
    Out.push_back(R > 0 ? V / R : 0);
  }
  return Out;
}

Interval percentileInterval(double Value, std::vector<double> Replicates,
                            unsigned N, double Level) {
  Interval I;
  I.Value = I.Lo = I.Hi = Value;
  I.N = N;
  if (Replicates.empty())
    return I;
  std::sort(Replicates.begin(), Replicates.end());
  auto At = [&](double Q) {
    double Pos = Q * (double)(Replicates.size() - 1);
    size_t Lo = (size_t)std::floor(Pos);
    size_t Hi = std::min(Lo + 1, Replicates.size() - 1);
    double F = Pos - (double)Lo;
    return Replicates[Lo] * (1 - F) + Replicates[Hi] * F;
  };
  I.Lo = std::min(Value, At((1 - Level) / 2));
  I.Hi = std::max(Value, At((1 + Level) / 2));
  return I;
}

uint64_t stableHash(const std::string &S) {
  uint64_t H = 1469598103934665603ull; // FNV-1a
  for (unsigned char C : S) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return H;
}

} // namespace decan::tool
