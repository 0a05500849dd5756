//===- analyses/Calls.cpp - What the loop's calls cost (NO_CALL) ----------===//
//
// Part of decan. Sat(NO_CALL): the loop without its calls; what they cost
// of the loop and, by Amdahl's law, of the program.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool::analyses {

void calls(AnalysisContext &C) {
  forEachLoop(C, [&](LoopReport &L, LoopState &St) {
    const std::optional<double> &Sat = St.Sat[Variant::NO_CALL];
    if (!Sat || St.TooShort)
      return;
    std::string S = formatv("calls cost {0} of this loop (Sat(NO_CALL)={1:F2})",
                            pct(std::max(0.0, 1 - *Sat)), *Sat)
                        .str();
    if (L.ProgramShare && *Sat < 1)
      S += formatv("; without them the program would run {0:F2}x faster "
                   "(Amdahl, program share {1})",
                   1 / (1 - *L.ProgramShare * (1 - *Sat)), pct(*L.ProgramShare))
               .str();
    L.Diagnosis.push_back(S);
  });
}

} // namespace decan::tool::analyses
