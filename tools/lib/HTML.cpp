//===- HTML.cpp - The HTML report and its SVG charts ----------------------===//
//
// Part of decan. See decan/Tool/Render.h: the self-contained HTML page of
// one report or of a sweep (inline SVG bar charts and curves, no network).
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/VariantTable.h"
#include "decan/Tool/Analysis.h"
#include "decan/Tool/Listings.h"
#include "decan/Tool/Render.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace decan::tool {

Expected<Sweep> parseSweep(StringRef Spec, size_t NumRuns) {
  auto [Name, List] = Spec.split('=');
  if (Name.empty() || List.empty())
    return createStringError("--sweep-param wants NAME=V1,V2,... (got '%s')",
                             Spec.str().c_str());
  Sweep S;
  S.Param = Name.str();
  SmallVector<StringRef, 8> Parts;
  List.split(Parts, ',', -1, false);
  for (StringRef P : Parts)
    S.Labels.push_back(P.trim().str());
  if (S.Labels.size() != NumRuns)
    return createStringError("--sweep-param has %zu values for %zu reports",
                             S.Labels.size(), NumRuns);
  S.Numeric = true;
  for (const std::string &L : S.Labels) {
    double D;
    if (!to_float(L, D)) {
      S.Numeric = false;
      break;
    }
    S.Values.push_back(D);
  }
  if (!S.Numeric)
    S.Values.clear();
  return S;
}

std::string htmlEscape(StringRef S) {
  std::string O;
  for (char C : S) {
    switch (C) {
    case '<':
      O += "&lt;";
      break;
    case '>':
      O += "&gt;";
      break;
    case '&':
      O += "&amp;";
      break;
    case '"':
      O += "&quot;";
      break;
    default:
      O += C;
    }
  }
  return O;
}

static std::string esc(StringRef S) { return htmlEscape(S); }

static const char *colour(Variant V) { return variantInfo(V).Colour; }

/// Why loop \p L has no saturation bar for \p V; "" when it has one or
/// was not asked for it.
static std::string missingBarReason(const LoopReport &L, Variant V) {
  std::string N(variantName(V));
  if (L.Saturation[V])
    return "";
  if (auto It = L.Unavailable.find(N); It != L.Unavailable.end()) {
    auto Why = L.UnavailableWhy.find(N);
    if (It->second == "runaway")
      return "not measured: runaway copy";
    if (It->second == "faulted")
      return "not measured: its copy faulted";
    return "not built: " +
           (Why != L.UnavailableWhy.end() ? Why->second : It->second);
  }
  if (auto It = L.CappedCalls.find(N); It != L.CappedCalls.end())
    return "not measured: capped";
  if (L.Variants[V]) {
    if (!L.Variants[V]->Calls)
      return "no call measured";
    if (!L.Variants[Variant::REF])
      return "REF not measured";
    return formatv("too few pairs ({0})", L.Variants[V]->Pairs.size()).str();
  }
  if (L.VariantMask >> unsigned(V) & 1)
    return L.RunCalls && L.RunCalls < Thresholds().MinCalls
               ? formatv("too few calls ({0})", L.RunCalls).str()
               : "not measured";
  return "";
}

/// The variants a run asked for (its config's "variants"), else every
/// variant measured.
static std::vector<Variant> askedVariants(const Report &R) {
  std::vector<Variant> Out;
  if (const json::Array *A = R.Config.getArray("variants"))
    for (const json::Value &V : *A)
      if (auto S = V.getAsString())
        if (auto Var = parseVariant(*S))
          Out.push_back(*Var);
  if (Out.empty())
    Out.assign(std::begin(AllVariants), std::end(AllVariants));
  return Out;
}

