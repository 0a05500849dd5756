//===- MachineVariants.h - Apply decan variant rules post-RA --------------===//
//
// Part of decan. The machine pass that turns each outlined variant function's
// loop into its variant (rules in instr-knowledge/, docs/variants.md).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINEVARIANTS_H
#define DECAN_LLVM_PLUGINS_MACHINEVARIANTS_H

namespace llvm {
class FunctionPass;
class PassRegistry;
void initializeMachineVariantsPass(PassRegistry &);
} // namespace llvm

namespace decan {
/// Rewrites the loop of every function with a "decan-variant" attribute and
/// fills the loop's meta record (status, loop bytes, subset sizes).
llvm::FunctionPass *createMachineVariantsPass();
extern char &MachineVariantsID;
} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINEVARIANTS_H
