//===- Feedback.cpp - A report fed into the next build --------------------===//
//
// Part of decan. See decan/Tool/Feedback.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Feedback.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;

namespace decan::tool {

std::optional<double> readHotPercent(StringRef Value) {
  double P;
  StringRef Number = Value.trim();
  Number.consume_back("%");
  if (Number.empty() || Number.getAsDouble(P))
    return std::nullopt;
  return P;
}

Expected<HotSpec> parseHotSpec(StringRef Value) {
  HotSpec S;
  S.Report = Value.str();
  auto [File, Pct] = Value.rsplit(':');
  if (!File.empty() && !Pct.empty() && !sys::fs::exists(Value)) {
    std::optional<double> P = readHotPercent(Pct);
    if (!P || !(*P > 0 && *P <= 100))
      return createStringError("bad --hot value '%s': expected "
                               "REPORT.json[:PERCENT], PERCENT in (0, 100]",
                               Value.str().c_str());
    S.Report = File.str();
    S.Percent = *P;
  }
  return S;
}

std::string hotEntry(const LoopReport &L) {
  if (!L.Source.empty()) // "ORIGIN|FILE:LINE:COL|..."
    return StringRef(L.Source).split('|').second.split('|').first.str();
  if (!L.File.empty() && L.Line)
    return L.File + ":" + std::to_string(L.Line);
  return L.Id;
}

HotSelection selectHotLoops(const Report &R, double Percent,
                            uint64_t MinCalls) {
  std::vector<const LoopReport *> Ls;
  for (const LoopReport &L : R.Loops)
    if (L.TimeCycles > 0 && L.RunCalls >= MinCalls)
      Ls.push_back(&L);
  // Shares of the measured loops' time: the rest of the program's time
  // (code outside innermost loops: an interpreter's dispatch) is not
  // any loop's to cover.
  auto Share = [](const LoopReport *L) { return L->Share; };
  std::stable_sort(Ls.begin(), Ls.end(),
                   [&](const LoopReport *A, const LoopReport *B) {
                     return Share(A) > Share(B);
                   });
  HotSelection S;
  for (const LoopReport *L : Ls) {
    if (S.Covered * 100 >= Percent)
      break;
    std::string Entry = hotEntry(*L);
    std::string Position = Entry == L->Id ? "" : Entry;
    if (!is_contained(S.Entries, Entry))
      S.Entries.push_back(Entry);
    S.Instances.push_back(Position.empty() ? L->Id : L->Id + "@" + Position);
    S.ByIdOnly += Position.empty();
    S.Loops.push_back(L->Id);
    S.Covered += Share(L);
    S.ProgramCovered += L->ProgramShare.value_or(0);
  }
  return S;
}

std::vector<TripCount> measuredTripCounts(const Report &R) {
  struct Context {
    double Iterations = 0;
    uint64_t Calls = 0;
  };
  // Position -> the sampled calls' trip range of its most-called loop.
  struct Range {
    uint64_t Calls = 0, Min = 0, Max = 0;
  };
  std::map<std::string, Range> Ranges;
  // Position -> full identity (inlining context) -> its machine loops.
  std::map<std::string, std::map<std::string, Context>> ByPosition;
  for (const LoopReport &L : R.Loops) {
    if (L.Source.empty() || !L.RunCalls || !L.RunMeanTrips)
      continue;
    std::string Pos =
        StringRef(L.Source).split('|').second.split('|').first.str();
    Context &C = ByPosition[Pos][L.Source];
    C.Iterations +=
        *L.RunMeanTrips * std::max(1u, L.IterationStep) * double(L.RunCalls);
    C.Calls = std::max(C.Calls, L.RunCalls);
    const std::optional<VariantStats> &Ref = L.Variants[Variant::REF];
    Range &Rg = Ranges[Pos];
    if (Ref && Ref->TripsKnown && Ref->Calls > Rg.Calls) {
      unsigned Step = std::max(1u, L.IterationStep);
      Rg = {Ref->Calls, Ref->TripsMin * Step, Ref->TripsMax * Step};
    }
  }
  std::vector<TripCount> Out;
  for (auto &[Pos, Contexts] : ByPosition) {
    double Iterations = 0;
    uint64_t Calls = 0;
    for (auto &[Key, C] : Contexts) {
      Iterations += C.Iterations;
      Calls += C.Calls;
    }
    if (!Calls || Iterations <= 0)
      continue;
    uint64_t Trips = std::max<uint64_t>(1, std::llround(Iterations / Calls));
    TripCount T{Pos, Trips, Calls};
    const Range &Rg = Ranges[Pos];
    T.MinTrips = Rg.Min;
    T.MaxTrips = Rg.Max;
    T.Wide = Rg.Min && Rg.Max >= 4 * Rg.Min && Rg.Max - Rg.Min >= 8;
    Out.push_back(T);
  }
  return Out;
}

} // namespace decan::tool
