//===- MachineFunctionClone.h - Copy a finished machine function ---------===//
//
// Part of decan. Copies a machine function after register allocation and
// prologue/epilogue insertion (blocks, instructions, frame, CFI, constant
// pool, jump tables, target info) into another, empty one: how the variant
// copies of a loop get REF's machine code without compiling the same IR
// again (MachineCopyFromRef.h). Debug values are not copied; locations are
// moved into the destination's subprogram.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINEFUNCTIONCLONE_H
#define DECAN_LLVM_PLUGINS_MACHINEFUNCTIONCLONE_H

namespace llvm {
class MachineFunction;
} // namespace llvm

namespace decan {

/// Whether cloneMachineFunction copies \p MF faithfully: no exception
/// handling, no stack protector, no address-taken block, no instruction
/// symbol, no target constant pool entry, no target pseudo source value.
bool canCloneMachineFunction(const llvm::MachineFunction &MF);

/// Copies \p Src (canCloneMachineFunction) into \p Dst, just created or
/// reset (MachineFunction::reset()); the debug locations move from
/// \p Src's subprogram into \p Dst's.
void cloneMachineFunction(const llvm::MachineFunction &Src,
                          llvm::MachineFunction &Dst);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINEFUNCTIONCLONE_H
