//===- Compare.cpp - Compare two analysed reports -------------------------===//
//
// Part of decan. See decan/Tool/Compare.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Compare.h"
#include "decan/Tool/Render.h"

#include "decan/Tool/LoopMatching.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Tune.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace decan::tool {

namespace {

/// "file.c:12:5 in f" (+ " inlined into g"), or the id.
std::string where(const LoopReport &L) {
  if (L.Source.empty())
    return L.Id;
  SourceParts S(L.Source);
  // Positions carry the directory the compiler saw; the file name is
  // enough to read the table.
  StringRef File = S.Pos;
  for (int I = 0; I < 2; ++I)
    File = File.rsplit(':').first;
  std::string W =
      (sys::path::filename(File) + S.Pos.drop_front(File.size())).str() +
      (S.Origin.empty() ? "" : " in " + demangleSymbol(S.Origin));
  if (!S.Inlined.empty()) {
    StringRef Into = S.Inlined.rsplit('<').second;
    if (Into.empty())
      Into = S.Inlined;
    W += " inlined into " + demangleSymbol(Into.split('@').first);
  }
  return W;
}

/// REF cycles per call: the median of the measured calls, else (a loop
/// called too few times for samples) the whole run's mean.
double cyclesPerCall(const LoopReport &L) {
  if (L.Variants[Variant::REF] && L.Variants[Variant::REF]->Cycles.Median > 0)
    return L.Variants[Variant::REF]->Cycles.Median;
  return L.RunCalls && L.RunCycles > 0 ? L.RunCycles / L.RunCalls : 0;
}

/// Trips per call, as cyclesPerCall() chose its source; 0 unknown.
double tripsPerCall(const LoopReport &L) {
  if (L.Variants[Variant::REF] && L.Variants[Variant::REF]->Cycles.Median > 0)
    return L.Variants[Variant::REF]->TripsKnown
               ? L.Variants[Variant::REF]->TripsMedian
               : 0;
  return L.RunMeanTrips.value_or(0);
}

std::optional<double> perSourceIteration(const LoopReport &L) {
  if (!L.IterationStep)
    return std::nullopt;
  const std::optional<VariantStats> &R = L.Variants[Variant::REF];
  if (R && R->Cycles.Median > 0)
    return R->TripsKnown && R->CyclesPerIter.Median > 0
               ? std::optional<double>(R->CyclesPerIter.Median /
                                       L.IterationStep)
               : std::nullopt;
  if (L.RunIterations && L.RunTripsKnown == L.RunCalls && L.RunCycles > 0)
    return L.RunCycles / L.RunIterations / L.IterationStep;
  return std::nullopt;
}

std::optional<double> share(const LoopReport &L) {
  if (L.ProgramShare)
    return L.ProgramShare;
  if (L.Share > 0)
    return L.Share;
  return std::nullopt;
}

VerdictClass bottleneck(const LoopReport &L) {
  return L.Verdict != VerdictClass::None ? L.Verdict : verdictOf(L.Streams);
}

/// The prediction: what A says the loop could reach.
void predict(const LoopReport &LA, LoopComparison &C) {
  auto Consider = [&](std::optional<double> Sat, StringRef By) {
    if (!Sat || *Sat <= 0 || *Sat >= 1)
      return;
    double P = 1 / *Sat;
    if (!C.Predicted || P > *C.Predicted) {
      C.Predicted = P;
      C.PredictedBy = By.str();
    }
  };
  Consider(LA.Saturation[Variant::DL1], "DL1");
  Consider(LA.Saturation[Variant::NO_DIV], "NO_DIV");
  if (LA.Saturation[Variant::LS] && LA.Saturation[Variant::FP])
    Consider(std::max(*LA.Saturation[Variant::LS], *LA.Saturation[Variant::FP]),
             "LS/FP overlap");
}

/// Why a loop may be in one build only: \p Own and \p Others are the loops
/// of its build and of the other one.
std::string onlyNote(const LoopReport &L, StringRef Other,
                     const std::vector<const LoopReport *> &Own,
                     const std::vector<const LoopReport *> &Others) {
  unsigned Same = 0, Written = 0;
  if (!L.Source.empty()) {
    std::string W = SourceParts(L.Source).written();
    for (const LoopReport *O : Own)
      Same += O != &L && O->Source == L.Source;
    for (const LoopReport *O : Others)
      Written += SourceParts(O->Source).written() == W;
  }
  if (Written)
    return formatv("{0} has {1} loop(s) from this source line, matched with "
                   "other copies of it: this build has more (inlined at "
                   "more call sites, or split into a vector body and a "
                   "remainder)",
                   Other, Written)
        .str();
  if (Same)
    return "another machine loop of the same source loop in this build: "
           "e.g. the scalar remainder of a vectorised or unrolled loop";
  if (L.Source.empty())
    return formatv("no source identity (built without line information, "
                   "or a rewritten binary): matched by id only; {0} has no "
                   "loop {1}",
                   Other, L.Id)
        .str();
  return formatv("{0} has no loop from this source line: not run there, or "
                 "compiled away (fully unrolled, fused, vectorised into "
                 "another loop, inlined elsewhere)",
                 Other)
      .str();
}

void comparePair(const LoopReport &LA, const LoopReport &LB, LoopComparison &C,
                 const Thresholds &T) {
  C.IdB = LB.Id;
  C.ShareB = share(LB);
  C.BottleneckB = bottleneck(LB);
  C.CyclesB = cyclesPerCall(LB);
  if (C.CyclesB <= 0 || C.CyclesA <= 0) {
    C.Verdict =
        C.CyclesA <= 0 ? CompareVerdict::NoDataInA : CompareVerdict::NoDataInB;
    return;
  }
  C.PerSourceIterA = perSourceIteration(LA);
  C.PerSourceIterB = perSourceIteration(LB);
  if (C.PerSourceIterA && C.PerSourceIterB) {
    C.Speedup = *C.PerSourceIterA / *C.PerSourceIterB;
    C.SpeedupBasis = SpeedupPer::SourceIteration;
  } else {
    C.Speedup = C.CyclesA / C.CyclesB;
    C.SpeedupBasis = SpeedupPer::Call;
  }
  if (LA.IterationStep && LB.IterationStep &&
      LA.IterationStep != LB.IterationStep)
    C.Notes.push_back(
        formatv("one iteration runs {0} source iteration(s) in A, {1} in B "
                "(vectorised or unrolled differently): compared per source "
                "iteration",
                LA.IterationStep, LB.IterationStep)
            .str());
  bool DifferentWork = false;
  if (double TA = tripsPerCall(LA), TB = tripsPerCall(LB); TA && TB) {
    double SA = TA * std::max(1u, LA.IterationStep);
    double SB = TB * std::max(1u, LB.IterationStep);
    // Beyond 5%, part of the source loop runs outside this loop in one
    // build (a vector or unrolled remainder, peeled iterations): neither
    // per call nor per source iteration is then the same work.
    double Slack = std::max(0.5, 0.05 * std::max(SA, SB));
    DifferentWork = std::abs(SA - SB) > Slack;
    if (SA != SB)
      C.Notes.push_back(
          formatv("source iterations per call differ (A {0:F1}, B "
                  "{1:F1}){2}",
                  SA, SB,
                  DifferentWork
                      ? ": part of the source loop runs outside this loop in "
                        "one build (a remainder, peeled iterations): "
                        "different work"
                  : C.SpeedupBasis == SpeedupPer::Call
                      ? ": per-call times compare different work"
                      : "")
              .str());
  }
  if (C.MatchedBy == MatchKind::SourceLocation) {
    SourceParts SA(LA.Source), SB(LB.Source);
    auto Ctx = [](const SourceParts &S) {
      std::string D = S.Inlined.empty() ? std::string("not inlined")
                                        : "inlined through " + S.Inlined.str();
      if (!S.Nest.empty())
        D += ", in loops at " + S.Nest.str();
      return D;
    };
    C.Notes.push_back("the same source loop in another context: A " + Ctx(SA) +
                      "; B " + Ctx(SB));
  }
  auto Stability = [](const LoopReport &L) {
    return L.Variants[Variant::REF] ? L.Variants[Variant::REF]->Stability : 0.0;
  };
  double Noise = std::max(T.NoiseFloor, Stability(LA) + Stability(LB));
  // A prediction within the noise promises nothing measurable: no share of
  // it can be "realized".
  if (DifferentWork) {
    C.Verdict = CompareVerdict::DifferentWork;
    return;
  }
  bool GainPredicted = C.Predicted && *C.Predicted > 1 + Noise;
  if (GainPredicted)
    C.Realized = (*C.Speedup - 1) / (*C.Predicted - 1);
  if (*C.Speedup < 1 - Noise)
    C.Verdict = CompareVerdict::Slower;
  else if (*C.Speedup <= 1 + Noise)
    C.Verdict = CompareVerdict::NoGain;
  else if (!GainPredicted)
    C.Verdict = CompareVerdict::GainNonePredicted;
  else if (*C.Speedup > *C.Predicted * (1 + Noise))
    C.Verdict = CompareVerdict::BeyondPrediction;
  else if (*C.Realized >= 0.5)
    C.Verdict = CompareVerdict::GainShowedUp;
  else
    C.Verdict = CompareVerdict::Partly;
}

} // namespace

