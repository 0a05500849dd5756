//===- Render.cpp - Tables, HTML and remarks from a report ----------------===//
//
// Part of decan.
// Over 600 lines on purpose: the renderings of one report model (text
// table, HTML with SVG figures, remarks) share its formatting helpers.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Render.h"

#include "decan/Tool/Analysis.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Remarks/Remark.h"
#include "llvm/Remarks/RemarkFormat.h"
#include "llvm/Remarks/RemarkSerializer.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace decan::tool {

static std::string location(const std::string &File, unsigned Line) {
  if (File.empty())
    return "?";
  return Line ? formatv("{0}:{1}", File, Line).str() : File;
}

static std::string percent(double X) {
  return formatv("{0:F1}%", X * 100).str();
}

//===----------------------------------------------------------------------===//
// Terminal
//===----------------------------------------------------------------------===//

void printReportTable(raw_ostream &OS, const Report &R) {
  for (const std::string &W : R.Warnings)
    OS << "warning: " << W << "\n";
  if (R.Loops.empty()) {
    OS << "decan: no loop was measured\n";
    return;
  }
  unsigned Measured = 0;
  for (const LoopReport &L : R.Loops)
    Measured += !L.isRegion() && (L.RunCalls != 0 || L.Variants[Variant::REF]);
  if (R.Coverage)
    OS << formatv(
        "run: the {0} measured loop{1} {2} of the program's "
        "time; decan's own work (variant calls, probes, sampling) "
        "added {3}\n",
        Measured, Measured == 1 ? " covers" : "s cover", percent(*R.Coverage),
        percent(R.ProcessCycles > R.OverheadCycles
                    ? R.OverheadCycles / (R.ProcessCycles - R.OverheadCycles)
                    : 0));
  OS << "Loops by potential DL1 gain (program = part of the program's time, "
        "loops = part of measured loop time)\n";
  // Loops never called while active: named up to a screenful (a full
  // copy of a large library has tens of thousands; the JSON lists them).
  constexpr unsigned MaxUnmeasuredNamed = 40;
  std::string Unmeasured;
  unsigned NumUnmeasured = 0;
  bool RegionsHeader = false;
  for (const LoopReport *LP : rankedLoops(R)) {
    const LoopReport &L = *LP;
    if (!L.RunCalls &&
        none_of(L.Variants, [](const auto &V) { return V && V->Calls; })) {
      // Regions are off unless asked for (decan run --regions).
      if (!L.isRegion() && ++NumUnmeasured <= MaxUnmeasuredNamed)
        Unmeasured += (Unmeasured.empty() ? "" : ", ") + L.Id;
      continue;
    }
    if (L.isRegion()) {
      // Timed, not diagnosed: one line each, after the loops.
      if (!RegionsHeader)
        OS << "\nRegions (REF only: where the time the innermost loops miss "
              "goes)\n";
      RegionsHeader = true;
      OS << formatv("  {0}  {1} at {2}", L.Id, demangleSymbol(L.Function),
                    location(L.File, L.Line));
      if (L.ProgramShare)
        OS << "  program " << (L.ProgramShareApproximate ? "~" : "")
           << percent(*L.ProgramShare);
      if (L.RunCalls)
        OS << formatv("  {0} call{1}, {2:F0} cycles/call", L.RunCalls,
                      L.RunCalls == 1 ? "" : "s",
                      L.TimeCycles / (double)L.RunCalls);
      OS << "\n";
      for (const std::string &D : L.Diagnosis)
        OS << "    " << D << "\n";
      continue;
    }
    OS << "\n"
       << formatv("#{0} {1}  {2} at {3}", L.RankByGain, L.Id,
                  demangleSymbol(L.Function), location(L.File, L.Line));
    if (L.ProgramShare)
      OS << "  program "
         << (L.ProgramShareLowerBound    ? ">="
             : L.ProgramShareApproximate ? "~"
                                         : "")
         << percent(*L.ProgramShare);
    OS << "  loops " << percent(L.Share);
    if (L.DL1Gain)
      OS << "  DL1 gain " << percent(*L.DL1Gain);
    if (L.Verdict != VerdictClass::None)
      OS << "  [" << nameOf(L.Verdict)
         << (L.VerdictConfidence > 0
                 ? formatv(", {0:F0}%", L.VerdictConfidence * 100).str()
                 : "")
         << "]";
    OS << "\n";
    if (L.RunCalls) {
      OS << formatv("  whole run: {0} call{1}", L.RunCalls,
                    L.RunCalls == 1 ? "" : "s");
      if (L.Threads > 1)
        OS << formatv(" in {0} threads/processes", L.Threads);
      if (L.MaxStride > 1 && L.TimedCalls)
        OS << formatv(" ({0} timed, up to 1 in {1}: short calls)", L.TimedCalls,
                      L.MaxStride);
      if (L.RunMeanTrips)
        OS << formatv(", {0:F1} iterations/call", *L.RunMeanTrips);
      if (L.SampleMeanTrips)
        OS << formatv(" (samples {0:F1})", *L.SampleMeanTrips);
      OS << formatv(", REF {0:F0} cycles/call", L.RunCycles / L.RunCalls);
      if (L.RunIterations)
        OS << formatv(", {0:F2} cycles/iteration",
                      L.RunCycles / (double)L.RunIterations);
      OS << "\n";
    }
    // Late variants: the calls before the loop's pack are in no figure.
    if (L.Late == "installed") {
      OS << formatv("  late variants: from {0:F2} s into the run on",
                    L.LateSince);
      if (L.CallsBeforeLate)
        OS << formatv("; {0} call{1} before {2} not timed (its figures are "
                      "all from after)",
                      L.CallsBeforeLate, L.CallsBeforeLate == 1 ? "" : "s",
                      L.CallsBeforeLate == 1 ? "was" : "were");
      else
        OS << ", from its first call";
      OS << "\n";
    }
    if (any_of(L.Variants, [](const auto &V) { return V.has_value(); }))
      OS << formatv("  {0,-7} {1,7} {2,6} {3,5} {4,12} {5,10} {6,7} {7,6} "
                    "{8,16}\n",
                    "variant", "samples", "pairs", "excl", "cyc/call",
                    "cyc/iter", "stab", "sat", "95% interval");
    for (Variant V : AllVariants) {
      if (!L.Variants[V])
        continue;
      const VariantStats &S = *L.Variants[V];
      std::string PerIter = "-";
      if (S.TripsKnown)
        PerIter = formatv("{0:F2}", S.CyclesPerIter.Median).str();
      std::string Sat =
          L.Saturation[V] ? formatv("{0:F2}", *L.Saturation[V]).str() : "-";
      // The variant dropped a chain through memory: a lower bound.
      if (L.Saturation[V] && L.Bound.count(std::string(variantName(V))))
        Sat += " bound";
      std::string CI = L.SatInterval[V]
                           ? formatv("[{0:F2}, {1:F2}]", L.SatInterval[V]->Lo,
                                     L.SatInterval[V]->Hi)
                                 .str()
                           : "-";
      OS << formatv("  {0,-7} {1,7} {2,6} {3,5} {4,12:F0} {5,10} {6,7} {7,6} "
                    "{8,16}\n",
                    variantName(V), S.Calls, S.Pairs.size(), S.Excluded,
                    S.Cycles.Median, PerIter, percent(S.Stability), Sat, CI);
    }
    for (Variant V : AllVariants)
      if (L.Variants[V] && !L.Variants[V]->Counters.empty()) {
        OS << "  counters " << variantName(V) << " (median per call):";
        for (const auto &[Name, Sum] : L.Variants[V]->Counters)
          OS << formatv(" {0}={1:F0}", Name, Sum.Median);
        OS << "\n";
      }
    for (const std::string &D : L.Diagnosis)
      OS << "  diagnosis: " << D << "\n";
    for (const std::string &W : L.Warnings)
      OS << "  warning: " << W << "\n";
  }
  if (NumUnmeasured > MaxUnmeasuredNamed)
    Unmeasured += formatv(" and {0} more (decan run --json lists them)",
                          NumUnmeasured - MaxUnmeasuredNamed)
                      .str();
  if (!Unmeasured.empty())
    OS << "\nnot measured (never called while active): " << Unmeasured << "\n";
}

