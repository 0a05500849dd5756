//===- Subsets.h - Which instruction belongs to which decan subset --------===//
//
// Part of decan. Classifies x86-64 opcodes (by MCInstrDesc and name, since
// the X86 opcode enums are not installed with LLVM) into the instruction
// subsets of the DECAN thesis (section 4.4.1).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_SUBSETS_H
#define DECAN_INSTRKNOWLEDGE_SUBSETS_H

#include "llvm/MC/MCInstrInfo.h"

namespace decan {

/// Local-view subsets one instruction can belong to (a bit set).
enum SubsetBits : unsigned {
  SubsetNone = 0,
  SubsetLoad = 1u << 0,
  SubsetStore = 1u << 1,
  SubsetFP = 1u << 2,
  SubsetDiv = 1u << 3,
};

/// Subsets of opcode \p Opcode, from its descriptor and name.
unsigned classifyOpcode(const llvm::MCInstrInfo &MII, unsigned Opcode);

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_SUBSETS_H
