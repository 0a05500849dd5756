//===- Subsets.h - Which instruction belongs to which decan subset --------===//
//
// Part of decan. Classifies x86-64 opcodes (by MCInstrDesc and name, since
// the X86 opcode enums are not installed with LLVM) into the instruction
// subsets of the DECAN thesis (section 4.4.1), and computes the loop-level
// (global view) subsets: CTRL and the address slice.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_SUBSETS_H
#define DECAN_INSTRKNOWLEDGE_SUBSETS_H

#include "decan/InstrKnowledge/Instr.h"
#include "decan/abi.h"

#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <string>
#include <vector>

namespace decan {

class X86Knowledge;

/// Subsets one instruction can belong to (a bit set). Local-view bits come
/// from the opcode alone; SubsetCtrl and SubsetAddr from the loop.
enum SubsetBits : unsigned {
  SubsetNone = 0,
  SubsetLoad = 1u << 0,        ///< L: reads memory through a memory operand
  SubsetStore = 1u << 1,       ///< S: writes memory through a memory operand
  SubsetFP = 1u << 2,          ///< arithmetic on FP/SIMD units (scalar FP, SSE,
                               ///< AVX, AVX2, AVX-512, integer SIMD included)
  SubsetDiv = 1u << 3,         ///< DIV: div and sqrt (FP and integer division)
  SubsetBranch = 1u << 4,      ///< conditional or unconditional direct branch
  SubsetOther = 1u << 5,       ///< scalar integer work, flag/reg moves, lea
  SubsetUnsupported = 1u << 6, ///< no rule handles it (calls, x87, MMX,
                               ///< string ops, atomics, stack ops, ...)
  SubsetGather = 1u << 7,  ///< vector-indexed memory access (gather/scatter)
  SubsetPureMem = 1u << 8, ///< memory access only (mov/broadcast loads,
                           ///< stores, prefetch): no arithmetic to keep
  SubsetNop = 1u << 9,     ///< NOP (no dependences)
  SubsetCtrl = 1u << 10,   ///< CTRL: backward slice of the exit branches
  SubsetAddr = 1u << 11,   ///< backward slice of memory addresses
  SubsetCall = 1u << 12,   ///< a direct or indirect call (Instr::Call says
                           ///< what it may do; docs/variants.md, "Calls")
  SubsetRed = 1u << 13,    ///< RED: an accumulator update (acc = acc op x)
                           ///< whose result only the reduction chain reads
                           ///< (and the loop's exit); never CTRL or address
};

/// Local-view subsets of opcode \p Opcode, from its descriptor and name
/// (and, with \p MRI, its operand register classes: vector/FP/mask classes
/// make it FP; without, names decide).
unsigned classifyOpcode(const llvm::MCInstrInfo &MII, unsigned Opcode,
                        const llvm::MCRegisterInfo *MRI = nullptr);

/// Subsets of every instruction of a loop (local view + CTRL + address
/// slice), and the counts decan_machine_info records.
struct LoopSubsets {
  std::vector<unsigned> Bits; ///< per instruction of the LoopBody
  unsigned NumInstrs = 0, NumLoad = 0, NumStore = 0, NumFP = 0, NumDiv = 0,
           NumCtrl = 0, NumAddr = 0, NumOther = 0, NumCall = 0, NumRed = 0;
  /// GROUPING (thesis 4.4.3.3): per instruction, its memory group (-1:
  /// none). A group is one data structure as the addresses show it: the
  /// accesses with the same base, index, scale, segment and symbol, any
  /// displacement (a[i-1], a[i], a[i+1]: hit under miss stays inside the
  /// group). CTRL-slice, stack (RSP), RIP-relative scalar and gather
  /// accesses belong to none. Numbered in order of first access.
  std::vector<int> Group;
  unsigned NumGroups = 0;
  std::vector<std::string> GroupNames; ///< "(%rsi,%rax,8)", "sym(,%rax,8)"
  std::vector<unsigned> GroupAccesses; ///< instructions per group
  std::vector<unsigned> GroupBase;     ///< base register per group (0: none)
  /// Loads whose value feeds their own address in a later iteration
  /// (pointer chasing): each iteration waits for the previous one's load.
  unsigned NumChasedLoad = 0;
  /// Some exit depends on a load of memory the loop also stores, as its
  /// operands show (the same base register or index, or opaque symbols
  /// that may be one object), unless the addresses prove the load never
  /// reads a byte the loop stored (neverReadsStored: the store writes what
  /// was read already, or where the load never comes): variants that
  /// change stores would change what the exit reads. Refused in every
  /// variant.
  bool CtrlReadsStoredMemory = false;
  /// Some exit depends on a load that a store of the loop may alias where
  /// nothing proves either way (the front end's alias analysis says "may",
  /// or, without one, other registers): built only in copies that carry an
  /// iteration cap (VariantOptions::ExitCapped), which ends a copy that
  /// runs on, and whose samples count only where its trip count equals
  /// REF's on the same input (docs/variants.md, "Copies that could run
  /// forever").
  bool CtrlMayReadStoredMemory = false;
  /// Some exit depends on a load while a call in the loop may write memory:
  /// a variant that deletes the call could change the trip count.
  bool CtrlReadsCallWrittenMemory = false;
  /// The backward slice of some exit condition (SubsetCtrl) holds a load
  /// or a call: what the exit sees may depend on memory, which variants
  /// never write (and calls they delete), even where the rules above find
  /// no store or call that could write it (a call of a "pure" function
  /// that writes a global, an alias the operands hide, another thread).
  /// Every variant copy of such a loop carries an iteration cap, in both
  /// front ends (docs/variants.md, "Copies that could run forever").
  bool CtrlReadsMemory = false;
  /// The same for the exit tests alone (the branches of exiting blocks, a
  /// nest's inner loops' included): whether a copy ends, not which path an
  /// iteration takes, depends on memory. A nest whose loop tests do is
  /// refused in the rewriter (it carries no iteration cap there).
  bool ExitReadsMemory = false;
};

/// Computes all subsets of \p Loop. CTRL is the backward slice, through
/// registers, flags and loop-carried values, of every branch in the loop;
/// the address slice that of every base/index register of a memory operand.
LoopSubsets computeSubsets(const X86Knowledge &K, const LoopBody &Loop);

/// Writes the GROUPING fields of \p MI (n_groups, group_accesses,
/// group_name) from \p S: what both front ends record.
void recordGroups(const LoopSubsets &S, decan_machine_info &MI);

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_SUBSETS_H
