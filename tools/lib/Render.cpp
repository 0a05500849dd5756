//===- Render.cpp - Tables and remarks from a report ----------------------===//
//
// Part of decan. See decan/Tool/Render.h: the terminal table of a report,
// `decan list`'s table and the remarks (the HTML page is in HTML.cpp).
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Render.h"

#include "decan/Tool/Analysis.h"
#include "decan/Tool/LoopList.h"
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
#include <optional>

using namespace llvm;

namespace decan::tool {

std::string sourceLocation(const std::string &File, unsigned Line) {
  if (File.empty())
    return "?";
  return Line ? formatv("{0}:{1}", File, Line).str() : File;
}

std::string percentText(double X) { return formatv("{0:F1}%", X * 100).str(); }

//===----------------------------------------------------------------------===//
// Terminal
//===----------------------------------------------------------------------===//

std::string foldedWarnings(ArrayRef<std::string> Warnings) {
  // "LS: unstable samples, ..." and "FP: unstable samples, ..." are one
  // kind of warning: its head (up to the first clause break), with the
  // variants it was said of.
  std::vector<std::pair<std::string, std::string>> Kinds; // head, variants
  for (StringRef W : Warnings) {
    auto [First, Rest] = W.split(": ");
    std::string Who;
    if (!Rest.empty() && parseVariant(First)) {
      Who = First.str();
      W = Rest;
    }
    StringRef Head = W.take_front(W.find_first_of(",;(:"));
    Head = Head.trim();
    if (Head.size() > 48)
      Head = Head.take_front(45);
    auto It = find_if(Kinds, [&](const auto &K) { return K.first == Head; });
    if (It == Kinds.end())
      It = Kinds.insert(Kinds.end(), {Head.str(), ""});
    if (!Who.empty())
      It->second += (It->second.empty() ? "" : ", ") + Who;
  }
  std::string Out = formatv("{0} warning{1}: ", Warnings.size(),
                            Warnings.size() == 1 ? "" : "s")
                        .str();
  constexpr size_t MaxWidth = 120;
  for (size_t I = 0; I < Kinds.size(); ++I) {
    std::string Part = Kinds[I].first;
    if (!Kinds[I].second.empty())
      Part += " (" + Kinds[I].second + ")";
    if (I && Out.size() + Part.size() > MaxWidth) {
      Out += formatv("; {0} more", Kinds.size() - I).str();
      break;
    }
    Out += (I ? "; " : "") + Part;
  }
  return Out + " (--verbose prints them)";
}

/// One measured loop of the table: its heading, whole run, late variants,
/// variants' statistics and counters, diagnosis and warnings (folded into
/// one line unless \p Verbose).
static void printLoop(raw_ostream &OS, const LoopReport &L, bool Verbose) {
  OS << "\n"
     << formatv("#{0} {1}  {2} at {3}", L.Rank, L.name(),
                shortFunctionName(demangleSymbol(L.Function)),
                sourceLocation(L.File, L.Line));
  if (L.ProgramShare)
    OS << "  program "
       << (L.ProgramShareLowerBound    ? ">="
           : L.ProgramShareApproximate ? "~"
                                       : "")
       << percentText(*L.ProgramShare);
  OS << "  loops " << percentText(L.Share);
  if (L.PredictedGain)
    OS << "  gain " << percentText(*L.PredictedGain) << " of it ("
       << L.PredictedGainBy << ")";
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
                  "variant", "samples", "pairs", "excl", "cyc/call", "cyc/iter",
                  "stab", "sat", "95% interval");
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
                  S.Cycles.Median, PerIter, percentText(S.Stability), Sat, CI);
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
  if (Verbose || L.Warnings.size() == 1) {
    for (const std::string &W : L.Warnings)
      OS << "  warning: " << W << "\n";
  } else if (!L.Warnings.empty()) {
    OS << "  " << foldedWarnings(L.Warnings) << "\n";
  }
}

