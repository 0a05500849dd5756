//===- analyses/Ctrl.cpp - Loop overhead (CTRL) ---------------------------===//
//
// Part of decan. Sat(CTRL), the loop's control instructions alone: the loop's
// overhead; above CtrlHigh (down to the short-call term: a short call's copy
// runs cold and reads high), the body does too little per iteration.
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
      double Sat = *St.Sat[Variant::CTRL];
      double Low = std::max(0.0, Sat - St.ShortCall);
      L.CtrlShare = Sat;
      // Past 1 the reading is the copy's, not a share: say how far down
      // it may lie.
      std::string Share =
          Sat > 1 && St.ShortCall >= 0.005 && Low < 1
              ? formatv("{0}-100% of a call (Sat(CTRL)={1:F2}; a short call's "
                        "copy reads up to {2:F2} high)",
                        StringRef(pct(std::min(1.0, Low))).drop_back().str(),
                        Sat, St.ShortCall)
                    .str()
              : formatv("{0} of a call (Sat(CTRL)={1:F2})",
                        pct(std::min(1.0, Sat)), Sat)
                    .str();
      std::string S = "loop overhead: control instructions alone take " + Share;
      if (Low >= T.CtrlHigh)
        S += ": the loop body does too little per iteration; unroll or "
             "vectorise";
      L.Diagnosis.push_back(S);
    }
  });
}

} // namespace decan::tool::analyses