/// Bar chart of one loop's saturations, REF (= 1) included as the
/// yardstick; a variant asked for without a bar gets an empty slot saying
/// why.
static void barChart(raw_ostream &OS, const LoopReport &L,
                     ArrayRef<Variant> Asked) {
  struct Slot {
    Variant V;
    std::string Missing;
  };
  std::vector<Slot> Slots;
  for (Variant V : AllVariants) {
    if (L.Saturation[V]) {
      Slots.push_back({V, ""});
      continue;
    }
    if (V == Variant::REF || !is_contained(Asked, V))
      continue;
    std::string Why = missingBarReason(L, V);
    if (!Why.empty())
      Slots.push_back({V, Why});
  }
  const double W = std::max(460.0, 70.0 + 64 * Slots.size()), H = 270,
               Left = 56, Bottom = 34, Top = 14, Legend = 46;
  double Max = 1.2;
  for (Variant V : AllVariants)
    if (L.Saturation[V])
      Max = std::max(Max, *L.Saturation[V] * 1.05);
  OS << formatv("<svg class=\"chart sat-bars\" data-loop=\"{0}\" "
                "xmlns=\"http://www.w3.org/2000/svg\" width=\"{1}\" "
                "height=\"{2}\" viewBox=\"0 0 {1} {2}\" role=\"img\">\n",
                esc(L.name()), W, H);
  OS << "<title>Saturation per variant of " << esc(L.name()) << "</title>\n";
  double PlotH = H - Bottom - Top - Legend;
  auto Y = [&](double S) { return Top + PlotH * (1 - S / Max); };
  for (double T = 0; T <= Max + 1e-9; T += 0.25) {
    OS << formatv("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:F1}\" y2=\"{2:F1}\" "
                  "stroke=\"{3}\" stroke-width=\"{4}\"/>",
                  Left, W - 8, Y(T), T == 1 ? "#000" : "#ddd",
                  T == 1 ? 1.5 : 1);
    OS << formatv("<text x=\"{0}\" y=\"{1:F1}\" font-size=\"10\" "
                  "text-anchor=\"end\">{2:F2}</text>\n",
                  Left - 4, Y(T) + 3, T);
  }
  // Axis titles.
  OS << formatv("<text class=\"axis-title\" x=\"12\" y=\"{0:F1}\" "
                "font-size=\"11\" transform=\"rotate(-90 12 {0:F1})\" "
                "text-anchor=\"middle\">saturation = T(variant) / "
                "T(REF)</text>\n",
                Top + PlotH / 2);
  OS << formatv("<text class=\"axis-title\" x=\"{0:F1}\" y=\"{1:F1}\" "
                "font-size=\"11\" text-anchor=\"middle\">variant (the loop "
                "with that work removed or changed)</text>\n",
                Left + (W - Left) / 2, Y(0) + 30);
  // Legend: what a bar, the 1.0 line and an empty slot mean.
  double LY = H - Legend + 12;
  OS << formatv("<g class=\"legend\"><line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" "
                "y2=\"{2}\" stroke=\"#000\" stroke-width=\"1.5\"/>"
                "<text x=\"{3}\" y=\"{4}\" font-size=\"10\">1.00 = REF (the "
                "loop as built); below: what the change saves</text>"
                "<rect x=\"{0}\" y=\"{5}\" width=\"18\" height=\"10\" "
                "fill=\"none\" stroke=\"#999\" stroke-dasharray=\"3 2\"/>"
                "<text x=\"{3}\" y=\"{6}\" font-size=\"10\">no bar: the slot "
                "says why</text>"
                "</g>\n",
                Left, Left + 18, LY, Left + 24, LY + 3, LY + 8, LY + 17);
  if (Slots.empty()) {
    OS << formatv("<text x=\"{0}\" y=\"{1}\">no saturation measured</text>",
                  Left + 10, Top + PlotH / 2);
    OS << "</svg>\n";
    return;
  }
  double SlotW = (W - Left - 8) / Slots.size();
  for (size_t I = 0; I < Slots.size(); ++I) {
    Variant V = Slots[I].V;
    double X = Left + I * SlotW + SlotW * 0.15, BW = SlotW * 0.7;
    OS << formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" font-size=\"11\" "
                  "text-anchor=\"middle\">{2}</text>\n",
                  X + BW / 2, Y(0) + 14, variantName(V));
    if (!Slots[I].Missing.empty()) {
      const std::string &Why = Slots[I].Missing;
      OS << formatv("<g class=\"bar-missing\" data-variant=\"{0}\" "
                    "data-reason=\"{1}\"><title>{0}: {1}</title>"
                    "<rect x=\"{2:F1}\" y=\"{3:F1}\" width=\"{4:F1}\" "
                    "height=\"{5:F1}\" fill=\"none\" stroke=\"#999\" "
                    "stroke-dasharray=\"3 2\"/>"
                    "<text font-size=\"9\" fill=\"#555\" "
                    "transform=\"translate({6:F1} {7:F1}) rotate(-90)\">{1}"
                    "</text></g>\n",
                    variantName(V), esc(Why), X, Y(Max * 0.95), BW,
                    Y(0) - Y(Max * 0.95), X + BW / 2 + 3, Y(0) - 4);
      continue;
    }
    double S = *L.Saturation[V];
    OS << formatv(
        "<rect class=\"bar\" data-variant=\"{0}\" data-sat=\"{1:F4}\" "
        "x=\"{2:F1}\" y=\"{3:F1}\" width=\"{4:F1}\" height=\"{5:F1}\" "
        "fill=\"{6}\"><title>{0}: {1:F2}</title></rect>",
        variantName(V), S, X, Y(S), BW, Y(0) - Y(S), colour(V));
    OS << formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" font-size=\"10\" "
                  "text-anchor=\"middle\">{2:F2}</text>\n",
                  X + BW / 2, Y(S) - 3, S);
  }
  OS << "</svg>\n";
}