std::vector<LoopComparison> compareReports(const Report &A, const Report &B,
                                           const Thresholds &T) {
  std::vector<const LoopReport *> As = rankedLoops(A), Bs = rankedLoops(B);
  std::map<const LoopReport *, const LoopMatch *> Pair;
  std::set<const LoopReport *> TakenB;
  std::vector<LoopMatch> Matches = matchLoops(As, Bs);
  for (const LoopMatch &M : Matches) {
    Pair[M.A] = &M;
    TakenB.insert(M.B);
  }
  std::vector<LoopComparison> Out;
  for (const LoopReport *LA : As) {
    LoopComparison C;
    C.Id = LA->Id;
    C.Where = where(*LA);
    C.ShareA = share(*LA);
    C.BottleneckA = bottleneck(*LA);
    C.CyclesA = cyclesPerCall(*LA);
    predict(*LA, C);
    auto It = Pair.find(LA);
    if (It == Pair.end()) {
      C.Verdict = CompareVerdict::OnlyInA;
      C.Notes.push_back(onlyNote(*LA, "B", As, Bs));
    } else {
      C.MatchedBy = It->second->By;
      C.MatchedHow = It->second->Why;
      comparePair(*LA, *It->second->B, C, T);
    }
    Out.push_back(std::move(C));
  }
  for (const LoopReport *LB : Bs) {
    if (TakenB.count(LB))
      continue;
    LoopComparison C;
    C.Id = LB->Id;
    C.Where = where(*LB);
    C.ShareB = share(*LB);
    C.BottleneckB = bottleneck(*LB);
    C.CyclesB = cyclesPerCall(*LB);
    C.Verdict = CompareVerdict::OnlyInB;
    C.Notes.push_back(onlyNote(*LB, "A", Bs, As));
    Out.push_back(std::move(C));
  }
  return Out;
}

