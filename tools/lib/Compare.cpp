//===- Compare.cpp - Compare two analysed reports -------------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Compare.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace decan::tool {

std::vector<LoopComparison> compareReports(const Report &A, const Report &B,
                                           const Thresholds &T) {
  std::vector<LoopComparison> Out;
  for (const LoopReport *LA : rankedLoops(A)) {
    LoopComparison C;
    C.Id = LA->Id;
    if (LA->Variants[REF])
      C.CyclesA = LA->Variants[REF]->Cycles.Median;
    // The prediction: what A says the loop could reach.
    auto Consider = [&](std::optional<double> Sat, StringRef By) {
      if (!Sat || *Sat <= 0 || *Sat >= 1)
        return;
      double P = 1 / *Sat;
      if (!C.Predicted || P > *C.Predicted) {
        C.Predicted = P;
        C.PredictedBy = By.str();
      }
    };
    Consider(LA->Saturation[DL1], "DL1");
    Consider(LA->Saturation[NO_DIV], "NO_DIV");
    if (LA->Saturation[LS] && LA->Saturation[FP])
      Consider(std::max(*LA->Saturation[LS], *LA->Saturation[FP]),
               "LS/FP overlap");
    const LoopReport *LB = B.findLoop(LA->Id);
    if (!LB || !LB->Variants[REF] || C.CyclesA <= 0) {
      C.Verdict = "only in A";
      Out.push_back(C);
      continue;
    }
    C.CyclesB = LB->Variants[REF]->Cycles.Median;
    if (C.CyclesB <= 0) {
      C.Verdict = "no data in B";
      Out.push_back(C);
      continue;
    }
    C.Speedup = C.CyclesA / C.CyclesB;
    double Noise = std::max(T.NoiseFloor, LA->Variants[REF]->Stability +
                                              LB->Variants[REF]->Stability);
    const VariantStats &RA = *LA->Variants[REF], &RB = *LB->Variants[REF];
    if (RA.TripsKnown && RB.TripsKnown && RA.TripsMedian != RB.TripsMedian)
      C.Note = formatv("trip counts differ (A {0}, B {1}): per-call times "
                       "compare different work",
                       RA.TripsMedian, RB.TripsMedian)
                   .str();
    if (C.Predicted && *C.Predicted > 1)
      C.Realized = (*C.Speedup - 1) / (*C.Predicted - 1);
    if (*C.Speedup < 1 - Noise)
      C.Verdict = "slower";
    else if (*C.Speedup <= 1 + Noise)
      C.Verdict = "no gain";
    else if (!C.Predicted)
      C.Verdict = "gain, none predicted";
    else if (*C.Speedup > *C.Predicted * (1 + Noise))
      C.Verdict = "beyond prediction";
    else if (*C.Realized >= 0.5)
      C.Verdict = "gain showed up";
    else
      C.Verdict = "partly";
    Out.push_back(C);
  }
  return Out;
}

void printComparison(raw_ostream &OS, const std::vector<LoopComparison> &Cs,
                     const Report &B) {
  OS << formatv("{0,-28} {1,12} {2,12} {3,8} {4,18} {5,9}  {6}\n", "loop",
                "A cyc/call", "B cyc/call", "speedup", "A predicted",
                "realized", "verdict");
  for (const LoopComparison &C : Cs) {
    std::string Pred =
        C.Predicted
            ? formatv("{0:F2}x ({1})", *C.Predicted, C.PredictedBy).str()
            : "-";
    OS << formatv(
        "{0,-28} {1,12:F0} {2,12} {3,8} {4,18} {5,9}  {6}\n", C.Id, C.CyclesA,
        C.Speedup ? formatv("{0:F0}", C.CyclesB).str() : "-",
        C.Speedup ? formatv("{0:F2}x", *C.Speedup).str() : "-", Pred,
        C.Realized ? formatv("{0:F0}%", *C.Realized * 100).str() : "-",
        C.Verdict);
    if (!C.Note.empty())
      OS << "  note: " << C.Note << "\n";
  }
  for (const LoopReport &L : B.Loops) {
    bool InA = false;
    for (const LoopComparison &C : Cs)
      InA |= C.Id == L.Id;
    if (!InA)
      OS << formatv("{0,-28} only in B\n", L.Id);
  }
}

} // namespace decan::tool
