//===- IROutline.h - decan: outline innermost loops per variant -----------===//
//
// Part of decan. A module pass ("decan-outline") that turns every selected
// innermost loop into a measurable experiment:
//
// Before:                        After:
//   ph:                            ph:
//     br %header                     %a = load volatile @f.decan.L0.desc.active
//   header: ...  (loop)              br %a != 0, %decan.measure, %header
//   exit:                          decan.measure:            ; cold
//     %x.lcssa = phi [%x, %lat]      %r = call @f.decan.L0.measure(ins...)
//                                    %x.out = extractvalue %r, 1
//                                    br %exit               ; loop ran there
//                                  header: ...  (original loop, intact)
//                                  exit:
//                                    %x.lcssa = phi [%x, %lat],
//                                                   [%x.out, %decan.measure]
//
//   f.decan.L0.measure (cold, preserve_allcc): the live-ins into a frame,
//   the module's measured call decan.measure_call(@f.decan.L0.variants,
//   frame) called through the module's register-saving helper
//   decan.preserve_all; returns {exit index, live-outs} from the frame.
//   decan.measure_call (one per module): __decan_begin_call, the chosen
//   copy from the loop's record {desc, call, copies} through the record's
//   decan.call(copy, frame) (the one call site of the copies, shared by the
//   loops whose copies take the same arguments: the live-ins from the
//   frame), __decan_end_call, and the REF copy again when the variant's
//   effects must not stand.
//
//   define internal void @f.decan.L0.REF(ins..., ptr %x.out, ptr %cycles,
//                                        ptr %trips) "decan-variant"="REF"
//   entry:  %t0 = asm "lfence; rdtsc"      ; then the cloned loop, untouched
//   exit:   %t1 = asm "rdtscp; lfence"
//           store %t1 - %t0, %cycles ; trips from the IV's exit value
//           store %x', %x.out ; ret void
//
// The variants' copies are identical clones of REF, one per variant that
// -decan-build-variants asks (by default what `decan run` rotates; the loop's
// variant_mask says which); the machine pass rewrites their loop bodies
// after register allocation.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IROUTLINE_H
#define DECAN_LLVM_PLUGINS_IROUTLINE_H

#include "llvm/IR/PassManager.h"

namespace llvm {
class InlineAsm;
class LLVMContext;
} // namespace llvm

namespace decan {

/// The probes of every outlined copy: `lfence; rdtsc` at its start and
/// `rdtscp; lfence` at its exits, each returning the 64-bit TSC.
llvm::InlineAsm *probeAsm(llvm::LLVMContext &Ctx, bool End);
/// The end probe's asm text: the counter read, then its halves put
/// together (MachineSharedCode.cpp splits the second part off).
inline constexpr const char *EndProbeAsm =
    "rdtscp\n\tlfence\n\tshlq $$32, %rdx\n\torq %rdx, %rax";

/// Outlines selected innermost loops, adds dispatch stubs, probes and the
/// loop tables (IRLoopTable.h).
class OutlinePass : public llvm::PassInfoMixin<OutlinePass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IROUTLINE_H