void applyTunePredictions(std::vector<LoopComparison> &Cs,
                          const std::vector<TunedLoop> &Tuned,
                          const Report &A) {
  // One row per source loop carries the tune's prediction (its speedup per
  // source iteration of the whole loop): the widest of A's machine loops,
  // the body (matched body with body); a remainder's row is no second
  // realization of it.
  std::map<std::string, LoopComparison *> Carrier;
  for (LoopComparison &C : Cs) {
    const LoopReport *LA = A.findLoop(C.Id);
    if (!LA || LA->Source.empty() || C.Verdict == CompareVerdict::OnlyInB ||
        C.CyclesA <= 0)
      continue;
    LoopComparison *&Row = Carrier[SourceParts(LA->Source).Pos.str()];
    const LoopReport *Held = Row ? A.findLoop(Row->Id) : nullptr;
    if (!Held || LA->IterationStep > Held->IterationStep ||
        (LA->IterationStep == Held->IterationStep &&
         LA->TimeCycles > Held->TimeCycles))
      Row = &C;
  }
  for (auto &[Pos, Row] : Carrier) {
    LoopComparison &C = *Row;
    for (const TunedLoop &T : Tuned) {
      if (T.Choice == "default" || T.Position != Pos)
        continue;
      C.Predicted = T.Predicted;
      C.PredictedBy = "tune " + T.Choice;
      C.Realized.reset();
      if (C.Speedup && T.Predicted > 1) {
        C.Realized = (*C.Speedup - 1) / (T.Predicted - 1);
        // The interval already allows for code layout (the default's
        // twin, Tune.cpp): no extra tolerance.
        bool Within =
            *C.Speedup >= T.PredictedLo && *C.Speedup <= T.PredictedHi;
        C.Notes.push_back(
            formatv("decan tune predicted {0:F2}x [{1:F2}, {2:F2}] for {3}; "
                    "B realized {4:F2}x: {5}",
                    T.Predicted, T.PredictedLo, T.PredictedHi, T.Choice,
                    *C.Speedup,
                    Within                       ? "within the interval"
                    : *C.Speedup < T.PredictedLo ? "below the interval"
                                                 : "above the interval")
                .str());
        if (C.Verdict != CompareVerdict::DifferentWork &&
            C.Verdict != CompareVerdict::Slower)
          C.Verdict = Within || *C.Speedup > T.PredictedHi
                          ? CompareVerdict::GainShowedUp
                      : *C.Realized >= 0.5 ? CompareVerdict::Partly
                                           : CompareVerdict::NoGain;
      }
    }
  }
}

