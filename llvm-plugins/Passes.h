//===- Passes.h - Passes of the decan compiler plugin ---------------------===//
//
// Part of decan. IR passes are registered with the new pass manager through
// the plugin's PassBuilder hooks; machine passes are legacy passes inserted
// into codegen through RegisterTargetPassConfigCallback.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_PASSES_H
#define DECAN_LLVM_PLUGINS_PASSES_H

namespace llvm {
class FunctionPass;
class PassBuilder;
class PassRegistry;
class TargetPassConfig;
void initializeMachineLoopReportPass(PassRegistry &);
} // namespace llvm

namespace decan {

/// Machine pass that reports each innermost loop (remark "decan",
/// -Rpass=decan) with its file:line and size.
llvm::FunctionPass *createMachineLoopReportPass();
extern char &MachineLoopReportID;

/// IR side (IRPasses.cpp): loop selection, outlining per variant, dispatch
/// stubs, probes and loop tables, registered at the end of the optimization
/// pipeline and by name for `opt -passes=`.
void registerIRPasses(llvm::PassBuilder &PB);

/// Machine side (MachinePasses.cpp): the variant transformations, inserted
/// post-RA into every x86-64 TargetPassConfig.
void addMachinePasses(llvm::TargetPassConfig &TPC);
void initializeMachinePasses(llvm::PassRegistry &Registry);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_PASSES_H
