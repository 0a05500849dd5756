//===- Variants.cpp - Variant copies through the instruction knowledge ----===//
//
// Part of decan. Translates a loop's REF copy into the instruction
// knowledge's LoopBody, asks it for each variant (rules, verifier, layout),
// and translates the result back into placeable MCInsts.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/LoopCopy.h"

using namespace llvm;
using namespace decan::rewriter;

Expected<LoopVariants> decan::rewriter::buildVariants(const X86Context &X86,
                                                      const LoopCandidate &L,
                                                      unsigned Mask) {
  LoopVariants V;
  V.Copies[DECAN_REF] = refCopy(X86, L);
  V.Mask = 1u << DECAN_REF;
  V.MInfo.status[DECAN_REF] = DECAN_VARIANT_OK;
  V.MInfo.n_instrs = L.numInstrs();
  V.MInfo.loop_bytes[DECAN_REF] = L.bytes();
  for (unsigned K = 1; K < DECAN_NUM_VARIANTS; ++K)
    if (Mask & (1u << K))
      V.Notes[K] = "instruction-knowledge rules not linked yet";
  return V;
}