static std::string pct(std::optional<double> X) {
  return X ? formatv("{0:F1}%", *X * 100).str() : std::string("-");
}

static std::string orDash(StringRef S) { return S.empty() ? "-" : S.str(); }

void printComparison(raw_ostream &OS, const std::vector<LoopComparison> &Cs) {
  OS << formatv("{0,-36} {1,12} {2,12} {3,8} {4,18} {5,9}  {6}\n", "loop",
                "A cyc/call", "B cyc/call", "speedup", "A predicted",
                "realized", "verdict");
  for (const LoopComparison &C : Cs) {
    std::string Pred =
        C.Predicted
            ? formatv("{0:F2}x ({1})", *C.Predicted, C.PredictedBy).str()
            : "-";
    bool InA = C.Verdict != CompareVerdict::OnlyInB;
    OS << formatv("{0,-36} {1,12} {2,12} {3,8} {4,18} {5,9}  {6}\n", C.Where,
                  InA ? formatv("{0:F0}", C.CyclesA).str() : "-",
                  C.CyclesB > 0 ? formatv("{0:F0}", C.CyclesB).str() : "-",
                  C.Speedup ? formatv("{0:F2}x", *C.Speedup).str() : "-",
                  InA ? Pred : "-",
                  C.Realized ? formatv("{0:F0}%", *C.Realized * 100).str()
                             : "-",
                  nameOf(C.Verdict));
    if (!C.IdB.empty()) {
      OS << formatv("  A {0} -> B {1} ({2})", C.Id, C.IdB,
                    C.MatchedHow.empty() ? ("by " + nameOf(C.MatchedBy)).str()
                                         : C.MatchedHow);
      if (C.PerSourceIterA && C.PerSourceIterB)
        OS << formatv("; cycles per source iteration {0:F2} -> {1:F2}",
                      *C.PerSourceIterA, *C.PerSourceIterB);
      OS << formatv("; program share {0} -> {1}; bottleneck {2} -> {3}\n",
                    pct(C.ShareA), pct(C.ShareB), orDash(nameOf(C.BottleneckA)),
                    orDash(nameOf(C.BottleneckB)));
    } else {
      OS << formatv("  {0} {1}; program share {2}; bottleneck {3}\n",
                    InA ? "A" : "B", C.Id, pct(InA ? C.ShareA : C.ShareB),
                    orDash(nameOf(InA ? C.BottleneckA : C.BottleneckB)));
    }
    for (const std::string &N : C.Notes)
      OS << "  note: " << N << "\n";
  }
}

json::Value comparisonJSON(const std::vector<LoopComparison> &Cs) {
  auto Opt = [](std::optional<double> X) {
    return X ? json::Value(*X) : json::Value(nullptr);
  };
  json::Array Loops;
  for (const LoopComparison &C : Cs) {
    json::Array Notes;
    for (const std::string &N : C.Notes)
      Notes.push_back(N);
    bool OnlyB = C.Verdict == CompareVerdict::OnlyInB;
    Loops.push_back(json::Object{
        {"where", C.Where},
        {"id_a", OnlyB ? json::Value(nullptr) : C.Id},
        {"id_b", OnlyB           ? json::Value(C.Id)
                 : C.IdB.empty() ? json::Value(nullptr)
                                 : json::Value(C.IdB)},
        {"matched_by", nameOf(C.MatchedBy)},
        {"match_evidence", C.MatchedHow},
        {"cycles_per_call_a", C.CyclesA > 0 ? json::Value(C.CyclesA) : nullptr},
        {"cycles_per_call_b", C.CyclesB > 0 ? json::Value(C.CyclesB) : nullptr},
        {"cycles_per_source_iteration_a", Opt(C.PerSourceIterA)},
        {"cycles_per_source_iteration_b", Opt(C.PerSourceIterB)},
        {"speedup", Opt(C.Speedup)},
        {"speedup_basis", nameOf(C.SpeedupBasis)},
        {"program_share_a", Opt(C.ShareA)},
        {"program_share_b", Opt(C.ShareB)},
        {"bottleneck_a", nameOf(C.BottleneckA)},
        {"bottleneck_b", nameOf(C.BottleneckB)},
        {"predicted", Opt(C.Predicted)},
        {"predicted_by", C.PredictedBy},
        {"realized", Opt(C.Realized)},
        {"verdict", nameOf(C.Verdict)},
        {"notes", std::move(Notes)}});
  }
  return json::Object{{"tool", "decan"},
                      {"format", "decan-compare-1"},
                      {"loops", std::move(Loops)}};
}

