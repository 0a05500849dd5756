//===- Statistics.cpp - Saturations from pairs, with intervals ------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace llvm;

namespace decan::tool {

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
    if (P.Var > 0 && P.Ref > 0 &&
        std::fabs(std::log(P.Var / P.Ref) - M) <= K * Mad)
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

namespace {
/// xorshift64: deterministic, cheap, good enough for resampling indices.
struct Xorshift {
  uint64_t X;
  explicit Xorshift(uint64_t Seed) : X(Seed * 0x9E3779B97F4A7C15ull | 1) {}
  uint64_t operator()() {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    return X;
  }
};

/// Width of the central 95% of \p R (sorted copy).
double range95(std::vector<double> R) {
  if (R.size() < 2)
    return 0;
  std::sort(R.begin(), R.end());
  auto At = [&](double Q) { return R[(size_t)(Q * (double)(R.size() - 1))]; };
  return At(0.975) - At(0.025);
}
} // namespace

std::vector<double> bootstrapRatios(const std::vector<Pair> &Pairs, unsigned B,
                                    uint64_t Seed) {
  std::vector<double> Out;
  if (Pairs.empty())
    return Out;
  Out.reserve(B);
  Xorshift Next(Seed);
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

std::vector<double> blockBootstrapRatios(const std::vector<Pair> &Pairs,
                                         unsigned B, uint64_t Seed,
                                         unsigned Blocks) {
  std::vector<double> Out;
  if (Blocks == 0)
    return Out;
  // Each block's weighted sums: a replicate is a ratio of sums of blocks.
  std::vector<double> V(Blocks, 0), R(Blocks, 0);
  std::vector<bool> Used(Blocks, false);
  for (const Pair &P : Pairs) {
    double Pos = std::clamp(P.RunPos, 0.0, 1.0);
    unsigned K = std::min(Blocks - 1, (unsigned)(Pos * Blocks));
    V[K] += P.Weight * P.Var;
    R[K] += P.Weight * P.Ref;
    Used[K] = true;
  }
  std::vector<std::pair<double, double>> Sums;
  for (unsigned K = 0; K < Blocks; ++K)
    if (Used[K])
      Sums.emplace_back(V[K], R[K]);
  size_t N = Sums.size();
  if (N < 4)
    return Out;
  double Value = ratioOfSums(Pairs);
  double Scale = std::sqrt((double)N / (double)(N - 1));
  Xorshift Next(Seed);
  Out.reserve(B);
  for (unsigned I = 0; I < B; ++I) {
    double SV = 0, SR = 0;
    for (size_t J = 0; J < N; ++J) {
      const auto &[BV, BR] = Sums[Next() % N];
      SV += BV;
      SR += BR;
    }
    double Rep = SR > 0 ? SV / SR : 0;
    Out.push_back(std::max(0.0, Value + (Rep - Value) * Scale));
  }
  return Out;
}

std::vector<double> runReplicates(const std::vector<Pair> &Pairs, unsigned B,
                                  uint64_t PairSeed, uint64_t BlockSeed) {
  std::vector<double> ByPair = bootstrapRatios(Pairs, B, PairSeed);
  unsigned Blocks = (unsigned)std::min<size_t>(10, Pairs.size() / 4);
  std::vector<double> ByBlock =
      blockBootstrapRatios(Pairs, B, BlockSeed, Blocks);
  if (!ByBlock.empty() && range95(ByBlock) > range95(ByPair))
    return ByBlock;
  return ByPair;
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

json::Value toJSON(const Pair &P) {
  return json::Array{P.Var, P.Ref, P.Work, P.Weight, P.Call, P.RunPos};
}

bool fromJSON(const json::Value &E, Pair &P, json::Path Path) {
  const json::Array *A = E.getAsArray();
  if (!A || A->size() != 6) {
    Path.report("expected [var, ref, work, weight, call, run_pos]");
    return false;
  }
  return fromJSON((*A)[0], P.Var, Path.index(0)) &&
         fromJSON((*A)[1], P.Ref, Path.index(1)) &&
         fromJSON((*A)[2], P.Work, Path.index(2)) &&
         fromJSON((*A)[3], P.Weight, Path.index(3)) &&
         fromJSON((*A)[4], P.Call, Path.index(4)) &&
         fromJSON((*A)[5], P.RunPos, Path.index(5));
}

json::Value toJSON(const Interval &I) {
  return json::Object{
      {"value", I.Value}, {"lo", I.Lo}, {"hi", I.Hi}, {"pairs", I.N}};
}

bool fromJSON(const json::Value &E, Interval &I, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.map("value", I.Value) && O.map("lo", I.Lo) &&
         O.map("hi", I.Hi) && O.map("pairs", I.N);
}

} // namespace decan::tool