void printReportTable(raw_ostream &OS, const Report &R, bool Verbose) {
  for (const std::string &W : R.Warnings)
    OS << "warning: " << W << "\n";
  if (R.Loops.empty()) {
    OS << "decan: no loop was measured\n";
    return;
  }
  unsigned Measured = 0;
  for (const LoopReport &L : R.Loops)
    Measured += !L.isRegion() && (L.RunCalls != 0 || L.Variants[Variant::REF]);
  if (R.Coverage) {
    // As the shares took it out (analyses/Shares.cpp), or said it stayed in.
    std::optional<double> Added = decanAddedShare(R);
    OS << formatv("run: the {0} measured loop{1} {2} of the program's "
                  "time; decan's own work (variant calls, probes, sampling) "
                  "{3}\n",
                  Measured, Measured == 1 ? " covers" : "s cover",
                  percentText(*R.Coverage),
                  Added ? "added " + percentText(*Added)
                        : std::string("is left in it (lower bounds)"));
  }
  OS << "Loops by what a fix would save (share x the best settled gain; "
        "program = part of the program's time, loops = part of measured "
        "loop time)\n";
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
      // Regions are off unless asked for (decan run --regions); a loop
      // that yielded to the measured loops it calls was called, and its
      // warning says why it has no figures.
      bool Yielded = any_of(R.Warnings, [&](StringRef W) {
        return W.starts_with(L.Id + " calls measured loops");
      });
      if (!L.isRegion() && !Yielded && ++NumUnmeasured <= MaxUnmeasuredNamed)
        Unmeasured += (Unmeasured.empty() ? "" : ", ") + L.name();
      continue;
    }
    if (L.isRegion()) {
      // Timed, not diagnosed: one line each, after the loops.
      if (!RegionsHeader)
        OS << "\nRegions (REF only: where the time the innermost loops miss "
              "goes)\n";
      RegionsHeader = true;
      OS << formatv("  {0}  {1} at {2}", L.name(),
                    shortFunctionName(demangleSymbol(L.Function)),
                    sourceLocation(L.File, L.Line));
      if (L.ProgramShare)
        OS << "  program " << (L.ProgramShareApproximate ? "~" : "")
           << percentText(*L.ProgramShare);
      if (L.RunCalls)
        OS << formatv("  {0} call{1}, {2:F0} cycles/call", L.RunCalls,
                      L.RunCalls == 1 ? "" : "s",
                      L.TimeCycles / (double)L.RunCalls);
      OS << "\n";
      for (const std::string &D : L.Diagnosis)
        OS << "    " << D << "\n";
      continue;
    }
    printLoop(OS, L, Verbose);
  }
  if (NumUnmeasured > MaxUnmeasuredNamed)
    Unmeasured += formatv(" and {0} more (decan run --json lists them)",
                          NumUnmeasured - MaxUnmeasuredNamed)
                      .str();
  if (!Unmeasured.empty())
    OS << "\nnot measured (never called while active): " << Unmeasured << "\n";
  if (std::string Time = wallCpuText(R); !Time.empty())
    OS << "\n" << Time << "\n";
}

/// The variants the producer was not asked to build for \p L (decan rewrite
/// and the plugin build what `decan run` rotates unless told otherwise);
/// NO_CALL of a loop without calls is never built, and GROUPING's copies
/// past the loop's groups are empty: neither is named.
static std::string notEmitted(const MetaLoop &L) {
  std::string Out;
  for (unsigned V = 0; V < NumVariants; ++V)
    if (Variant(V) != Variant::NO_CALL && !(L.VariantMask >> V & 1) &&
        !(variantGroup(Variant(V)) >= 0 &&
          L.MInfo.status[V] == DECAN_VARIANT_EMPTY))
      Out += (Out.empty() ? "" : ",") + std::string(variantName(Variant(V)));
  return Out;
}

void printLoopList(raw_ostream &OS, const std::vector<MetaLoop> &Loops) {
  // What the build left out, said once when every instrumented loop has
  // the same copies, per loop otherwise.
  std::optional<std::string> Common;
  for (const MetaLoop &L : Loops) {
    if (!L.SkipReason.empty() || !L.VariantMask ||
        StringRef(L.Id).starts_with("region:"))
      continue;
    std::string N = notEmitted(L);
    if (!Common)
      Common = N;
    else if (*Common != N)
      Common = "";
  }
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
                  L.Id, demangleSymbol(L.Function),
                  sourceLocation(L.File, L.Line), Avail,
                  M.loop_bytes[DECAN_REF], M.n_instrs, M.n_load, M.n_store,
                  M.n_fp, M.n_div, M.n_ctrl, M.n_addr);
    if (!L.SkipReason.empty()) {
      OS << "    skipped: " << L.SkipReason << "\n";
      continue;
    }
    std::string Why, Deleted;
    for (unsigned V = 0; V < NumVariants; ++V) {
      // A loop without calls has no NO_CALL copy: nothing to say.
      if (Variant(V) == Variant::NO_CALL && !(L.VariantMask >> V & 1))
        continue;
      // GROUPING's copies past the loop's groups: nothing to say either.
      if (variantGroup(Variant(V)) >= 0 && M.status[V] == DECAN_VARIANT_EMPTY)
        continue;
      // Not asked of the producer: named once, without a reason.
      if (!(L.VariantMask >> V & 1))
        continue;
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
    if (std::string N = notEmitted(L); !N.empty() && (!Common || *Common != N))
      OS << "    not emitted: " << N << "\n";
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
  if (Common && !Common->empty())
    OS << "not emitted in any loop: " << *Common
       << " (decan flags --extended, --groups or --variants build them)\n";
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
        formatv("decan {0}: share {1}", L.name(), percentText(L.Share)).str();
    if (L.PredictedGain)
      Head += formatv(", predicted gain {0} ({1}, rank {2})",
                      percentText(*L.PredictedGain), L.PredictedGainBy, L.Rank)
                  .str();
    Emit("LoopSummary", Head);
    for (const std::string &D : L.Diagnosis)
      Emit("LoopDiagnosis", "decan " + L.name() + ": " + D);
    for (const std::string &W : L.Warnings)
      Emit("LoopWarning", "decan " + L.name() + ": warning: " + W);
  }
  return Error::success();
}

} // namespace decan::tool
