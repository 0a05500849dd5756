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
class PassRegistry;
void initializeMachineLoopReportPass(PassRegistry &);
} // namespace llvm

namespace decan {

/// Machine pass that reports each innermost loop (remark "decan",
/// -Rpass=decan) with its file:line and size.
llvm::FunctionPass *createMachineLoopReportPass();
extern char &MachineLoopReportID;

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_PASSES_H