static std::string esc(StringRef S) { return htmlEscape(S); }

void writeComparisonHTML(raw_ostream &OS, const std::vector<LoopComparison> &Cs,
                         StringRef NameA, StringRef NameB) {
  OS << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        "<title>decan compare</title><style>"
        "body{font-family:sans-serif;margin:1.5em}"
        "table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}"
        "td.l,th.l{text-align:left}"
        ".gain{background:#dfd}.slower{background:#fdd}.only{color:#777}"
        ".bar{display:inline-block;height:9px;background:#69c}"
        ".note{font-size:90%;color:#555;text-align:left}"
        "</style></head><body>\n";
  OS << "<h1>decan compare</h1>\n<p>A: " << esc(NameA)
     << "<br>B: " << esc(NameB)
     << "</p>\n<p>Loops matched by source identity (function, "
        "file:line:column, nest, inlined-at chain); loops an edit moved, "
        "fuzzily (function, nest position, accesses; noted). Speedup = A's "
        "time / B's, "
        "per source iteration where both builds know it.</p>\n";
  OS << "<table><tr><th class=l>loop</th><th class=l>ids</th>"
        "<th>A cyc/call</th><th>B cyc/call</th><th>A cyc/src&nbsp;it</th>"
        "<th>B cyc/src&nbsp;it</th><th>speedup</th><th class=l>share A "
        "&rarr; B</th><th class=l>bottleneck A &rarr; B</th>"
        "<th>A predicted</th><th>realized</th><th class=l>verdict</th></tr>\n";
  auto Num = [](std::optional<double> X, const char *Fmt) {
    return X ? formatv(Fmt, *X).str() : std::string("-");
  };
  auto Bar = [](std::optional<double> X) {
    return X ? formatv("<span class=bar style=\"width:{0}px\"></span> {1:F1}%",
                       (int)std::lround(*X * 100), *X * 100)
                   .str()
             : std::string("-");
  };
  for (const LoopComparison &C : Cs) {
    bool OnlyB = C.Verdict == CompareVerdict::OnlyInB,
         OnlyA = C.Verdict == CompareVerdict::OnlyInA;
    StringRef Class = (OnlyA || OnlyB)                      ? "only"
                      : C.Verdict == CompareVerdict::Slower ? "slower"
                      : isGain(C.Verdict)                   ? "gain"
                                                            : "";
    OS << "<tr class=\"" << Class << "\"><td class=l>" << esc(C.Where)
       << "</td><td class=l>"
       << esc(OnlyB           ? "B " + C.Id
              : C.IdB.empty() ? "A " + C.Id
                              : C.Id + " / " + C.IdB)
       << "</td><td>" << (OnlyB ? "-" : Num(C.CyclesA, "{0:F0}")) << "</td><td>"
       << (C.CyclesB > 0 ? Num(C.CyclesB, "{0:F0}") : "-") << "</td><td>"
       << Num(C.PerSourceIterA, "{0:F2}") << "</td><td>"
       << Num(C.PerSourceIterB, "{0:F2}") << "</td><td>"
       << Num(C.Speedup, "{0:F2}x") << "</td><td class=l>" << Bar(C.ShareA)
       << "<br>" << Bar(C.ShareB) << "</td><td class=l>"
       << esc(orDash(nameOf(C.BottleneckA))) << " &rarr; "
       << esc(orDash(nameOf(C.BottleneckB))) << "</td><td>"
       << (C.Predicted
               ? esc(formatv("{0:F2}x ({1})", *C.Predicted, C.PredictedBy)
                         .str())
               : "-")
       << "</td><td>"
       << Num(C.Realized ? std::optional<double>(*C.Realized * 100)
                         : std::nullopt,
              "{0:F0}%")
       << "</td><td class=l>" << esc(nameOf(C.Verdict)) << "</td></tr>\n";
    if (!C.Notes.empty() || !C.MatchedHow.empty()) {
      OS << "<tr><td></td><td colspan=11 class=note>";
      if (!C.MatchedHow.empty())
        OS << esc(C.MatchedHow) << "<br>";
      for (const std::string &N : C.Notes)
        OS << "note: " << esc(N) << "<br>";
      OS << "</td></tr>\n";
    }
  }
  OS << "</table>\n</body></html>\n";
}

} // namespace decan::tool
