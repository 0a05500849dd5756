//===- LoopFinder.h - Innermost loops of a prebuilt binary ----------------===//
//
// Part of decan. Disassembles each function with MCDisassembler, builds its
// CFG (direct branches and jump tables; an unresolved indirect jump makes
// the function's CFG incomplete, which restricts how its loops are patched,
// never guessed), finds natural loops with LLVM's DomTreeBase and
// LoopInfoBase, keeps the innermost reducible ones, and decides per loop
// whether it can be relocated (no stack pointer use, a patchable header or
// a trampoline in padding...). lib/LoopFinder.cpp says which file does what.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LOOPFINDER_H
#define DECAN_REWRITER_LOOPFINDER_H

#include "decan/InstrKnowledge/X86Target.h"
#include "decan/Rewriter/Binary.h"

#include "llvm/MC/MCInst.h"

#include <map>
#include <string>
#include <vector>

namespace decan::rewriter {

/// One decoded instruction at its original address.
struct Instr {
  uint64_t Addr = 0;
  unsigned Size = 0;
  llvm::MCInst Inst;
};

/// A basic block of a loop, in original address order.
struct LoopBlock {
  uint64_t Start = 0, End = 0;
  std::vector<Instr> Instrs;
  /// Successor addresses: inside the loop (a LoopBlock start) or an exit.
  std::vector<uint64_t> Succs;
  /// Address control reaches by falling off the end (0: none, e.g. ends in
  /// an unconditional jump). Always also in Succs.
  uint64_t FallThrough = 0;
};

/// An innermost natural loop and whether the rewriter can move it.
struct LoopCandidate {
  std::string Function; ///< symbol (or sub_<hex>)
  uint64_t FunctionStart = 0;
  unsigned Index = 0; ///< among the function's innermost loops, by address
  uint64_t Header = 0;
  std::vector<LoopBlock> Blocks; ///< sorted by address
  std::string SkipReason;        ///< empty: can be rewritten
  std::string File;              ///< from DWARF, "" when unknown
  unsigned Line = 0;
  bool FlagsLiveIn = true; ///< EFLAGS may be read before written from Header
  /// How the loop's entry is patched. Normally a 5-byte `jmp stub` at
  /// Header. A header with room for 2 bytes only gets `jmp Trampoline`
  /// (rel8) there and the 5-byte `jmp stub` at Trampoline, in padding no
  /// code reaches (between functions, or after a jump) within 127 bytes.
  uint64_t Trampoline = 0;
  /// The function has an unresolved indirect jump (outside this loop): its
  /// CFG is incomplete, so the patch covers the header's first instruction
  /// only (docs/rewriter.md, "Patching the header").
  bool UnknownEntries = false;
  /// Names of the PLT entries the loop calls, by entry address: the
  /// variant rules keep a libm call where the plugin does.
  std::map<uint64_t, std::string> Callees;
  /// Source variables in a register at the header (DWARF, -g), by MC
  /// register: the variant rules name memory groups by their base.
  std::map<unsigned, std::string> RegisterNames;
  /// A 2-level nest (NestFinder.h, `decan run --nests`): an outer loop whose
  /// inner loops are all innermost, measured as one loop (id `f:N<k>`, k:
  /// among the function's nests by header); Blocks hold the inner loops'.
  bool Nest = false;
  /// A nest's inner loops: their Index (ids `f:L<i>`) and block starts.
  std::vector<unsigned> InnerIndices;
  std::vector<std::vector<uint64_t>> InnerBlocks;

  std::string id() const {
    return Function + (Nest ? ":N" : ":L") + std::to_string(Index);
  }
  uint64_t bytes() const;
  unsigned numInstrs() const;
  bool contains(uint64_t Addr) const; ///< a block starts at Addr
};

/// Totals over a binary (for listings and the BLAS coverage benchmark).
struct FinderStats {
  unsigned Functions = 0, FunctionsWithIndirectJump = 0;
  unsigned Trampolines = 0; ///< short headers patched through padding
  unsigned UndecodableFunctions = 0;
  uint64_t DecodedBytes = 0, UndecodedBytes = 0;
};

/// Finds every innermost loop of \p Bin. Fails (one line) when the code is
/// not sane x86-64 (packed, encrypted or not code). \p WithLines looks up
/// file:line in DWARF (LLVM's DWARF reader, which trusts the debug info;
/// the fuzz target leaves it out). Functions are analysed by \p Threads
/// threads (0: one per core); the result does not depend on how many.
llvm::Expected<std::vector<LoopCandidate>>
findLoops(const BinaryImage &Bin, const decan::X86Target &X86,
          FinderStats *Stats = nullptr, bool WithLines = true,
          unsigned Threads = 0);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LOOPFINDER_H
