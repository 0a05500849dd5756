//===- Analysis.cpp - Differential analyses of a report -------------------===//
//
// Part of decan.
// Over 600 lines on purpose: the differential analyses of one report
// (pairing, saturation, verdicts, phases, trip checks) share its helpers.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"
#include "decan/abi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

using namespace llvm;

namespace decan::tool {

StringRef streamsClassName(StreamsClass C) {
  switch (C) {
  case StreamsClass::Balanced:
    return "balanced";
  case StreamsClass::MemoryBound:
    return "memory-bound";
  case StreamsClass::FPBound:
    return "fp-bound";
  case StreamsClass::Unsaturated:
    return "unsaturated";
  }
  return "?";
}

StreamsClass classifyStreams(double SatLS, double SatFP, const Thresholds &T) {
  if (SatLS - SatFP >= T.Gap)
    return StreamsClass::MemoryBound;
  if (SatFP - SatLS >= T.Gap)
    return StreamsClass::FPBound;
  if (SatLS < T.Full && SatFP < T.Full)
    return StreamsClass::Unsaturated;
  return StreamsClass::Balanced;
}

static std::string pct(double X) { return formatv("{0:F0}%", X * 100).str(); }

/// "1 call", "3 calls".
static std::string plural(uint64_t N, StringRef Noun) {
  return formatv("{0} {1}{2}", N, Noun, N == 1 ? "" : "s").str();
}

std::string explainStreams(StreamsClass C, double SatLS, double SatFP,
                           const Thresholds &T) {
  std::string Sats = formatv("Sat(LS)={0:F2}, Sat(FP)={1:F2}", SatLS, SatFP);
  switch (C) {
  case StreamsClass::MemoryBound:
    return "memory-bound (" + Sats + "): " +
           (SatLS >= T.Full
                ? std::string("the memory stream alone takes REF's time; "
                              "optimise the loads/stores, or add computation "
                              "to fill the gap")
                : std::string("memory accesses dominate, but neither stream "
                              "saturates: part of the time is their "
                              "interaction"));
  case StreamsClass::FPBound:
    return "FP-bound (" + Sats + "): " +
           (SatFP >= T.Full
                ? std::string("the arithmetic stream alone takes REF's time; "
                              "optimise the computation (see NO_DIV), memory "
                              "accesses come for free")
                : std::string("arithmetic dominates, but neither stream "
                              "saturates: part of the time is their "
                              "interaction"));
  case StreamsClass::Balanced:
    return "balanced (" + Sats + "): " +
           (SatLS >= T.Full && SatFP >= T.Full
                ? std::string("both streams saturate and overlap fully; "
                              "only optimising both shortens the loop")
                : std::string("one stream saturates, the other is close "
                              "behind; optimise both"));
  case StreamsClass::Unsaturated:
    return "unsaturated (" + Sats + ", both below " +
           formatv("{0:F2}", T.Full).str() +
           "): the streams interact (dependences), the front end limits, or "
           "shared resources (ROB, registers) are relieved in the variants";
  }
  return "";
}

StreamsClass classifyMemoryCpu(double SatLS, double SatDL1,
                               const Thresholds &T) {
  return classifyStreams(SatLS, SatDL1, T);
}

StringRef memoryCpuName(StreamsClass C) {
  return C == StreamsClass::FPBound ? "cpu-bound" : streamsClassName(C);
}

double dl1Gain(double Share, double SatDL1) {
  return std::max(0.0, Share * (1 - SatDL1));
}

StringRef dataLocation(double SatDL1, const Thresholds &T) {
  if (SatDL1 >= T.DL1InL1)
    return "L1";
  if (SatDL1 >= T.DL1InL2)
    return "L2";
  return "L3 or memory";
}

std::optional<double> saturation(const LoopReport &L, unsigned V) {
  if (!L.Variants[REF] || !L.Variants[V])
    return std::nullopt;
  double Ref = L.Variants[REF]->Cycles.Median;
  if (Ref <= 0 || L.Variants[V]->Calls == 0)
    return std::nullopt;
  return L.Variants[V]->Cycles.Median / Ref;
}

void checkCoherence(LoopReport &L, double ProbeCycles, const Thresholds &T) {
  auto Warn = [&](std::string S) {
    if (std::find(L.Warnings.begin(), L.Warnings.end(), S) == L.Warnings.end())
      L.Warnings.push_back(std::move(S));
  };
  const VariantStats *Ref = L.Variants[REF] ? &*L.Variants[REF] : nullptr;
  for (unsigned V = 0; V < NumVariants; ++V) {
    if (!L.Variants[V])
      continue;
    const VariantStats &S = *L.Variants[V];
    StringRef N = variantName(V);
    if (S.Calls == 0) {
      Warn(formatv("{0}: no call measured", N).str());
      continue;
    }
    if (S.Calls < T.MinCalls)
      Warn(formatv("{0}: only {1} measured calls, too few for a median "
                   "(need {2})",
                   N, S.Calls, T.MinCalls)
               .str());

    if (S.Stability > T.Unstable)
      Warn(formatv("{0}: unstable samples, (median-min)/min = {1}", N,
                   pct(S.Stability))
               .str());
    if (S.Excluded) {
      double Frac = double(S.Excluded) / double(S.Calls + S.Excluded);
      Warn(formatv("{0}: {1} of {2} calls excluded (context switch during "
                   "the call){3}",
                   N, S.Excluded, S.Calls + S.Excluded,
                   Frac > T.MaxExcluded ? ": the machine is busy" : "")
               .str());
    }
    if (ProbeCycles > 0 && S.Cycles.Median > 0 &&
        ProbeCycles / S.Cycles.Median > T.MaxProbeShare)
      Warn(formatv("{0}: a call ({1:F0} cycles) is too short for the "
                   "precision: the probes alone cost {2:F0} cycles ({3})",
                   N, S.Cycles.Median, ProbeCycles,
                   pct(ProbeCycles / S.Cycles.Median))
               .str());
    // Rank/thread imbalance (thesis 5.4.7): rows whose typical call differs
    // widely point at uneven work or data placement.
    double Lo = 0, Hi = 0;
    unsigned Rows = 0;
    for (const ThreadRow &Row : S.Rows) {
      if (!Row.Calls || Row.Cycles.Median <= 0)
        continue;
      Lo = Rows ? std::min(Lo, Row.Cycles.Median) : Row.Cycles.Median;
      Hi = Rows ? std::max(Hi, Row.Cycles.Median) : Row.Cycles.Median;
      ++Rows;
    }
    if (Rows > 1 && Hi > Lo * (1 + T.Unstable))
      Warn(formatv("{0}: imbalance between ranks/threads: median cycles per "
                   "call range from {1:F0} to {2:F0} over {3} rows",
                   N, Lo, Hi, Rows)
               .str());
    uint64_t Differ = S.PairKinds[static_cast<unsigned>(PairKind::TripsDiffer)];
    uint64_t NoWork = S.PairKinds[static_cast<unsigned>(PairKind::NoEqualWork)];
    if (Differ)
      Warn(formatv("{0}: {1} sample(s) excluded: the variant's trip count "
                   "differs from the original run on the same input (the "
                   "variant changed the control flow)",
                   N, Differ)
               .str());
    if (NoWork)
      Warn(formatv("{0}: {1} sample(s) excluded: no REF call of equal work "
                   "next to them",
                   N, NoWork)
               .str());
    // PREFETCH adds accesses on purpose: slower than REF is its result.
    if (V == REF || V == PREFETCH || !Ref)
      continue;
    if (L.SatInterval[V]) {
      if (L.SatInterval[V]->Lo > 1 + T.NoiseFloor)
        Warn(formatv("{0} is slower than REF (Sat {1:F2}, interval [{2:F2}, "
                     "{3:F2}]): the variant adds cost (layout, a new "
                     "dependence, see thesis 6.5); its saturation is no "
                     "bound",
                     N, L.SatInterval[V]->Value, L.SatInterval[V]->Lo,
                     L.SatInterval[V]->Hi)
                 .str());
    } else if (auto Sat = saturation(L, V)) {
      double Noise = std::max(T.NoiseFloor, Ref->Stability + S.Stability);
      if (*Sat > 1 + Noise)
        Warn(formatv("{0} is slower than REF beyond noise (Sat {1:F2} > "
                     "{2:F2}): the variant adds cost (layout, a new "
                     "dependence, see thesis 6.5); its saturation is no "
                     "bound",
                     N, *Sat, 1 + Noise)
                 .str());
    }
  }
}

Classified
classifyReplicates(const std::vector<double> &Point,
                   const std::vector<std::vector<double>> &Replicates,
                   const std::function<std::string(const double *)> &Classify,
                   double Margin) {
  // The class of \p X, or kNearThreshold when a corner of the box
  // X +- Margin falls in another one.
  std::vector<double> Corner(Point.size());
  auto Robust = [&](const double *X) {
    std::string Label = Classify(X);
    if (Margin <= 0)
      return Label;
    for (unsigned Mask = 0; Mask < (1u << Point.size()); ++Mask) {
      for (size_t I = 0; I < Point.size(); ++I)
        Corner[I] = X[I] + ((Mask >> I) & 1 ? Margin : -Margin);
      if (Classify(Corner.data()) != Label)
        return std::string(kNearThreshold);
    }
    return Label;
  };
  Classified C;
  C.Label = Robust(Point.data());
  size_t B = Replicates.empty() ? 0 : Replicates[0].size();
  for (const auto &R : Replicates)
    B = std::min(B, R.size());
  if (!B) {
    C.Agreement = 0;
    return C;
  }
  std::map<std::string, unsigned> Count;
  std::vector<double> X(Replicates.size());
  for (size_t K = 0; K < B; ++K) {
    for (size_t I = 0; I < Replicates.size(); ++I)
      X[I] = Replicates[I][K];
    ++Count[Robust(X.data())];
  }
  // A point near a threshold states no class, however its replicates fall.
  C.Agreement =
      C.Label == kNearThreshold ? 0 : double(Count[C.Label]) / double(B);
  for (const auto &[Label, N] : Count)
    C.Labels.emplace_back(Label, double(N) / double(B));
  std::stable_sort(
      C.Labels.begin(), C.Labels.end(),
      [](const auto &A, const auto &B) { return A.second > B.second; });
  return C;
}

namespace {
/// "memory-bound in 60% of resamples, balanced in 40%".
std::string describeSplit(const Classified &C) {
  std::string Out;
  for (const auto &[Label, Share] : C.Labels) {
    if (Share < 0.05)
      continue;
    Out += (Out.empty() ? "" : ", ") + Label + " in " + pct(Share) +
           (Out.empty() ? " of resamples" : "");
  }
  return Out;
}

std::string interval(const Interval &I) {
  return formatv("{0:F2} [{1:F2}, {2:F2}]", I.Value, I.Lo, I.Hi).str();
}

/// Point saturations of the pairs whose run position is in [From, To).
std::optional<double> partSaturation(const VariantStats &S, double From,
                                     double To, unsigned MinPairs) {
  std::vector<Pair> In;
  for (const Pair &P : S.Pairs)
    if (P.RunPos >= From && (P.RunPos < To || (To >= 1 && P.RunPos <= 1)))
      In.push_back(P);
  if (In.size() < MinPairs)
    return std::nullopt;
  return ratioOfSums(In);
}

/// What the loop's whole-run figures say about its run: phases, trip counts
/// of the samples against the run's.
void checkRun(LoopReport &L, const Thresholds &T) {
  // REF's cost per iteration (per call without trip counts) per part.
  std::vector<double> Cost;
  std::string Costs;
  for (const RunPart &Q : L.Parts) {
    if (!Q.Calls)
      continue;
    double C =
        Q.Iterations > 0 ? Q.Cycles / Q.Iterations : Q.Cycles / (double)Q.Calls;
    Cost.push_back(C);
    Costs += formatv("{0}{1:F1}", Costs.empty() ? "" : ", ", C).str();
  }
  if (Cost.size() >= 2) {
    auto [Lo, Hi] = std::minmax_element(Cost.begin(), Cost.end());
    if (*Lo > 0 && *Hi > *Lo * (1 + T.PhaseCost))
      L.Diagnosis.push_back(
          formatv("phases: REF's cost per {0} changes over the run (by "
                  "quarter of its calls: {1} cycles): the verdict describes "
                  "the whole run",
                  L.RunTripsKnown ? "iteration" : "call", Costs)
              .str());
  }
  std::string First, Last;
  for (const RunPart &Q : L.Parts)
    if (!Q.Streams.empty()) {
      if (First.empty())
        First = Q.Streams;
      Last = Q.Streams;
    }
  if (!First.empty() && First != Last)
    L.Diagnosis.push_back(
        formatv("phases: {0} early in the run, {1} late", First, Last).str());
  if (L.RunMeanTrips && L.SampleMeanTrips && *L.RunMeanTrips > 0 &&
      std::fabs(*L.SampleMeanTrips - *L.RunMeanTrips) >
          T.MaxTripsDrift * *L.RunMeanTrips)
    L.Warnings.push_back(
        formatv("samples average {0:F1} iterations per call, the whole run "
                "{1:F1}: the samples may not represent the run",
                *L.SampleMeanTrips, *L.RunMeanTrips)
            .str());
}
} // namespace

/// Sat(V) / Sat(NO_CALL) for the variants that deleted the loop's calls
/// (their replicates too); those without a NO_CALL measurement lose their
/// saturation. Returns what was done, in words ("" when nothing).
static std::string
againstNoCall(const LoopReport &L,
              std::array<std::optional<double>, NumVariants> &Sat,
              std::array<std::vector<double>, NumVariants> &B,
              std::array<std::optional<Interval>, NumVariants> &SatI) {
  std::string Moved, Dropped;
  for (const std::string &Name : L.CallsDeleted) {
    std::optional<unsigned> V = parseVariant(Name);
    if (!V || *V == NO_CALL || *V == REF || !Sat[*V])
      continue;
    if (!Sat[NO_CALL] || *Sat[NO_CALL] <= 0) {
      Sat[*V].reset();
      B[*V].clear();
      SatI[*V].reset();
      Dropped += (Dropped.empty() ? "" : ", ") + Name;
      continue;
    }
    double Ref = *Sat[NO_CALL];
    *Sat[*V] /= Ref;
    if (SatI[*V])
      SatI[*V] = Interval{SatI[*V]->Value / Ref, SatI[*V]->Lo / Ref,
                          SatI[*V]->Hi / Ref, SatI[*V]->N};
    if (B[*V].size() == B[NO_CALL].size())
      for (size_t I = 0; I < B[*V].size(); ++I)
        B[*V][I] = B[NO_CALL][I] > 0 ? B[*V][I] / B[NO_CALL][I] : B[*V][I];
    else
      B[*V].clear();
    Moved += formatv("{0}{1}: Sat={2:F2} against NO_CALL",
                     Moved.empty() ? "" : ", ", Name, *Sat[*V])
                 .str();
  }
  std::string Out;
  if (!Moved.empty())
    Out = "calls deleted in " + Moved +
          " (the loop's own work, calls left out: thesis 4.5.2)";
  if (!Dropped.empty())
    Out += (Out.empty() ? "" : "; ") + Dropped +
           " deleted the loop's calls and NO_CALL was not measured: no "
           "stream analysis for them";
  return Out;
}

/// GROUPING (thesis 4.4.3.3): each measured group's saturations (removed,
/// in L1; removed against LS: its share of the memory stream), and the
/// groups ranked by what removing them gains.
static void
groupAnalysis(LoopReport &L,
              const std::array<std::optional<double>, NumVariants> &Sat,
              const std::array<std::vector<double>, NumVariants> &B,
              const Thresholds &T, bool TooShort) {
  struct Cost {
    const MemoryGroup *G;
    unsigned K;
    std::string Claim;
  };
  std::vector<Cost> Costs;
  for (unsigned K = 0; K < L.Groups.size() && K < DECAN_MAX_GROUPS; ++K) {
    MemoryGroup &G = L.Groups[K];
    G.SatDL1 = Sat[DL1_G0 + K];
    G.SatRemoved = Sat[NO_G0 + K];
    G.SatRemovedVsLS.reset();
    if (G.SatRemoved && Sat[LS] && *Sat[LS] > 0)
      G.SatRemovedVsLS = *G.SatRemoved / *Sat[LS];
    if (TooShort || !G.SatRemoved)
      continue;
    const std::vector<double> &Reps = B[NO_G0 + K];
    Classified C = classifyReplicates(
        {*G.SatRemoved}, {Reps},
        [&](const double *X) {
          return std::string(1 - X[0] >= T.GroupCost ? "costly" : "cheap");
        },
        T.Margin);
    bool Paired = !Reps.empty();
    bool Settled =
        (!Paired || C.Agreement >= T.Confidence) && C.Label != kNearThreshold;
    std::string S =
        formatv("array `{0}` ({1} access{2}) costs {3} of this loop "
                "(removed: Sat(NO_G{4})={5:F2}",
                G.Name, G.Accesses, G.Accesses == 1 ? "" : "es",
                pct(std::max(0.0, 1 - *G.SatRemoved)), K, *G.SatRemoved)
            .str();
    if (G.SatDL1)
      S += formatv("; in L1: Sat(DL1_G{0})={1:F2}", K, *G.SatDL1).str();
    S += Paired ? formatv(", confidence {0})", pct(C.Agreement)).str() : ")";
    if (!Settled)
      S += ": whether it costs at least " + pct(T.GroupCost) +
           " is inconclusive (" + describeSplit(C) + ")";
    Costs.push_back({&G, K, S});
  }
  if (Costs.empty())
    return;
  std::stable_sort(Costs.begin(), Costs.end(),
                   [](const Cost &A, const Cost &B) {
                     return *A.G->SatRemoved < *B.G->SatRemoved;
                   });
  std::string S = "memory groups (thesis 4.4.3.3), costliest first: ";
  for (size_t I = 0; I < Costs.size(); ++I)
    S += (I ? "; " : "") + Costs[I].Claim;
  if (L.NumGroups > DECAN_MAX_GROUPS)
    S += formatv("; {0} more group(s) not measured (the first {1} are)",
                 L.NumGroups - DECAN_MAX_GROUPS, DECAN_MAX_GROUPS)
             .str();
  L.Diagnosis.push_back(S);
}

/// OpenMP analyses (thesis 5.9): the spread of the threads' whole-run
/// time in the loop (a thread much slower than the others makes them wait
/// at the barrier), and S2L per thread (which threads pay for coherence).
static void threadAnalysis(LoopReport &L, const Thresholds &T, bool TooShort) {
  L.ThreadSpread.reset();
  L.ThreadMaxOverMean.reset();
  for (ThreadTotal &TT : L.ThreadTotals)
    TT.SatS2L.reset();
  // The threads of the runs REF was measured in: in replace mode each
  // variant has runs of its own, whose totals are that variant's time.
  auto RefRun = [&](const ThreadTotal &TT) {
    return !L.Variants[REF] ||
           any_of(L.Variants[REF]->Rows,
                  [&](const ThreadRow &R) { return R.Pid == TT.Pid; });
  };
  std::vector<const ThreadTotal *> Ran;
  for (const ThreadTotal &TT : L.ThreadTotals)
    if (TT.Calls && TT.Cycles > 0 && RefRun(TT))
      Ran.push_back(&TT);
  if (Ran.size() < 2)
    return;
  double Sum = 0, Max = 0;
  for (const ThreadTotal *TT : Ran) {
    Sum += TT->Cycles;
    Max = std::max(Max, TT->Cycles);
  }
  double Mean = Sum / Ran.size(), Var = 0;
  for (const ThreadTotal *TT : Ran)
    Var += (TT->Cycles - Mean) * (TT->Cycles - Mean);
  double Std = std::sqrt(Var / Ran.size());
  L.ThreadSpread = Std / Mean;
  L.ThreadMaxOverMean = Max / Mean;
  std::string S =
      formatv("threads (OpenMP, thesis 5.9): {0} threads ran "
              "this loop; time per thread {1:F0} cycles on "
              "average, standard deviation {2} of it, the "
              "slowest {3:F2}x the mean",
              Ran.size(), Mean, pct(*L.ThreadSpread), *L.ThreadMaxOverMean)
          .str();
  S += *L.ThreadSpread >= T.ThreadImbalance
           ? ": imbalanced, the others wait for the slowest at the barrier; "
             "balance the work (schedule(dynamic), smaller chunks)"
           : ": balanced";
  L.Diagnosis.push_back(S);
  // S2L per thread, from each thread's medians.
  if (TooShort || !L.Variants[REF] || !L.Variants[S2L])
    return;
  double Lo = 0, Hi = 0;
  unsigned N = 0;
  for (ThreadTotal &TT : L.ThreadTotals)
    for (const ThreadRow &R : L.Variants[REF]->Rows) {
      if (R.Pid != TT.Pid || R.Tid != TT.Tid || R.Cycles.Median <= 0)
        continue;
      // The same thread; in replace mode (S2L ran in a run of its own) the
      // thread of the same index and rank.
      const ThreadRow *Match = nullptr;
      for (const ThreadRow &X : L.Variants[S2L]->Rows)
        if (X.Calls && X.Cycles.Median > 0 && X.Pid == R.Pid && X.Tid == R.Tid)
          Match = &X;
      if (!Match)
        for (const ThreadRow &X : L.Variants[S2L]->Rows)
          if (X.Calls && X.Cycles.Median > 0 && X.Pid != R.Pid &&
              X.Thread == R.Thread && X.Rank == R.Rank)
            Match = &X;
      if (!Match)
        continue;
      TT.SatS2L = Match->Cycles.Median / R.Cycles.Median;
      Lo = N ? std::min(Lo, *TT.SatS2L) : *TT.SatS2L;
      Hi = N ? std::max(Hi, *TT.SatS2L) : *TT.SatS2L;
      ++N;
    }
  if (N > 1)
    L.Diagnosis.push_back(
        formatv("S2L per thread: Sat(S2L) from {0:F2} to {1:F2} over {2} "
                "threads{3}",
                Lo, Hi, N,
                1 - Hi >= T.StoreCost
                    ? ": every thread pays for writing shared lines"
                : 1 - Lo >= T.StoreCost
                    ? ": some threads pay for writing, others not"
                    : ": no thread pays for coherence")
            .str());
}

/// Where a load's latency lies, from its cost in TSC cycles (rough bounds,
/// common to current x86 server cores).
static StringRef latencyLevel(double Cycles) {
  return Cycles <= 8     ? "L1"
         : Cycles <= 30  ? "L2"
         : Cycles <= 100 ? "L3"
                         : "memory (DRAM)";
}

/// Loops whose FP (and LS) are empty: everything is in the exit test's or
/// the addresses' slice, so no variant separates memory from arithmetic.
/// What REF alone says: a chain of chased loads is latency-bound, and its
/// cost per iteration places the loads; a search is its exit test.
static void diagnoseControlBound(LoopReport &L, bool TooShort) {
  auto Empty = [&](const char *V) {
    auto It = L.Unavailable.find(V);
    return It != L.Unavailable.end() && It->second == "empty";
  };
  // FP empty: every memory access feeds the exit test or an address. LS
  // may still remove a counter the exit does not need (a front end that
  // cannot see the counter is live after the loop keeps it out of CTRL).
  if (!Empty("FP") || !L.RunCalls || L.TimeCycles <= 0 ||
      (!L.ChasedLoads && !Empty("LS")))
    return;
  double PerCall = L.TimeCycles / (double)L.RunCalls;
  std::optional<double> PerIter;
  if (L.RunMeanTrips && *L.RunMeanTrips > 0)
    PerIter = PerCall / *L.RunMeanTrips;
  std::string Cost =
      PerIter ? formatv("{0:F1} cycles per iteration", *PerIter).str()
              : formatv("{0:F0} cycles per call (trip count unknown)", PerCall)
                    .str();
  if (!L.ChasedLoads) {
    L.Diagnosis.push_back(
        "the loop's work is its exit test: every load feeds it or an address "
        "(a search), so no variant separates memory from arithmetic; REF: " +
        Cost);
    return;
  }
  std::string S = formatv("latency-bound (pointer chasing): each iteration's "
                          "address comes from a load of the previous one ({0} "
                          "chased load{1}); REF: {2}",
                          L.ChasedLoads, L.ChasedLoads == 1 ? "" : "s", Cost)
                      .str();
  if (PerIter) {
    double PerLoad = *PerIter / L.ChasedLoads;
    S += formatv(", about {0:F0} per chased load: the latency of {1}", PerLoad,
                 latencyLevel(PerLoad))
             .str();
    if (PerLoad > 30)
      S += "; prefetching cannot run ahead of such a chain: fewer levels of "
           "indirection, or nodes laid out in traversal order, shorten it";
  }
  L.Diagnosis.push_back(S);
  // The class needs no variant: it is the loop's structure, and REF's
  // whole-run time is exact. Too-short calls still decide nothing.
  if (!TooShort && L.Verdict.empty()) {
    L.Verdict = "latency-bound";
    L.VerdictConfidence = 1;
  }
}

/// A region is timed, not diagnosed: its part of the program's time and,
/// for a function, how much of it the innermost loops measured in that
/// function take (the rest is code outside them: where to look next).
static void describeRegion(const Report &R, LoopReport &L,
                           const Thresholds &T) {
  L.Verdict.clear();
  if (!L.ProgramShare || !L.RunCalls)
    return;
  double MeanCall = L.RunCycles / (double)L.RunCalls;
  L.ProgramShareApproximate =
      R.ProbeCycles > 0 && MeanCall < T.PrecisionFactor * R.ProbeCycles;
  std::string S =
      formatv("region (REF only): {0} of the program's time in "
              "{1} call{2}",
              pct(*L.ProgramShare), L.RunCalls, L.RunCalls == 1 ? "" : "s")
          .str();
  StringRef Rest = StringRef(L.Id).drop_front(strlen("region:"));
  if (Rest == L.Function) { // the whole function
    double Inner = 0;
    for (const LoopReport &O : R.Loops)
      if (!O.isRegion() && O.Function == L.Function && O.ProgramShare)
        Inner += *O.ProgramShare;
    S += formatv("; its own innermost loops that decan measured take {0}, "
                 "the rest ({1}) is outside them (straight-line code, outer "
                 "loops, callees)",
                 pct(Inner), pct(std::max(0.0, *L.ProgramShare - Inner)))
             .str();
  }
  if (L.ProgramShareApproximate)
    S += formatv("; approximate: activations of {0:F0} cycles are timed "
                 "alone, without their overlap with the code around them",
                 MeanCall)
             .str();
  L.Diagnosis.push_back(S);
}

void analyse(Report &R, const Thresholds &T) {
  Thresholds TC = T;
  if (R.Config.getString("mode") == "instance") // one call per variant
    TC.MinCalls = 1;
  double Total = 0;
  for (const LoopReport &L : R.Loops)
    if (!L.isRegion()) // regions enclose loops: not loop time
      Total += L.TimeCycles;
  // Replicates of each saturation, per loop, for the verdicts.
  std::vector<std::array<std::vector<double>, NumVariants>> Boot(
      R.Loops.size());
  for (size_t LI = 0; LI < R.Loops.size(); ++LI) {
    LoopReport &L = R.Loops[LI];
    L.Share = Total > 0 && !L.isRegion() ? L.TimeCycles / Total : 0;
    double W = 0, WT = 0;
    bool Paired = R.Config.getBoolean("paired").value_or(false);
    for (unsigned V = 0; V < NumVariants; ++V)
      Paired |= L.Variants[V] && !L.Variants[V]->Pairs.empty();
    for (unsigned V = 0; V < NumVariants; ++V) {
      L.SatInterval[V].reset();
      L.Saturation[V].reset();
      if (!L.Variants[V])
        continue;
      // Disturbed pairs (one side hit by an interrupt or a fault) would
      // swing a ratio of sums: they are left out, and counted.
      std::vector<Pair> Ps = trimOutliers(L.Variants[V]->Pairs);
      L.Variants[V]->Outliers = L.Variants[V]->Pairs.size() - Ps.size();
      for (const Pair &P : Ps)
        if (P.Work > 0) {
          W += P.Weight;
          WT += P.Weight * P.Work;
        }
      if (!Paired) {
        L.Saturation[V] = saturation(L, V);
        continue;
      }
      if (Ps.size() < TC.MinCalls)
        continue;
      double Value = ratioOfSums(Ps);
      Boot[LI][V] =
          bootstrapRatios(Ps, T.Bootstrap, stableHash(L.Id) + 7919 * V);
      L.SatInterval[V] = percentileInterval(Value, Boot[LI][V],
                                            static_cast<unsigned>(Ps.size()));
      L.Saturation[V] = Value;
    }
    if (W > 0)
      L.SampleMeanTrips = WT / W;
    for (RunPart &Q : L.Parts) {
      for (unsigned V = 0; V < NumVariants; ++V)
        Q.Saturation[V] = L.Variants[V] ? partSaturation(*L.Variants[V], Q.From,
                                                         Q.To, TC.MinCalls)
                                        : std::nullopt;
      Q.Streams = Q.Saturation[LS] && Q.Saturation[FP]
                      ? streamsClassName(classifyStreams(*Q.Saturation[LS],
                                                         *Q.Saturation[FP], T))
                            .str()
                      : "";
    }
    L.Diagnosis.clear();
    L.Warnings.clear();
    L.Streams.clear();
    L.MemoryCpu.clear();
    L.Verdict.clear();
    L.Inconclusive.clear();
    L.VerdictConfidence = 0;
    L.DL1Gain.reset();
    L.DivGain.reset();
    L.CtrlShare.reset();
  }

  // Ranks: first by share (the plain profile), then by DL1 potential gain.
  std::vector<LoopReport *> Order;
  for (LoopReport &L : R.Loops)
    Order.push_back(&L);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     return A->Share > B->Share;
                   });
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I]->RankByShare = I + 1;
  for (LoopReport &L : R.Loops)
    if (L.Saturation[DL1])
      L.DL1Gain = dl1Gain(L.Share, *L.Saturation[DL1]);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     return A->DL1Gain.value_or(-1) > B->DL1Gain.value_or(-1);
                   });
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I]->RankByGain = I + 1;

  for (size_t LI = 0; LI < R.Loops.size(); ++LI) {
    LoopReport &L = R.Loops[LI];
    if (L.isRegion()) {
      describeRegion(R, L, T);
      continue;
    }
    // Variants that lost the loop's calls are compared with NO_CALL, the
    // loop without them (thesis 4.5.2: saturation between two variants),
    // so LS and FP still say "memory or arithmetic" for its own work.
    auto Sat = L.Saturation;
    auto B = Boot[LI];
    auto SatI = L.SatInterval;
    std::string CallRef = againstNoCall(L, Sat, B, SatI);
    // A claim holds when its replicates agree; unpaired runs carry no
    // replicates and state their claims without a confidence.
    auto Confident = [&](const Classified &C, bool Paired) {
      return !Paired || C.Agreement >= T.Confidence;
    };
    auto Conf = [&](const Classified &C, bool Paired) -> std::string {
      return Paired ? formatv(", confidence {0}", pct(C.Agreement)).str() : "";
    };
    // Below the precision floor no verdict is drawn from the samples.
    double MeanCall = L.RunCalls        ? L.RunCycles / (double)L.RunCalls
                      : L.Variants[REF] ? L.Variants[REF]->MeanCycles
                                        : 0;
    bool TooShort = R.ProbeCycles > 0 && MeanCall > 0 &&
                    MeanCall < T.PrecisionFactor * R.ProbeCycles;
    // Too few pairs matter only where the loop has both streams to
    // compare (a pointer chase has no FP: its LS decides nothing).
    bool StreamsExist =
        !L.Unavailable.count("LS") && !L.Unavailable.count("FP");
    std::string Missing;
    for (unsigned V : {LS, FP})
      if (StreamsExist && L.Variants[V] &&
          !L.Saturation[V]) // too few pairs, not dropped
        Missing += formatv("{0}{1}: {2} usable pairs (need {3})",
                           Missing.empty() ? "" : "; ", variantName(V),
                           L.Variants[V]->Pairs.size(), TC.MinCalls)
                       .str();
    if (TooShort) {
      L.Verdict = "inconclusive";
      L.Inconclusive =
          formatv("calls average {0:F0} cycles, below the precision floor "
                  "({1:F0} x the probe's {2:F0} cycles): nothing is diagnosed "
                  "from them; time a larger input",
                  MeanCall, T.PrecisionFactor, R.ProbeCycles)
              .str();
    } else if (!Missing.empty()) {
      L.Verdict = "inconclusive";
      L.Inconclusive = Missing + ": a longer run (more calls of the loop), "
                                 "or decan run --max-runs N";
    }
    if (!CallRef.empty())
      L.Diagnosis.push_back(CallRef);
    if (L.DL1MemoryCallBytes && L.Variants[DL1])
      L.Diagnosis.push_back(formatv(
          "DL1 redirected the loop's memcpy/memset/memmove to its scratch "
          "area, lengths above {0} bytes clamped to {0}: where a call moves "
          "more, DL1 did less of its work than REF",
          L.DL1MemoryCallBytes));
    if (Sat[NO_CALL] && !TooShort) {
      std::string S =
          formatv("calls cost {0} of this loop (Sat(NO_CALL)={1:F2})",
                  pct(std::max(0.0, 1 - *Sat[NO_CALL])), *Sat[NO_CALL])
              .str();
      if (L.ProgramShare && *Sat[NO_CALL] < 1)
        S += formatv("; without them the program would run {0:F2}x faster "
                     "(Amdahl, program share {1})",
                     1 / (1 - *L.ProgramShare * (1 - *Sat[NO_CALL])),
                     pct(*L.ProgramShare))
                 .str();
      L.Diagnosis.push_back(S);
    }
    if (Sat[LS] && Sat[FP] && !TooShort) {
      bool Paired = !B[LS].empty() && !B[FP].empty();
      Classified C = classifyReplicates(
          {*Sat[LS], *Sat[FP]}, {B[LS], B[FP]},
          [&](const double *X) {
            return streamsClassName(classifyStreams(X[0], X[1], T)).str();
          },
          T.Margin);
      if (Confident(C, Paired)) {
        L.VerdictConfidence = Paired ? C.Agreement : 0;
        L.Streams = C.Label;
        L.Verdict = C.Label;
        L.Diagnosis.push_back(
            explainStreams(classifyStreams(*Sat[LS], *Sat[FP], T), *Sat[LS],
                           *Sat[FP], T) +
            Conf(C, Paired));
      } else {
        L.Verdict = "inconclusive";
        L.Inconclusive =
            formatv("Sat(LS)={0}, Sat(FP)={1}: {2}; more samples would "
                    "settle it (a longer run, or --max-runs N)",
                    interval(*SatI[LS]), interval(*SatI[FP]), describeSplit(C))
                .str();
      }
    }
    diagnoseControlBound(L, TooShort);
    bool AnyPairs = false;
    for (unsigned V = 0; V < NumVariants; ++V)
      AnyPairs |= L.Variants[V] && !L.Variants[V]->Pairs.empty();
    if (L.RunCalls && !AnyPairs && L.Verdict.empty() &&
        none_of(L.Saturation, [](const auto &X) { return X.has_value(); })) {
      L.Verdict = "inconclusive";
      L.Inconclusive =
          formatv("called {0} time{1} while measured: too few calls for "
                  "variant samples; its REF time above is its whole-run time",
                  L.RunCalls, L.RunCalls == 1 ? "" : "s")
              .str();
    }
    if (!L.Inconclusive.empty())
      L.Diagnosis.push_back("inconclusive: " + L.Inconclusive);
    if (TooShort)
      L.Warnings.push_back("calls too short for the precision: see "
                           "'inconclusive'");
    if (Sat[LS] && Sat[DL1] && !TooShort) {
      bool Paired = !B[LS].empty() && !B[DL1].empty();
      Classified C = classifyReplicates(
          {*Sat[LS], *Sat[DL1]}, {B[LS], B[DL1]},
          [&](const double *X) {
            return memoryCpuName(classifyMemoryCpu(X[0], X[1], T)).str();
          },
          T.Margin);
      if (Confident(C, Paired)) {
        StreamsClass MC = classifyMemoryCpu(*Sat[LS], *Sat[DL1], T);
        L.MemoryCpu = memoryCpuName(MC).str();
        static const char *Why[] = {
            "both sides saturate: memory and CPU work overlap, both need work",
            "the memory subsystem bounds the loop; CPU-side work is hidden",
            "the CPU side (the loop with ideal memory) bounds it; memory "
            "accesses are hidden",
            "memory and CPU work overlap poorly: improving either side pays"};
        L.Diagnosis.push_back(
            formatv("memory vs CPU (PAMDA, thesis 5.4.2): {0} (Sat(LS)={1:F2}, "
                    "Sat(DL1)={2:F2}): {3}{4}",
                    L.MemoryCpu, *Sat[LS], *Sat[DL1], Why[static_cast<int>(MC)],
                    Conf(C, Paired))
                .str());
      }
    }
    if (Sat[DL1] && !TooShort) {
      bool Paired = !B[DL1].empty();
      Classified C = classifyReplicates(
          {*Sat[DL1]}, {B[DL1]},
          [&](const double *X) { return dataLocation(X[0], T).str(); },
          T.Margin);
      std::string S = Confident(C, Paired)
                          ? formatv("DL1: Sat(DL1)={0:F2}, data in {1}{2}",
                                    *Sat[DL1], C.Label, Conf(C, Paired))
                                .str()
                          : formatv("DL1: Sat(DL1)={0}: where the data live is "
                                    "inconclusive ({1})",
                                    interval(*SatI[DL1]), describeSplit(C))
                                .str();
      if (*Sat[DL1] < T.DL1InL1) {
        S += formatv("; L1-resident data would save up to {0} of the loop, "
                     "{1} of measured loop time (rank {2} by potential gain, "
                     "{3} by share)",
                     pct(1 - *Sat[DL1]), pct(*L.DL1Gain), L.RankByGain,
                     L.RankByShare)
                 .str();
        if (L.ProgramShare)
          S += formatv("; the program would run {0:F2}x faster (Amdahl, "
                       "program share {1})",
                       1 / (1 - *L.ProgramShare * (1 - *Sat[DL1])),
                       pct(*L.ProgramShare))
                   .str();
      } else {
        S += ": nothing to gain from data locality";
      }
      L.Diagnosis.push_back(S);
    }
    if (Sat[NO_DIV] && !TooShort) {
      L.DivGain = std::max(0.0, 1 - *Sat[NO_DIV]);
      bool Paired = !B[NO_DIV].empty();
      Classified C = classifyReplicates(
          {*Sat[NO_DIV]}, {B[NO_DIV]},
          [&](const double *X) {
            return std::string(1 - X[0] >= T.DivCost ? "costly" : "cheap");
          },
          T.Margin);
      if (!Confident(C, Paired))
        L.Diagnosis.push_back(
            formatv("divisions/square roots: Sat(NO_DIV)={0}: whether they "
                    "cost at least {1} is inconclusive ({2})",
                    interval(*L.SatInterval[NO_DIV]), pct(T.DivCost),
                    describeSplit(C))
                .str());
      else if (C.Label == "costly") {
        std::string S =
            formatv("expensive instructions: divisions/square roots cost {0} "
                    "of the loop (Sat(NO_DIV)={1:F2}{2}); use reciprocals, "
                    "hoist or vectorise them",
                    pct(*L.DivGain), *Sat[NO_DIV], Conf(C, Paired))
                .str();
        if (L.ProgramShare)
          S += formatv("; without them the program would run {0:F2}x faster "
                       "(Amdahl, program share {1})",
                       1 / (1 - *L.ProgramShare * *L.DivGain),
                       pct(*L.ProgramShare))
                   .str();
        L.Diagnosis.push_back(S);
      } else
        L.Diagnosis.push_back(
            formatv("divisions/square roots cost little (Sat(NO_DIV)={0:F2})",
                    *Sat[NO_DIV])
                .str());
    }
    // A saturation against another variant (thesis 4.5.2): the point and
    // the replicates divided by the reference's, or REF's when \p Ref is
    // REF.
    auto Against = [&](unsigned V, unsigned Ref)
        -> std::pair<std::optional<double>, std::vector<double>> {
      if (!Sat[V])
        return {std::nullopt, {}};
      if (Ref == REF)
        return {Sat[V], B[V]};
      if (!Sat[Ref] || *Sat[Ref] <= 0)
        return {std::nullopt, {}};
      std::vector<double> X;
      if (B[V].size() == B[Ref].size())
        for (size_t I = 0; I < B[V].size(); ++I)
          X.push_back(B[Ref][I] > 0 ? B[V][I] / B[Ref][I] : B[V][I]);
      return {*Sat[V] / *Sat[Ref], X};
    };
    // A claim stands when its replicates agree and its point is not on a
    // threshold (an unpaired run has no replicates, only the point).
    auto Settled = [&](const Classified &C, bool Paired) {
      return Confident(C, Paired) && C.Label != kNearThreshold;
    };
    auto SatText = [&](unsigned V) {
      return SatI[V] ? interval(*SatI[V]) : formatv("{0:F2}", *Sat[V]).str();
    };
    // "costly" when removing the target gains at least \p Cost.
    auto CostClaim = [&](double S, const std::vector<double> &Reps,
                         double Cost) {
      return classifyReplicates(
          {S}, {Reps},
          [&](const double *X) {
            return std::string(1 - X[0] >= Cost ? "costly" : "cheap");
          },
          T.Margin);
    };
    // Stores (thesis 5.12, Table 5.2): NO_STORE deletes them, S2L keeps
    // their reads; S2L vs REF is what writing costs (coherence traffic,
    // write-allocate, store-buffer pressure).
    if (Sat[NO_STORE] && !TooShort) {
      bool Paired = !B[NO_STORE].empty();
      Classified C = CostClaim(*Sat[NO_STORE], B[NO_STORE], T.StoreCost);
      L.Diagnosis.push_back(
          !Settled(C, Paired)
              ? formatv("stores: Sat(NO_STORE)={0}: whether they cost at "
                        "least {1} is inconclusive ({2})",
                        SatText(NO_STORE), pct(T.StoreCost), describeSplit(C))
                    .str()
          : C.Label == "costly"
              ? formatv(
                    "stores cost {0} of this loop (Sat(NO_STORE)={1:F2}{2})",
                    pct(std::max(0.0, 1 - *Sat[NO_STORE])), *Sat[NO_STORE],
                    Conf(C, Paired))
                    .str()
              : formatv("stores cost little (Sat(NO_STORE)={0:F2}{1})",
                        *Sat[NO_STORE], Conf(C, Paired))
                    .str());
    }
    if (Sat[S2L] && !TooShort) {
      bool Paired = !B[S2L].empty();
      Classified C = CostClaim(*Sat[S2L], B[S2L], T.StoreCost);
      L.Diagnosis.push_back(
          !Settled(C, Paired)
              ? formatv("store writes (coherence, write-allocate): "
                        "Sat(S2L)={0}: whether they cost at least {1} is "
                        "inconclusive ({2})",
                        SatText(S2L), pct(T.StoreCost), describeSplit(C))
                    .str()
          : C.Label == "costly"
              ? formatv("store writes cost {0} of this loop: coherence and "
                        "write-allocate traffic (stores as loads: "
                        "Sat(S2L)={1:F2}{2}); in a parallel loop, look for "
                        "threads writing one cache line (false sharing)",
                        pct(std::max(0.0, 1 - *Sat[S2L])), *Sat[S2L],
                        Conf(C, Paired))
                    .str()
              : formatv("store writes cost little: coherence none "
                        "(Sat(S2L)={0:F2}{1})",
                        *Sat[S2L], Conf(C, Paired))
                    .str());
    }
    // NO_RED and PREFETCH turn stores into loads: S2L is their reference
    // when the loop stores (thesis 4.5.2), so they measure only their own
    // change.
    unsigned StoreRef = Sat[S2L] ? S2L : REF;
    bool StoresUnknown =
        !Sat[S2L] && !L.Unavailable.count("S2L") && !L.Variants[S2L];
    auto RefName = [&](unsigned Ref) {
      return Ref == REF ? std::string()
                        : formatv(" against {0}", variantName(Ref)).str();
    };
    if (Sat[NO_RED] && !TooShort) {
      auto [S, Reps] = Against(NO_RED, StoreRef);
      if (S) {
        bool Paired = !Reps.empty();
        Classified C = CostClaim(*S, Reps, T.RedCost);
        std::string Txt =
            !Settled(C, Paired)
                ? formatv("reduction: Sat(NO_RED)={0:F2}{1}: whether the "
                          "chain costs at least {2} is inconclusive ({3})",
                          *S, RefName(StoreRef), pct(T.RedCost),
                          describeSplit(C))
                      .str()
            : C.Label == "costly"
                ? formatv("the reduction chain costs {0} of this loop "
                          "(Sat(NO_RED)={1:F2}{2}{3}): its latency bounds "
                          "the loop; use several partial accumulators "
                          "(unroll, or allow reassociation)",
                          pct(std::max(0.0, 1 - *S)), *S, RefName(StoreRef),
                          Conf(C, Paired))
                      .str()
                : formatv("the reduction chain costs little "
                          "(Sat(NO_RED)={0:F2}{1}{2})",
                          *S, RefName(StoreRef), Conf(C, Paired))
                      .str();
        if (StoresUnknown)
          Txt += "; S2L was not measured: if the loop stores, turning its "
                 "stores into loads counts too";
        L.Diagnosis.push_back(Txt);
      }
    }
    if (Sat[PREFETCH] && !TooShort) {
      auto [S, Reps] = Against(PREFETCH, StoreRef);
      if (S) {
        bool Paired = !Reps.empty();
        // A slowdown of at least PortSlowdown: the L1 ports were busy.
        Classified C = classifyReplicates(
            {*S}, {Reps},
            [&](const double *X) {
              return std::string(X[0] - 1 >= T.PortSlowdown ? "busy"
                                                            : "headroom");
            },
            T.Margin);
        L.Diagnosis.push_back(
            !Settled(C, Paired)
                ? formatv("load ports: Sat(PREFETCH)={0:F2}{1}: whether one "
                          "more L1 access per access slows the loop is "
                          "inconclusive ({2})",
                          *S, RefName(StoreRef), describeSplit(C))
                      .str()
            : C.Label == "busy"
                ? formatv("load ports near saturation: one more L1 access "
                          "per memory access slows the loop by {0} "
                          "(Sat(PREFETCH)={1:F2}{2}{3}); fewer or wider "
                          "accesses would pay",
                          pct(*S - 1), *S, RefName(StoreRef), Conf(C, Paired))
                      .str()
                : formatv(
                      "load ports have headroom: one more L1 access per "
                      "memory access costs {0} (Sat(PREFETCH)={1:F2}{2}{3})",
                      pct(std::max(0.0, *S - 1)), *S, RefName(StoreRef),
                      Conf(C, Paired))
                      .str());
      }
    }
    threadAnalysis(L, T, TooShort);
    groupAnalysis(L, Sat, B, T, TooShort);
    if (Sat[CTRL] && !TooShort) {
      L.CtrlShare = *Sat[CTRL];
      std::string S = formatv("loop overhead: control instructions alone "
                              "take {0} of a call (Sat(CTRL)={1:F2})",
                              pct(std::min(1.0, *Sat[CTRL])), *Sat[CTRL])
                          .str();
      if (*Sat[CTRL] >= T.CtrlHigh)
        S += ": the loop body does too little per iteration; unroll or "
             "vectorise";
      L.Diagnosis.push_back(S);
    }
    if (L.ProgramShareLowerBound && L.RunCalls)
      L.Warnings.push_back(
          formatv("decan's accounting costs {0:F0} cycles per call, more than "
                  "the loop's own {1:F0}: the part it cannot time weighs on "
                  "the program's time, and the program share ({2}) is a lower "
                  "bound",
                  L.overheadCycles(R.ProbeCallCycles, R.CountdownCycles) /
                      (double)L.RunCalls,
                  L.TimeCycles / (double)L.RunCalls,
                  L.ProgramShare ? pct(*L.ProgramShare) : "-")
              .str());
    if (TooShort && L.ProgramShare && !L.ProgramShareLowerBound) {
      L.ProgramShareApproximate = true;
      L.Warnings.push_back(
          formatv("the program share ({0}) is approximate: calls of {1:F0} "
                  "cycles are timed alone between the probes, without the "
                  "overlap with the code around them that they have in the "
                  "program (their cost there may be lower or higher)",
                  pct(*L.ProgramShare), MeanCall)
              .str());
    }
    checkRun(L, T);
    checkCoherence(L, R.ProbeCycles, TC);
    for (const auto &KV : L.Unavailable) {
      // "empty": the variant would equal REF (e.g. no division for
      // NO_DIV); a fact about the loop, not a measurement problem.
      if (KV.second == "empty") {
        // GROUPING's copies past the loop's groups: the groups line says it.
        std::optional<unsigned> V = parseVariant(KV.first);
        if (V && *V >= DL1_G0 && *V <= NO_G3)
          continue;
        auto W = L.UnavailableWhy.find(KV.first);
        L.Diagnosis.push_back(
            formatv("{0} not built: {1}", KV.first,
                    W == L.UnavailableWhy.end() || W->second.empty()
                        ? std::string("nothing to remove in this loop")
                        : W->second)
                .str());
      } else if (KV.second == "runaway") {
        auto C = L.CappedCalls.find(KV.first);
        L.Warnings.push_back(
            formatv("{0} {1}: not measured ({2} capped)", KV.first,
                    L.UnavailableWhy[KV.first],
                    plural(C == L.CappedCalls.end() ? 0 : C->second, "call"))
                .str());
      } else {
        auto W = L.UnavailableWhy.find(KV.first);
        L.Warnings.push_back(
            formatv("{0} not measured: {1}{2}", KV.first, KV.second,
                    W == L.UnavailableWhy.end() ? "" : " (" + W->second + ")")
                .str());
      }
    }
    for (const auto &[V, N] : L.CappedCalls)
      if (auto U = L.Unavailable.find(V);
          U == L.Unavailable.end() || U->second != "runaway")
        L.Warnings.push_back(
            formatv("{0}: {1} past the iteration cap on inputs longer than "
                    "REF's so far: not samples",
                    V, plural(N, "call"))
                .str());
    for (const ProcessInfo &P : R.Processes)
      if (!P.CrashSignal.empty() && P.CrashLoop == L.Id &&
          P.Status != "interrupted")
        L.Warnings.push_back(
            formatv("{0} crashed ({1}) in {2}: data stop at the crash",
                    P.CrashRerunAfter.empty()
                        ? "variant " +
                              (P.CrashVariant.empty() ? "?" : P.CrashVariant)
                        : "the original loop run after variant " +
                              P.CrashRerunAfter,
                    P.CrashSignal,
                    P.Rank ? formatv("rank {0}", *P.Rank).str()
                           : formatv("pid {0}", P.Pid).str())
                .str());
  }
  checkLoopStructure(R, T);
  // More threads and ranks than logical CPUs: they take turns on cores.
  int64_t Cpus = R.Machine.getInteger("logical_cpus").value_or(0);
  // Runs follow each other: the threads of one run share the machine.
  std::map<unsigned, unsigned> PerRun;
  for (const ProcessInfo &P : R.Processes)
    PerRun[P.Run] += std::max(1u, P.Threads);
  unsigned Threads = 0;
  for (const auto &KV : PerRun)
    Threads = std::max(Threads, KV.second);
  std::string W = formatv("{0} threads/ranks ran on {1} logical CPUs: they "
                          "took turns on the cores, so calls include waiting "
                          "(pairs are formed within each thread)",
                          Threads, Cpus)
                      .str();
  if (Cpus > 0 && Threads > Cpus &&
      std::find(R.Warnings.begin(), R.Warnings.end(), W) == R.Warnings.end())
    R.Warnings.insert(R.Warnings.begin(), W);
}

