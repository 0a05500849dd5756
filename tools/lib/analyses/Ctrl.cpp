//===- analyses/Ctrl.cpp - Loop overhead (CTRL) ---------------------------===//
//
// Part of decan. Sat(CTRL), the loop's control instructions alone: the loop's
// overhead; above CtrlHigh, the body does too little per iteration.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool::analyses {

void ctrl(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    if (St.Sat[Variant::CTRL] && !St.TooShort) {
      L.CtrlShare = *St.Sat[Variant::CTRL];
      std::string S = formatv("loop overhead: control instructions alone "
                              "take {0} of a call (Sat(CTRL)={1:F2})",
                              pct(std::min(1.0, *St.Sat[Variant::CTRL])),
                              *St.Sat[Variant::CTRL])
                          .str();
      if (*St.Sat[Variant::CTRL] >= T.CtrlHigh)
        S += ": the loop body does too little per iteration; unroll or "
             "vectorise";
      L.Diagnosis.push_back(S);
    }
  });
}

} // namespace decan::tool::analyses