/// Curves of a per-variant value against the sweep parameter. \p Value
/// returns nullopt where run r lacks the point.
static void
curveChart(raw_ostream &OS, StringRef Class, StringRef Title, StringRef YLabel,
           const std::string &LoopId, const Sweep &S, size_t Runs,
           function_ref<std::optional<double>(size_t Run, Variant V)> Value,
           bool FromZero) {
  const double W = 520, H = 260, Left = 60, Right = 90, Bottom = 40, Top = 16;
  double Lo = FromZero ? 0 : INFINITY, Hi = FromZero ? 1.2 : -INFINITY;
  bool Any = false;
  for (size_t R = 0; R < Runs; ++R)
    for (Variant V : AllVariants)
      if (auto Y = Value(R, V)) {
        Lo = std::min(Lo, *Y);
        Hi = std::max(Hi, *Y);
        Any = true;
      }
  if (!Any)
    return;
  if (Hi <= Lo)
    Hi = Lo + 1;
  Hi += (Hi - Lo) * 0.05;
  // Sizes spanning decades read best on a log axis (thesis Figures 4.3-4.5).
  bool Log = S.Numeric && Runs > 1 &&
             *std::min_element(S.Values.begin(), S.Values.end()) > 0 &&
             *std::max_element(S.Values.begin(), S.Values.end()) /
                     *std::min_element(S.Values.begin(), S.Values.end()) >=
                 100;
  auto XPos = [&](size_t R) {
    double PW = W - Left - Right;
    if (!S.Numeric || Runs == 1)
      return Left + (Runs == 1 ? PW / 2 : PW * R / (Runs - 1));
    double A = *std::min_element(S.Values.begin(), S.Values.end());
    double B = *std::max_element(S.Values.begin(), S.Values.end());
    double X = S.Values[R];
    if (Log) {
      A = std::log10(A);
      B = std::log10(B);
      X = std::log10(X);
    }
    return B > A ? Left + PW * (X - A) / (B - A) : Left + PW / 2;
  };
  double PH = H - Top - Bottom;
  auto YPos = [&](double Y) { return Top + PH * (1 - (Y - Lo) / (Hi - Lo)); };
  OS << formatv("<svg class=\"chart {0}\" data-loop=\"{1}\" "
                "xmlns=\"http://www.w3.org/2000/svg\" width=\"{2}\" "
                "height=\"{3}\" viewBox=\"0 0 {2} {3}\" role=\"img\">\n",
                Class, esc(LoopId), W, H);
  OS << "<title>" << esc(Title) << "</title>\n";
  for (int T = 0; T <= 4; ++T) {
    double Y = Lo + (Hi - Lo) * T / 4;
    OS << formatv("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:F1}\" y2=\"{2:F1}\" "
                  "stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:F1}\" "
                  "font-size=\"10\" text-anchor=\"end\">{5}</text>\n",
                  Left, W - Right, YPos(Y), Left - 4, YPos(Y) + 3,
                  formatv(Hi - Lo < 10 ? "{0:F2}" : "{0:F0}", Y).str());
  }
  if (FromZero && Hi > 1)
    OS << formatv("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:F1}\" y2=\"{2:F1}\" "
                  "stroke=\"#000\" stroke-dasharray=\"4 3\"/>\n",
                  Left, W - Right, YPos(1));
  for (size_t R = 0; R < Runs; ++R)
    OS << formatv("<text x=\"{0:F1}\" y=\"{1}\" font-size=\"10\" "
                  "text-anchor=\"middle\">{2}</text>",
                  XPos(R), H - Bottom + 14, esc(S.Labels[R]));
  OS << formatv("<text x=\"{0:F1}\" y=\"{1}\" font-size=\"11\" "
                "text-anchor=\"middle\">{2}{3}</text>",
                Left + (W - Left - Right) / 2, H - 6, esc(S.Param),
                Log ? " (log scale)" : "");
  OS << formatv("<text x=\"12\" y=\"{0:F1}\" font-size=\"11\" "
                "transform=\"rotate(-90 12 {0:F1})\" "
                "text-anchor=\"middle\">{1}</text>\n",
                Top + PH / 2, esc(YLabel));
  unsigned Legend = 0;
  for (Variant V : AllVariants) {
    std::string Points;
    unsigned NP = 0;
    for (size_t R = 0; R < Runs; ++R)
      if (auto Y = Value(R, V)) {
        Points += formatv("{0:F1},{1:F1} ", XPos(R), YPos(*Y)).str();
        ++NP;
      }
    if (!NP)
      continue;
    OS << formatv("<polyline class=\"curve\" data-variant=\"{0}\" "
                  "points=\"{1}\" fill=\"none\" stroke=\"{2}\" "
                  "stroke-width=\"2\"/>",
                  variantName(V), Points, colour(V));
    for (size_t R = 0; R < Runs; ++R)
      if (auto Y = Value(R, V))
        OS << formatv("<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"3\" "
                      "fill=\"{2}\"><title>{3} at {4}={5}: {6:F3}</title>"
                      "</circle>",
                      XPos(R), YPos(*Y), colour(V), variantName(V),
                      esc(S.Param), esc(S.Labels[R]), *Y);
    OS << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"10\" height=\"10\" "
                  "fill=\"{2}\"/><text x=\"{3}\" y=\"{4}\" "
                  "font-size=\"11\">{5}</text>\n",
                  W - Right + 10, Top + Legend * 16, colour(V), W - Right + 24,
                  Top + Legend * 16 + 9, variantName(V));
    ++Legend;
  }
  OS << "</svg>\n";
}

