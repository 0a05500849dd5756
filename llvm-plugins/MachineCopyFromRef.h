//===- MachineCopyFromRef.h - Variant copies from REF's machine code -----===//
//
// Part of decan. The copies of a loop share their IR: every uncapped
// variant copy is REF's IR under another name (IRVariantCopies.h), every
// capped copy the same capped IR (IRIterationCap.h). Yet each went through
// instruction selection, register allocation and scheduling again. Codegen
// handles one function at a time, in module order, REF before its copies;
// the first function of each group is compiled from its IR:
//
//   REF     ... PEI ... [decan-copy-from-ref: keep a copy of the machine
//           function] [decan-variants] AsmPrinter, machine function freed
//   LS      [decan-variant-body-from-ref, before ISel: a machine function
//           is kept for its group, so the IR body becomes `unreachable`]
//           ISel ... PEI (nothing to do) [decan-copy-from-ref: the kept
//           machine function replaces the empty one] [decan-variants: LS's
//           rules] AsmPrinter
//
// The copy is the code the copy's own compilation would have made (the
// same IR, the same passes); its debug locations move into the copy's
// subprogram; variable locations are not copied (line tables are). A
// function the clone cannot copy faithfully (exception handling,
// instruction symbols: MachineFunctionClone.h) leaves its group compiled
// as before. -decan-copies-from-ref=false compiles every copy from its IR.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINECOPYFROMREF_H
#define DECAN_LLVM_PLUGINS_MACHINECOPYFROMREF_H

namespace llvm {
class FunctionPass;
class PassRegistry;
void initializeVariantBodyFromRefPass(PassRegistry &);
void initializeMachineCopyFromRefPass(PassRegistry &);
} // namespace llvm

namespace decan {

/// IR pass before instruction selection: empties the body of a copy whose
/// group's machine function is kept.
llvm::FunctionPass *createVariantBodyFromRefPass();
extern char &VariantBodyFromRefID;

/// Machine pass before the variant rules: keeps the machine function of
/// each group's first copy, and installs it in the copies the IR pass
/// emptied.
llvm::FunctionPass *createMachineCopyFromRefPass();
extern char &MachineCopyFromRefID;

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINECOPYFROMREF_H