void printLoopList(raw_ostream &OS, const std::vector<MetaLoop> &Loops) {
  OS << formatv("{0,-28} {1,-22} {2,-20} {3,-28} {4,-7} {5}\n", "ID",
                "FUNCTION", "LOCATION", "VARIANTS", "BYTES",
                "SUBSETS (N L S FP DIV CTRL ADDR)");
  for (const MetaLoop &L : Loops) {
    std::string Avail;
    for (unsigned V = 0; V < NumVariants; ++V)
      if (L.available(V))
        Avail +=
            (Avail.empty() ? "" : ",") + std::string(variantName(Variant(V)));
    if (StringRef(L.Id).starts_with("region:") && L.VariantMask)
      Avail = "REF (region)"; // timed under decan run --regions
    if (Avail.empty())
      Avail = "-";
    const decan_machine_info &M = L.MInfo;
    OS << formatv("{0,-28} {1,-22} {2,-20} {3,-28} {4,-7} {5} {6} {7} {8} "
                  "{9} {10} {11}\n",
                  L.Id, demangleSymbol(L.Function), location(L.File, L.Line),
                  Avail, M.loop_bytes[DECAN_REF], M.n_instrs, M.n_load,
                  M.n_store, M.n_fp, M.n_div, M.n_ctrl, M.n_addr);
    if (!L.SkipReason.empty()) {
      OS << "    skipped: " << L.SkipReason << "\n";
      continue;
    }
    std::string Why, Deleted, NotEmitted;
    for (unsigned V = 0; V < NumVariants; ++V) {
      // A loop without calls has no NO_CALL copy: nothing to say.
      if (Variant(V) == Variant::NO_CALL && !(L.VariantMask >> V & 1))
        continue;
      // GROUPING's copies past the loop's groups: nothing to say either.
      if (variantGroup(Variant(V)) >= 0 && M.status[V] == DECAN_VARIANT_EMPTY)
        continue;
      // Not asked of the producer (decan rewrite builds decan run's
      // rotation unless told otherwise): named once, without a reason.
      if (!(L.VariantMask >> V & 1)) {
        NotEmitted += (NotEmitted.empty() ? "" : ",") +
                      std::string(variantName(Variant(V)));
        continue;
      }
      if (!L.available(V)) {
        Why += (Why.empty() ? "" : ", ") +
               std::string(variantName(Variant(V))) + ": " + L.whyNot(V);
        // Unsupported or rejected: say why in words; empty, only where
        // the loop's work is its control (empty alone says the rest).
        uint32_t St = M.status[V];
        bool FeedsControl = M.why[V] == DECAN_WHY_MEMORY_FEEDS_CONTROL ||
                            M.why[V] == DECAN_WHY_ARITH_FEEDS_CONTROL ||
                            M.why[V] == DECAN_WHY_ALL_CONTROL;
        if ((L.VariantMask >> V & 1) &&
            (St != DECAN_VARIANT_EMPTY || FeedsControl) &&
            St != DECAN_VARIANT_NOT_BUILT && M.why[V])
          Why += std::string(" (") + decan_variant_why_text(M.why[V]) + ")";
      } else if (Variant(V) != Variant::NO_CALL &&
                 (M.calls_deleted_mask >> V & 1))
        Deleted += (Deleted.empty() ? "" : ", ") +
                   std::string(variantName(Variant(V)));
    }
    if (!Why.empty())
      OS << "    not available: " << Why << "\n";
    if (!NotEmitted.empty())
      OS << "    not emitted: " << NotEmitted << "\n";
    if (M.n_call)
      OS << "    calls: " << M.n_call << "; "
         << (Deleted.empty()
                 ? std::string("kept in every variant but NO_CALL")
                 : "deleted in " + Deleted +
                       " (a call that may write memory, or is not that "
                       "variant's work: they are compared with NO_CALL)")
         << "\n";
    if (M.dl1_memory_call_bytes && L.available(DECAN_DL1))
      OS << "    DL1: memcpy/memset/memmove redirected to the scratch area "
            "(destination and source), lengths above "
         << M.dl1_memory_call_bytes << " bytes clamped to "
         << M.dl1_memory_call_bytes << "\n";
  }
  OS << Loops.size() << " loop" << (Loops.size() == 1 ? "" : "s") << "\n";
}