static void variantTable(raw_ostream &OS, const LoopReport &L) {
  OS << "<table class=\"variants\"><tr><th>variant</th><th>calls</th>"
        "<th>excluded</th><th>cycles/call median</th><th>min</th>"
        "<th>cycles/iter median</th><th>min</th><th>iterations</th>"
        "<th>stability</th><th>saturation</th><th>95% interval</th>"
        "<th>pairs</th><th>stores</th></tr>\n";
  for (Variant V : AllVariants) {
    if (!L.Variants[V])
      continue;
    const VariantStats &S = *L.Variants[V];
    auto SP = L.StorePolicy.find(std::string(variantName(V)));
    OS << formatv(
        "<tr><td>{0}</td><td>{1}</td><td>{2}</td><td>{3:F0}</td>"
        "<td>{4:F0}</td><td>{5}</td><td>{6}</td><td>{7}</td>"
        "<td>{8}</td><td>{9}</td><td>{10}</td><td>{11}</td><td>{12}</td>"
        "</tr>\n",
        variantName(V), S.Calls, S.Excluded, S.Cycles.Median, S.Cycles.Min,
        S.TripsKnown ? formatv("{0:F2}", S.CyclesPerIter.Median).str() : "-",
        S.TripsKnown ? formatv("{0:F2}", S.CyclesPerIter.Min).str() : "-",
        S.Iterations, percentText(S.Stability),
        L.Saturation[V] ? formatv("{0:F3}", *L.Saturation[V]).str() : "-",
        L.SatInterval[V] ? formatv("[{0:F2}, {1:F2}]", L.SatInterval[V]->Lo,
                                   L.SatInterval[V]->Hi)
                               .str()
                         : "-",
        S.Pairs.size(), SP == L.StorePolicy.end() ? "" : esc(SP->second));
  }
  OS << "</table>\n";
  // Per-rank/thread rows: imbalance between ranks or threads shows here.
  size_t Rows = 0, Measured = 0;
  for (Variant V : AllVariants)
    if (L.Variants[V]) {
      Rows += L.Variants[V]->Rows.size();
      ++Measured;
    }
  if (Rows <= Measured) // one row per variant: nothing more to show
    return;
  OS << "<details><summary>per rank and thread (" << Rows
     << " rows)</summary><table class=\"rows\"><tr><th>variant</th>"
        "<th>rank</th><th>pid</th><th>thread</th><th>calls</th>"
        "<th>cycles median</th><th>min</th></tr>\n";
  for (Variant V : AllVariants)
    if (L.Variants[V])
      for (const ThreadRow &T : L.Variants[V]->Rows)
        OS << formatv("<tr><td>{0}</td><td>{1}</td><td>{2}</td><td>{3}</td>"
                      "<td>{4}</td><td>{5:F0}</td><td>{6:F0}</td></tr>\n",
                      variantName(V), T.Rank ? std::to_string(*T.Rank) : "-",
                      T.Pid, T.Thread, T.Calls, T.Cycles.Median, T.Cycles.Min);
  OS << "</table></details>\n";
}

