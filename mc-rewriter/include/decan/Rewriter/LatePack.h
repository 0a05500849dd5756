//===- LatePack.h - Variants of some loops, built after the base copy -----===//
//
// Part of decan. A base copy for late variants (RewriteOptions::LateBase)
// runs every loop from its relocated original and reserves a range of its
// image; a late pack holds the measured copies (REF and the variants) of
// the loops that ran, laid out for that range, so the runtime can map it
// into the running program (abi.h, decan_late_pack_header). Its code
// reaches the base's descriptors, resume stubs and shared exit routine at
// addresses fixed when the base was written: the range is inside the same
// image. Its .eh_frame has the copies' unwind rules (the runtime registers
// it with the program's unwinder).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LATEPACK_H
#define DECAN_REWRITER_LATEPACK_H

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"
#include "decan/abi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace decan::rewriter {

struct LatePackOptions {
  /// Variants to build (bit per decan_variant); REF is always built.
  unsigned VariantMask = (1u << DECAN_NUM_VARIANTS) - 1;
  /// Threads that build variants (0: one per core).
  unsigned Threads = 0;
  /// Where in the late range the pack goes (page-aligned): past the packs
  /// installed before it in the same run.
  uint64_t RangeOffset = 0;
};

struct LatePackResult {
  /// Loops in the pack, in the order asked.
  std::vector<std::string> Built;
  /// Loops asked for and left out, with the reason (unknown id, not in the
  /// base, REF could not be built, the range is full).
  std::vector<std::pair<std::string, std::string>> Left;
  uint64_t CodeSize = 0, ScratchSize = 0;
  /// The end of what the pack takes of the range (the next pack's
  /// RangeOffset).
  uint64_t RangeEnd = 0;
};

/// Writes to \p OutPath the late pack of the loops \p Ids (ids of
/// \p Loops, the loops of \p Input, hottest first: when the range is too
/// small the last ones are left out) for \p BasePath, the base copy
/// rewritten from \p Input by this decan build.
llvm::Expected<LatePackResult>
buildLatePack(const BinaryImage &Input, const decan::X86Knowledge &X86,
              const std::vector<LoopCandidate> &Loops, llvm::StringRef BasePath,
              llvm::ArrayRef<std::string> Ids, llvm::StringRef OutPath,
              const LatePackOptions &Opts = {});

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LATEPACK_H
