//===- analyses/MemoryCpu.cpp - Memory or CPU: the PAMDA overview ---------===//
//
// Part of decan. Sat(LS) against Sat(DL1), the loop with ideal memory
// (thesis 5.4.2): whether the memory subsystem or the CPU side bounds the
// loop, classified like Algorithm 2 on every bootstrap replicate.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace decan::tool {

MemoryCpuClass classifyMemoryCpu(double SatLS, double SatDL1,
                                 const Thresholds &T) {
  switch (classifyStreams(SatLS, SatDL1, T)) {
  case StreamsClass::MemoryBound:
    return MemoryCpuClass::MemoryBound;
  case StreamsClass::FPBound: // DL1, the CPU side, dominates
    return MemoryCpuClass::CpuBound;
  case StreamsClass::Unsaturated:
    return MemoryCpuClass::Unsaturated;
  case StreamsClass::Balanced:
  case StreamsClass::None:
  case StreamsClass::NearThreshold:
    break;
  }
  return MemoryCpuClass::Balanced;
}

/// What a memory/CPU class means for the loop.
static StringRef why(MemoryCpuClass MC) {
  switch (MC) {
  case MemoryCpuClass::MemoryBound:
    return "the memory subsystem bounds the loop; CPU-side work is hidden";
  case MemoryCpuClass::CpuBound:
    return "the CPU side (the loop with ideal memory) bounds it; memory "
           "accesses are hidden";
  case MemoryCpuClass::Unsaturated:
    return "memory and CPU work overlap poorly: improving either side pays";
  default:
    return "both sides saturate: memory and CPU work overlap, both need "
           "work";
  }
}

namespace analyses {

void memoryCpu(AnalysisContext &C) {
  const Thresholds &T = C.T;
  forEachLoop(C, [&](LoopReport &L, LoopState &S) {
    const Variant DL1 = Variant::DL1;
    auto [SatLS, BootLS] = satOfLS(L, S, S.Boot[DL1].size());
    if (!SatLS || !S.Sat[DL1] || S.TooShort)
      return;
    bool Paired = !BootLS.empty() && !S.Boot[DL1].empty();
    Classified Cl = classifyReplicates(
        {*SatLS, *S.Sat[DL1]}, {BootLS, S.Boot[DL1]},
        [&](const double *X) {
          return nameOf(classifyMemoryCpu(X[0], X[1], T)).str();
        },
        T.Margin, S.ShortCall);
    if (!confident(Cl, Paired, T))
      return;
    // The class of the point itself, whatever the margin says.
    MemoryCpuClass MC = classifyMemoryCpu(*SatLS, *S.Sat[DL1], T);
    L.MemoryCpu = MC;
    L.Diagnosis.push_back(
        formatv("memory vs CPU (PAMDA, thesis 5.4.2): {0} (Sat(LS)={1:F2}, "
                "Sat(DL1)={2:F2}): {3}{4}",
                nameOf(MC), *SatLS, *S.Sat[DL1], why(MC),
                confidenceText(Cl, Paired))
            .str());
  });
}

} // namespace analyses
} // namespace decan::tool