/// Whether \p L ran while measured (loops that never did are folded away).
static bool ran(const LoopReport &L) {
  return L.RunCalls ||
         any_of(L.Variants, [](const auto &V) { return V && V->Calls; });
}

static std::string verdictText(const LoopReport &L) {
  if (L.Verdict == VerdictClass::None)
    return "-";
  return L.VerdictConfidence > 0 ? formatv("{0} ({1:F0}%)", nameOf(L.Verdict),
                                           L.VerdictConfidence * 100)
                                       .str()
                                 : nameOf(L.Verdict).str();
}

static std::string gainText(const LoopReport &L) {
  return L.PredictedGain
             ? percentText(*L.PredictedGain) + " (" + L.PredictedGainBy + ")"
             : "-";
}

/// The loops summary: the ranking's order, what a fix would save first.
static void summaryTable(raw_ostream &OS, ArrayRef<const LoopReport *> Order) {
  OS << "<h2>Loops by what a fix would save</h2>\n<p class=\"note\">rank: "
        "share &times; the best gain whose claim is settled (a loop without "
        "one: its share); equal savings go to the larger share</p>\n"
        "<table class=\"summary\"><tr><th>#</th><th>loop</th>"
        "<th>function</th><th>source</th><th>program share</th>"
        "<th>share of loop time</th><th>predicted gain</th>"
        "<th>saving (of loop time)</th><th>verdict</th><th>DL1 gain</th>"
        "<th>rank by share</th></tr>\n";
  for (const LoopReport *L : Order) {
    if (!ran(*L))
      continue;
    OS << formatv("<tr class=\"loop-row\" data-rank=\"{0}\"><td>{0}</td>"
                  "<td><a href=\"#loop-{0}\">{1}</a></td><td>{2}</td>"
                  "<td>{3}</td><td>{4}</td><td>{5}</td><td>{6}</td>"
                  "<td>{7}</td><td>{8}</td><td>{9}</td><td>{10}</td></tr>\n",
                  L->Rank, esc(L->Id), esc(demangleSymbol(L->Function)),
                  sourceLinkHTML(*L, formatv("src-{0}", L->Rank).str()),
                  L->ProgramShare ? percentText(*L->ProgramShare) : "-",
                  percentText(L->Share), esc(gainText(*L)),
                  L->PredictedGain ? percentText(rankingKey(*L)) : "-",
                  esc(verdictText(*L)),
                  L->DL1Gain ? percentText(*L->DL1Gain) : "-", L->RankByShare);
  }
  OS << "</table>\n";
}

