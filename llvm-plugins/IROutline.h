//===- IROutline.h - decan: outline innermost loops per variant -----------===//
//
// Part of decan. A module pass ("decan-outline") that turns every selected
// innermost loop into a measurable experiment:
//
// Before:                        After:
//   ph:                            ph:
//     br %header                     %a = load volatile @f.decan.L0.desc.active
//   header: ...  (loop)              br %a != 0, %decan.measure, %ph.split
//   exit:                          decan.measure:
//     %x.lcssa = phi [%x, %lat]      %v = call @__decan_begin_call(@desc)
//                                    br %v u< 6, %decan.call, %ph.split
//                                  decan.call:
//                                    call @f.decan.L0.variants[%v](ins...,
//                                         outs..., %cycles, %trips)
//                                    %r = call @__decan_end_call(@desc, %v, ..)
//                                    br %r != 0, %ph.split, %decan.take
//                                  decan.take:  ; results of the copy stand
//                                    %x.out = load %x.slot ; br %exit
//                                  ph.split: br %header ; original loop, intact
//                                  exit:
//                                    %x.lcssa = phi [%x, %lat], [%x.out, ..]
//
//   define internal void @f.decan.L0.REF(ins..., ptr %x.slot, ptr %cycles,
//                                        ptr %trips) "decan-variant"="REF"
//   entry:  %t0 = asm "lfence; rdtsc"      ; then the cloned loop, untouched
//   exit:   %t1 = asm "rdtscp; lfence"
//           store %t1 - %t0, %cycles ; trips from the IV's exit value
//           store %x', %x.slot ; ret void
//
// The copies for LS, FP, NO_DIV, DL1 and CTRL are identical clones; the
// machine pass rewrites their loop bodies after register allocation.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IROUTLINE_H
#define DECAN_LLVM_PLUGINS_IROUTLINE_H

#include "llvm/IR/PassManager.h"

namespace decan {

/// Outlines selected innermost loops, adds dispatch stubs, probes and the
/// loop tables (IRLoopTable.h).
class OutlinePass : public llvm::PassInfoMixin<OutlinePass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IROUTLINE_H