void checkLoopStructure(Report &R, const Thresholds &T) {
  std::map<std::tuple<std::string, std::string, unsigned>,
           std::vector<LoopReport *>>
      Groups;
  for (LoopReport &L : R.Loops)
    if (L.Line && L.TimeCycles > 0 && !L.isRegion())
      Groups[{L.Function, L.File, L.Line}].push_back(&L);
  for (auto &[Key, Ls] : Groups) {
    if (Ls.size() < 2)
      continue;
    LoopReport *Main = Ls.front();
    double Total = 0;
    for (LoopReport *L : Ls) {
      Total += L->TimeCycles;
      if (L->TimeCycles > Main->TimeCycles)
        Main = L;
    }
    double Tail = (Total - Main->TimeCycles) / Total;
    if (Tail > T.MaxTailShare) {
      std::string Others;
      for (LoopReport *L : Ls)
        if (L != Main)
          Others += (Others.empty() ? "" : ", ") + L->Id;
      Main->Diagnosis.push_back(
          formatv("loop structure: {0} ({1}) take {2} of this source loop's "
                  "time; the unroll or vector factor may be too high for its "
                  "trip count (thesis 5.4.3)",
                  Others,
                  Ls.size() == 2 ? "peel/remainder loop"
                                 : "peel/remainder loops",
                  pct(Tail))
              .str());
    }
  }
}

std::vector<const LoopReport *> rankedLoops(const Report &R) {
  std::vector<const LoopReport *> Out;
  for (const LoopReport &L : R.Loops)
    Out.push_back(&L);
  std::stable_sort(
      Out.begin(), Out.end(), [](const LoopReport *A, const LoopReport *B) {
        // Loops first; regions after, by program share.
        if (A->isRegion() != B->isRegion())
          return B->isRegion();
        if (A->isRegion())
          return A->ProgramShare.value_or(0) > B->ProgramShare.value_or(0);
        if (A->DL1Gain.value_or(-1) != B->DL1Gain.value_or(-1))
          return A->DL1Gain.value_or(-1) > B->DL1Gain.value_or(-1);
        return A->Share > B->Share;
      });
  return Out;
}

} // namespace decan::tool