//===----------------------------------------------------------------------===//
// HTML
//===----------------------------------------------------------------------===//

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

static const char *Colors[NumVariants] = {"#555555", "#1f77b4", "#d62728",
                                          "#9467bd", "#2ca02c", "#ff7f0e",
                                          "#8c564b"};

/// Bar chart of one loop's saturations, REF (= 1) included as the yardstick.
static void barChart(raw_ostream &OS, const LoopReport &L) {
  const double W = 440, H = 220, Left = 46, Bottom = 30, Top = 14;
  double Max = 1.2;
  for (Variant V : AllVariants)
    if (L.Saturation[V])
      Max = std::max(Max, *L.Saturation[V] * 1.05);
  unsigned N = 0;
  for (Variant V : AllVariants)
    N += L.Saturation[V].has_value();
  OS << formatv("<svg class=\"chart sat-bars\" data-loop=\"{0}\" "
                "xmlns=\"http://www.w3.org/2000/svg\" width=\"{1}\" "
                "height=\"{2}\" viewBox=\"0 0 {1} {2}\" role=\"img\">\n",
                esc(L.Id), W, H);
  OS << "<title>Saturation per variant of " << esc(L.Id) << "</title>\n";
  double PlotH = H - Bottom - Top;
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
  if (!N) {
    OS << formatv("<text x=\"{0}\" y=\"{1}\">no saturation measured</text>",
                  Left + 10, H / 2);
    OS << "</svg>\n";
    return;
  }
  double Slot = (W - Left - 8) / N, I = 0;
  for (Variant V : AllVariants) {
    if (!L.Saturation[V])
      continue;
    double S = *L.Saturation[V];
    double X = Left + I * Slot + Slot * 0.15, BW = Slot * 0.7;
    OS << formatv(
        "<rect class=\"bar\" data-variant=\"{0}\" data-sat=\"{1:F4}\" "
        "x=\"{2:F1}\" y=\"{3:F1}\" width=\"{4:F1}\" height=\"{5:F1}\" "
        "fill=\"{6}\"><title>{0}: {1:F2}</title></rect>",
        variantName(V), S, X, Y(S), BW, Y(0) - Y(S),
        Colors[static_cast<unsigned>(V)]);
    OS << formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" font-size=\"10\" "
                  "text-anchor=\"middle\">{2:F2}</text>",
                  X + BW / 2, Y(S) - 3, S);
    OS << formatv("<text x=\"{0:F1}\" y=\"{1}\" font-size=\"11\" "
                  "text-anchor=\"middle\">{2}</text>\n",
                  X + BW / 2, H - Bottom + 16, variantName(V));
    ++I;
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
                  variantName(V), Points, Colors[static_cast<unsigned>(V)]);
    for (size_t R = 0; R < Runs; ++R)
      if (auto Y = Value(R, V))
        OS << formatv("<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"3\" "
                      "fill=\"{2}\"><title>{3} at {4}={5}: {6:F3}</title>"
                      "</circle>",
                      XPos(R), YPos(*Y), Colors[static_cast<unsigned>(V)],
                      variantName(V), esc(S.Param), esc(S.Labels[R]), *Y);
    OS << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"10\" height=\"10\" "
                  "fill=\"{2}\"/><text x=\"{3}\" y=\"{4}\" "
                  "font-size=\"11\">{5}</text>\n",
                  W - Right + 10, Top + Legend * 16,
                  Colors[static_cast<unsigned>(V)], W - Right + 24,
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
        S.Iterations, percent(S.Stability),
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