void writeHTML(raw_ostream &OS, const std::vector<Report> &Runs,
               const Sweep *S) {
  const Report &R = Runs.back();
  OS << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>decan report</title>\n<style>\n"
        "body{font-family:sans-serif;margin:1.5em;color:#222}"
        "table{border-collapse:collapse;margin:.5em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}"
        "section.loop{border-top:2px solid #888;margin-top:1.5em}"
        ".warn{color:#a40}.note{color:#555}"
        ".charts{display:flex;flex-wrap:wrap;gap:1em}"
        "svg.chart{background:#fafafa;border:1px solid #ddd}"
        "pre{background:#f6f6f6;padding:.4em;overflow-x:auto;margin:.3em 0}"
        ".loop-line{background:#fe8;font-weight:bold}"
        ".asm-pair{display:grid;grid-template-columns:1fr 1fr;gap:.5em}"
        ".asm-pair h4{grid-column:1/3;margin:.6em 0 0}"
        "del{color:#b00;background:#fdd}"
        "</style></head><body>\n<h1>decan report</h1>\n";
  OS << "<p>decan " << esc(R.Version);
  if (auto CPU = R.Machine.getString("cpu"))
    OS << " &middot; " << esc(*CPU);
  if (auto Mode = R.Config.getString("mode"))
    OS << " &middot; mode " << esc(*Mode);
  OS << " &middot; " << R.Processes.size() << " process report(s)";
  if (S)
    OS << " &middot; sweep of " << Runs.size() << " runs over "
       << esc(S->Param);
  OS << "</p>\n";
  if (R.Coverage)
    OS << "<p class=\"coverage\">the measured loops cover "
       << percentText(*R.Coverage) << " of the program's time</p>\n";
  if (auto Hint = R.Config.getString("libraries_hint"))
    OS << "<p class=\"warn libraries-hint\">hint: " << esc(*Hint) << "</p>\n";
  for (const std::string &W : R.Warnings)
    OS << "<p class=\"warn\">warning: " << esc(W) << "</p>\n";
  std::vector<const LoopReport *> Order = rankedLoops(R);
  summaryTable(OS, Order);
  std::vector<Variant> Asked = askedVariants(R);
  // The copies' instructions, for the hottest loops of a binary that is
  // still there (a plugin build names each copy; a rewritten one does not).
  constexpr unsigned MaxListedLoops = 20;
  std::unique_ptr<LoopCopies> Copies;
  if (std::string Bin = measuredBinary(R); !Bin.empty()) {
    if (auto C = LoopCopies::open(Bin))
      Copies = std::move(*C);
    else
      consumeError(C.takeError());
  }
  std::vector<const LoopReport *> NeverRan;
  unsigned Listed = 0;
  for (const LoopReport *LP : Order) {
    const LoopReport &L = *LP;
    if (!ran(L)) {
      NeverRan.push_back(LP);
      continue;
    }
    std::string Anchor = formatv("src-{0}", L.Rank).str();
    OS << formatv("<section class=\"loop\" id=\"loop-{0}\"><h2>#{0} {1}</h2>"
                  "<p>{2} at {3} &middot; program share {4} &middot; share "
                  "of loop time {5} &middot; predicted gain {6} &middot; "
                  "verdict {7} &middot; {8} calls in the whole run</p>\n",
                  L.Rank, esc(L.name()), esc(demangleSymbol(L.Function)),
                  sourceLinkHTML(L, Anchor),
                  L.ProgramShare ? percentText(*L.ProgramShare) : "-",
                  percentText(L.Share), esc(gainText(L)), esc(verdictText(L)),
                  L.RunCalls);
    OS << "<div class=\"charts\">\n";
    barChart(OS, L, Asked);
    if (S && Runs.size() > 1) {
      std::vector<const LoopReport *> Per;
      for (const Report &Run : Runs)
        Per.push_back(Run.findLoop(L.Id));
      curveChart(
          OS, "sat-curve", "Saturation of " + L.name() + " vs " + S->Param,
          "saturation", L.Id, *S, Runs.size(),
          [&](size_t Ri, Variant V) -> std::optional<double> {
            if (!Per[Ri] || V == Variant::REF)
              return std::nullopt;
            return Per[Ri]->Saturation[V];
          },
          /*FromZero=*/true);
      curveChart(
          OS, "time-curve",
          "Cycles per iteration of " + L.name() + " vs " + S->Param,
          "cycles per iteration (median)", L.Id, *S, Runs.size(),
          [&](size_t Ri, Variant V) -> std::optional<double> {
            if (!Per[Ri] || !Per[Ri]->Variants[V] ||
                !Per[Ri]->Variants[V]->TripsKnown)
              return std::nullopt;
            return Per[Ri]->Variants[V]->CyclesPerIter.Median;
          },
          /*FromZero=*/false);
    }
    OS << "</div>\n";
    variantTable(OS, L);
    if (!L.Diagnosis.empty()) {
      OS << "<ul class=\"diagnosis\">";
      for (const std::string &D : L.Diagnosis)
        OS << "<li>" << esc(D) << "</li>";
      OS << "</ul>\n";
    }
    writeSourceListing(OS, L, Anchor);
    if (Copies && !L.isRegion() && Listed < MaxListedLoops) {
      ++Listed;
      writeAssemblyListing(OS, L, *Copies);
    }
    if (!L.Warnings.empty()) {
      OS << "<ul class=\"warnings\">";
      for (const std::string &W : L.Warnings)
        OS << "<li class=\"warn\">" << esc(W) << "</li>";
      OS << "</ul>\n";
    }
    OS << "</section>\n";
  }
  if (!NeverRan.empty()) {
    OS << "<details class=\"never-ran\"><summary>" << NeverRan.size() << " loop"
       << (NeverRan.size() == 1 ? "" : "s")
       << " never ran while measured</summary><p>";
    for (size_t I = 0; I < NeverRan.size(); ++I)
      OS << (I ? ", " : "") << esc(NeverRan[I]->Id) << " ("
         << esc(sourceLocation(NeverRan[I]->File, NeverRan[I]->Line)) << ")";
    OS << "</p></details>\n";
  }
  // Records what the browser actually laid out, so a headless browser's DOM
  // dump proves the charts render (tests read data-rendered-*).
  OS << "<script>\nwindow.addEventListener('load',function(){"
        "var n=0,b=0,c=0;"
        "document.querySelectorAll('svg.chart').forEach(function(s){"
        "var r=s.getBoundingClientRect();if(r.width>0&&r.height>0)n++;});"
        "document.querySelectorAll('rect.bar').forEach(function(e){"
        "if(e.getBBox().height>0)b++;});"
        "document.querySelectorAll('polyline.curve').forEach(function(e){"
        "if(e.getTotalLength()>0||e.points.numberOfItems>0)c++;});"
        "document.body.setAttribute('data-rendered-charts',n);"
        "document.body.setAttribute('data-rendered-bars',b);"
        "document.body.setAttribute('data-rendered-curves',c);"
        "document.body.setAttribute('data-script-done','1');});\n"
        "</script>\n</body></html>\n";
}

} // namespace decan::tool
