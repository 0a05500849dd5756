//===- LoopCopy.h - A loop body ready to be placed in new code ------------===//
//
// Part of decan. The REF copy of a loop and its variants as the emitter
// places them: MCInsts whose position-dependent parts (branch targets,
// RIP-relative operands, DL1 scratch operands) are kept as absolute targets
// and re-encoded wherever the copy lands. Variant bodies come from the
// instruction-knowledge library (decan/InstrKnowledge/Variants.h): the
// rewriter has no rules of its own.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LOOPCOPY_H
#define DECAN_REWRITER_LOOPCOPY_H

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/Rewriter/LoopFinder.h"

#include "decan/abi.h"

#include <array>
#include <string>
#include <vector>

namespace decan::rewriter {

/// One instruction of a placed copy.
struct CopyInst {
  llvm::MCInst MI;
  /// Direct branch (JMP/JCC, re-emitted in the rel32 form) to this original
  /// address: a block of the loop, or an exit.
  bool IsBranch = false;
  uint64_t BranchTarget = 0;
  /// Direct call (re-emitted as call rel32) to this original address.
  bool IsCall = false;
  uint64_t CallTarget = 0;
  /// Any call: the original's return address (where unwinding through
  /// a measured copy resumes its search: the original call site).
  uint64_t ReturnAddr = 0;
  /// RIP-relative memory operand: the absolute address it designates.
  bool HasRip = false;
  uint64_t RipTarget = 0;
  /// RIP-relative operand into the loop's DL1 scratch area (offset).
  bool HasScratch = false;
  int64_t ScratchOff = 0;
};

struct CopyBlock {
  uint64_t Start = 0; ///< original address (the block's identity)
  std::vector<CopyInst> Instrs;
  uint64_t FallThrough = 0; ///< original address reached by falling off
};

/// A whole loop body, header block first.
struct LoopCopy {
  std::vector<CopyBlock> Blocks;
};

/// Every variant of one loop.
struct LoopVariants {
  std::array<LoopCopy, DECAN_NUM_VARIANTS> Copies;
  decan_machine_info MInfo{};
  unsigned Mask = 0;      ///< variants built (REF always)
  unsigned BoundMask = 0; ///< variants whose saturation is a bound
  std::array<std::string, DECAN_NUM_VARIANTS> Notes;
  unsigned ScratchSize = 0;
  /// Induction register for the trip count (0: none): a GPR in the CTRL
  /// slice updated exactly once per iteration, on every path, by
  /// add/sub/inc/dec/lea with constant \c IndStep, and kept unchanged by
  /// every built variant. trips = (value at exit - value at entry) / step,
  /// computed outside the timed region from the saved register states.
  unsigned IndReg = 0;
  int64_t IndStep = 0;
  bool Ind32 = false; ///< updated as a 32-bit register (wraps mod 2^32)
  /// Per variant, the GPR its copy counts its iteration cap down in (0: no
  /// cap; REF never has one): a register the copy never touches, loaded
  /// from the descriptor's `iteration_cap` where the copy is entered and
  /// decremented right before its header, where the back edges land
  /// (MInfo.capped_mask has the same bits; the emitter: Dispatcher.cpp).
  std::array<unsigned, DECAN_NUM_VARIANTS> CapReg{};
  /// Variants whose copy has EFLAGS (other than CF) live into its header:
  /// the count-down is `lea -1(%rcx),%rcx; jrcxz` (CapReg is RCX), which
  /// leaves them as they are; elsewhere `dec; je` (dec keeps CF).
  unsigned CapFlagsFree = 0;
};

/// The REF copy of \p L: its instructions unchanged, blocks header first.
LoopCopy refCopy(const decan::X86Target &X86, const LoopCandidate &L);

/// Builds REF and the variants in \p Mask with the instruction knowledge.
/// A variant the rules cannot build is left out with a note (never fails the
/// loop); fails only when REF itself cannot be described.
llvm::Expected<LoopVariants> buildVariants(const decan::X86Knowledge &X86,
                                           const LoopCandidate &L,
                                           unsigned Mask);

/// Appends \p Bytes bytes of multi-byte NOPs (the instruction knowledge's
/// padding) to \p Out.
llvm::Error appendNops(const decan::X86Knowledge &X86, unsigned Bytes,
                       llvm::SmallVectorImpl<char> &Out);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LOOPCOPY_H