void writeHTML(raw_ostream &OS, const std::vector<Report> &Runs,
               const Sweep *S) {
  const Report &R = Runs.back();
  OS << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>decan report</title>\n<style>\n"
        "body{font-family:sans-serif;margin:1.5em;max-width:70em;color:#222}"
        "table{border-collapse:collapse;margin:.5em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}"
        "section.loop{border-top:2px solid #888;margin-top:1.5em}"
        ".warn{color:#a40}.charts{display:flex;flex-wrap:wrap;gap:1em}"
        "svg.chart{background:#fafafa;border:1px solid #ddd}"
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
       << percent(*R.Coverage) << " of the program's time</p>\n";
  for (const std::string &W : R.Warnings)
    OS << "<p class=\"warn\">warning: " << esc(W) << "</p>\n";
  OS << "<h2>Loops by potential DL1 gain</h2>\n<table class=\"summary\">"
        "<tr><th>loop</th><th>function</th><th>source</th>"
        "<th>program share</th><th>share of loop time</th>"
        "<th>verdict</th><th>DL1 gain</th><th>rank by share</th></tr>\n";
  std::vector<const LoopReport *> Order = rankedLoops(R);
  auto Verdict = [](const LoopReport &L) {
    if (L.Verdict == VerdictClass::None)
      return std::string("-");
    return L.VerdictConfidence > 0 ? formatv("{0} ({1:F0}%)", nameOf(L.Verdict),
                                             L.VerdictConfidence * 100)
                                         .str()
                                   : nameOf(L.Verdict).str();
  };
  for (const LoopReport *L : Order)
    OS << formatv("<tr><td><a href=\"#loop-{0}\">{1}</a></td><td>{2}</td>"
                  "<td>{3}</td><td>{4}</td><td>{5}</td><td>{6}</td>"
                  "<td>{7}</td><td>{8}</td></tr>\n",
                  L->RankByGain, esc(L->Id), esc(demangleSymbol(L->Function)),
                  esc(location(L->File, L->Line)),
                  L->ProgramShare ? percent(*L->ProgramShare) : "-",
                  percent(L->Share), esc(Verdict(*L)),
                  L->DL1Gain ? percent(*L->DL1Gain) : "-", L->RankByShare);
  OS << "</table>\n";
  for (const LoopReport *LP : Order) {
    const LoopReport &L = *LP;
    OS << formatv("<section class=\"loop\" id=\"loop-{0}\"><h2>#{0} {1}</h2>"
                  "<p>{2} at {3} &middot; program share {4} &middot; share "
                  "of loop time {5} &middot; verdict {6} &middot; {7} calls "
                  "in the whole run</p>\n",
                  L.RankByGain, esc(L.Id), esc(demangleSymbol(L.Function)),
                  esc(location(L.File, L.Line)),
                  L.ProgramShare ? percent(*L.ProgramShare) : "-",
                  percent(L.Share), esc(Verdict(L)), L.RunCalls);
    OS << "<div class=\"charts\">\n";
    barChart(OS, L);
    if (S && Runs.size() > 1) {
      std::vector<const LoopReport *> Per;
      for (const Report &Run : Runs)
        Per.push_back(Run.findLoop(L.Id));
      curveChart(
          OS, "sat-curve", "Saturation of " + L.Id + " vs " + S->Param,
          "saturation", L.Id, *S, Runs.size(),
          [&](size_t Ri, Variant V) -> std::optional<double> {
            if (!Per[Ri] || V == Variant::REF)
              return std::nullopt;
            return Per[Ri]->Saturation[V];
          },
          /*FromZero=*/true);
      curveChart(
          OS, "time-curve",
          "Cycles per iteration of " + L.Id + " vs " + S->Param,
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
    if (!L.Warnings.empty()) {
      OS << "<ul class=\"warnings\">";
      for (const std::string &W : L.Warnings)
        OS << "<li class=\"warn\">" << esc(W) << "</li>";
      OS << "</ul>\n";
    }
    OS << "</section>\n";
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
        "document.body.setAttribute('data-rendered-curves',c);});\n"
        "</script>\n</body></html>\n";
}

//===----------------------------------------------------------------------===//
// Remarks
//===----------------------------------------------------------------------===//

Error writeRemarks(raw_ostream &OS, const Report &R) {
  auto Ser = remarks::createRemarkSerializer(remarks::Format::YAML, OS);
  if (!Ser)
    return Ser.takeError();
  for (const LoopReport *LP : rankedLoops(R)) {
    const LoopReport &L = *LP;
    auto Emit = [&](StringRef Name, StringRef Text) {
      remarks::Remark Rm;
      Rm.RemarkType = remarks::Type::Analysis;
      Rm.PassName = "decan";
      Rm.RemarkName = Name;
      Rm.FunctionName = L.Function;
      if (!L.File.empty() && L.Line)
        Rm.Loc = remarks::RemarkLocation{L.File, L.Line, 0};
      Rm.Args.emplace_back("String", Text);
      (*Ser)->emit(Rm);
    };
    std::string Head =
        formatv("decan {0}: share {1}", L.Id, percent(L.Share)).str();
    if (L.DL1Gain)
      Head += formatv(", DL1 potential gain {0} (rank {1})",
                      percent(*L.DL1Gain), L.RankByGain)
                  .str();
    Emit("LoopSummary", Head);
    for (const std::string &D : L.Diagnosis)
      Emit("LoopDiagnosis", "decan " + L.Id + ": " + D);
    for (const std::string &W : L.Warnings)
      Emit("LoopWarning", "decan " + L.Id + ": warning: " + W);
  }
  return Error::success();
}

} // namespace decan::tool
