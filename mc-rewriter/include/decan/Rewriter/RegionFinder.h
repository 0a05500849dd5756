//===- RegionFinder.h - Outer loops of a prebuilt binary, as regions ------===//
//
// Part of decan. The outer loops (top-level loops that hold other loops)
// of each function, timed REF only as regions (DECAN_DESC_REGION, like the
// plugin's `--regions`) without moving them: the original code keeps
// running, so its innermost loops keep their own patches. A region is
// entered on each edge into its header from outside the loop and left at
// each exit block: each such place is one `jmp` over whole instructions of
// one basic block outside every loop (the entry block's last instructions,
// the exit block's first; 5 bytes, or 2 to a trampoline in padding), which
// the region's stub runs after (enter) or before (leave) its test of the
// descriptor. A function that holds loops is a region too (`region:f`,
// as the plugin's), entered at its first instructions and left at each
// return and tail jump: the return address is never touched, so unwinding
// and shadow stacks see the program's own frames.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_REGIONFINDER_H
#define DECAN_REWRITER_REGIONFINDER_H

#include "decan/InstrKnowledge/X86Target.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"

#include <string>
#include <vector>

namespace decan::rewriter {

/// One patched place of a region: a `jmp` at Patch over the whole
/// instructions Moved, which the stub runs instead.
struct RegionSite {
  /// Enter: the last instructions of a block with an edge into the
  /// header (the stub enters the region on the paths to the header);
  /// leave: the first instructions of an exit block (the stub leaves the
  /// region, then runs them).
  bool Enter = false;
  uint64_t Patch = 0;
  /// A site of 2 to 4 bytes: `jmp rel8` at Patch to a 5-byte `jmp` to the
  /// stub here, in padding no code reaches within 127 bytes (as a short
  /// loop header's trampoline); 0 for a 5-byte patch.
  uint64_t Trampoline = 0;
  std::vector<Instr> Moved;
  /// Where control goes after the last moved instruction when it falls
  /// through (0: it does not, e.g. a jmp or ret).
  uint64_t FallThrough = 0;
  /// EFLAGS may be read before written where the stub's test runs (the
  /// header, for an enter; the exit block, for a leave): the stub saves
  /// them.
  bool FlagsLive = true;
  /// The test runs before the moved instructions (a leave; a function's
  /// enter, at its first instructions), not after them.
  bool TestFirst = false;
};

/// An outer loop, or a function with loops, and whether (and where) it can
/// be timed as a region.
struct RegionCandidate {
  std::string Function;
  uint64_t FunctionStart = 0;
  /// The whole function (entered at its first instructions, left at each
  /// return and tail jump), not an outer loop.
  bool WholeFunction = false;
  unsigned Index = 0;         ///< among the function's outer loops, by header
  uint64_t Header = 0;        ///< the loop's header; a function's start
  unsigned NumInnerLoops = 0; ///< loops nested in it
  /// The function calls itself (directly): activations nest, so the region
  /// gets no accounting stride (abi.h, DECAN_DESC_RECURSIVE).
  bool Nests = false;
  std::string File;
  unsigned Line = 0;
  std::string SkipReason; ///< empty: can be timed
  std::vector<RegionSite> Sites;
  /// Addresses whose line is the region's (the first found), header first.
  std::vector<uint64_t> LineProbes;

  /// "region:f:L0" or "region:f", as the plugin names its regions.
  std::string id() const {
    return WholeFunction ? "region:" + Function
                         : "region:" + Function + ":L" + std::to_string(Index);
  }
};

/// Finds the functions with loops and the outer loops of every function of
/// \p Bin, each function before its loops (serially: regions
/// are asked for, and cost a second decode of each function). Short sites
/// take trampolines from the padding \p Loops' trampolines left.
std::vector<RegionCandidate>
findRegions(const BinaryImage &Bin, const decan::X86Target &X86,
            const std::vector<LoopCandidate> &Loops, bool WithLines = true);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_REGIONFINDER_H
