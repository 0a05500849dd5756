//===- Analysis.cpp - Differential analyses of a report -------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Analysis.h"

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

void checkCoherence(LoopReport &L, double ProbeCycles, unsigned RepsWanted,
                    const Thresholds &T) {
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
    else if (RepsWanted && S.Calls < RepsWanted)
      Warn(formatv("{0}: {1} measured calls, fewer than the {2} asked", N,
                   S.Calls, RepsWanted)
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
    if (V == REF || !Ref)
      continue;
    if (auto Sat = saturation(L, V)) {
      double Noise = std::max(T.NoiseFloor, Ref->Stability + S.Stability);
      if (*Sat > 1 + Noise)
        Warn(formatv("{0} is slower than REF beyond noise (Sat {1:F2} > "
                     "{2:F2}): the variant adds cost (layout, a new "
                     "dependence, see thesis 6.5); its saturation is no "
                     "bound",
                     N, *Sat, 1 + Noise)
                 .str());
    }
    if (Ref->TripsKnown && S.TripsKnown &&
        std::fabs(Ref->TripsMedian - S.TripsMedian) >
            0.005 * std::max(Ref->TripsMedian, 1.0))
      Warn(formatv("{0}: trip counts differ from REF (median {1} vs {2}): "
                   "the variant changed the control flow",
                   N, S.TripsMedian, Ref->TripsMedian)
               .str());
  }
}

void analyse(Report &R, const Thresholds &T) {
  unsigned Reps = 0;
  if (auto N = R.Config.getInteger("reps"))
    Reps = static_cast<unsigned>(*N);
  Thresholds TC = T;
  if (R.Config.getString("mode") == "instance") {
    // One call per variant is what instance mode measures, by design.
    Reps = 0;
    TC.MinCalls = 1;
  }
  double Total = 0;
  for (const LoopReport &L : R.Loops)
    Total += L.TimeCycles;
  for (LoopReport &L : R.Loops) {
    if (Total > 0)
      L.Share = L.TimeCycles / Total;
    for (unsigned V = 0; V < NumVariants; ++V)
      L.Saturation[V] = saturation(L, V);
    L.Diagnosis.clear();
    L.Warnings.clear();
    L.Streams.clear();
    L.MemoryCpu.clear();
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

  for (LoopReport &L : R.Loops) {
    const auto &Sat = L.Saturation;
    if (Sat[LS] && Sat[FP]) {
      StreamsClass C = classifyStreams(*Sat[LS], *Sat[FP], T);
      L.Streams = streamsClassName(C).str();
      L.Diagnosis.push_back(explainStreams(C, *Sat[LS], *Sat[FP], T));
    }
    if (Sat[LS] && Sat[DL1]) {
      StreamsClass C = classifyMemoryCpu(*Sat[LS], *Sat[DL1], T);
      L.MemoryCpu = memoryCpuName(C).str();
      static const char *Why[] = {
          "both sides saturate: memory and CPU work overlap, both need work",
          "the memory subsystem bounds the loop; CPU-side work is hidden",
          "the CPU side (the loop with ideal memory) bounds it; memory "
          "accesses are hidden",
          "memory and CPU work overlap poorly: improving either side pays"};
      L.Diagnosis.push_back(formatv("memory vs CPU (PAMDA, thesis 5.4.2): "
                                    "{0} (Sat(LS)={1:F2}, Sat(DL1)={2:F2}): "
                                    "{3}",
                                    L.MemoryCpu, *Sat[LS], *Sat[DL1],
                                    Why[static_cast<int>(C)])
                                .str());
    }
    if (Sat[DL1]) {
      std::string S = formatv("DL1: Sat(DL1)={0:F2}, data in {1}", *Sat[DL1],
                              dataLocation(*Sat[DL1], T))
                          .str();
      if (*Sat[DL1] < T.DL1InL1)
        S += formatv("; L1-resident data would save up to {0} of the loop, "
                     "{1} of measured loop time (rank {2} by potential gain, "
                     "{3} by share)",
                     pct(1 - *Sat[DL1]), pct(*L.DL1Gain), L.RankByGain,
                     L.RankByShare)
                 .str();
      else
        S += ": nothing to gain from data locality";
      L.Diagnosis.push_back(S);
    }
    if (Sat[NO_DIV]) {
      L.DivGain = std::max(0.0, 1 - *Sat[NO_DIV]);
      if (*L.DivGain >= T.DivCost)
        L.Diagnosis.push_back(
            formatv("expensive instructions: divisions/square roots cost {0} "
                    "of the loop (Sat(NO_DIV)={1:F2}); use reciprocals, "
                    "hoist or vectorise them",
                    pct(*L.DivGain), *Sat[NO_DIV])
                .str());
      else
        L.Diagnosis.push_back(
            formatv("divisions/square roots cost little (Sat(NO_DIV)={0:F2})",
                    *Sat[NO_DIV])
                .str());
    }
    if (Sat[CTRL]) {
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
    checkCoherence(L, R.ProbeCycles, Reps, TC);
    for (const auto &KV : L.Unavailable) {
      // "empty": the variant would equal REF (e.g. no division for
      // NO_DIV); a fact about the loop, not a measurement problem.
      if (KV.second == "empty")
        L.Diagnosis.push_back(
            formatv("{0} not built: nothing to remove in this loop", KV.first)
                .str());
      else
        L.Warnings.push_back(
            formatv("{0} not measured: {1}", KV.first, KV.second).str());
    }
    for (const ProcessInfo &P : R.Processes)
      if (!P.CrashSignal.empty() && P.CrashLoop == L.Id)
        L.Warnings.push_back(
            formatv("variant {0} crashed ({1}) in {2}: data stop at the "
                    "crash",
                    P.CrashVariant.empty() ? "?" : P.CrashVariant,
                    P.CrashSignal,
                    P.Rank ? formatv("rank {0}", *P.Rank).str()
                           : formatv("pid {0}", P.Pid).str())
                .str());
  }
  checkLoopStructure(R, T);
}

void checkLoopStructure(Report &R, const Thresholds &T) {
  std::map<std::tuple<std::string, std::string, unsigned>,
           std::vector<LoopReport *>>
      Groups;
  for (LoopReport &L : R.Loops)
    if (L.Line && L.TimeCycles > 0)
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
  std::stable_sort(Out.begin(), Out.end(),
                   [](const LoopReport *A, const LoopReport *B) {
                     if (A->DL1Gain.value_or(-1) != B->DL1Gain.value_or(-1))
                       return A->DL1Gain.value_or(-1) > B->DL1Gain.value_or(-1);
                     return A->Share > B->Share;
                   });
  return Out;
}

} // namespace decan::tool
