//===- Instr.h - Instructions as the instruction knowledge sees them ------===//
//
// Part of decan. A small, front-end-neutral view of one x86-64 instruction
// (opcode + explicit operands in MCInst order) and of a loop body, so the
// same rules run on MachineInstr (compiler plugin, post-RA) and on MCInst
// (binary rewriter).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_INSTR_H
#define DECAN_INSTRKNOWLEDGE_INSTR_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace decan {

/// One explicit operand. Symbolic operands (globals, constant-pool entries,
/// labels, MCExprs) are opaque: rules never look inside them, and a front end
/// re-creates them from `SrcOp` of the instruction they were copied from.
struct Operand {
  enum KindTy : uint8_t {
    Register,  ///< register (0 = no register)
    Immediate, ///< immediate / displacement value
    Symbol,    ///< symbolic value, copied from operand SrcOp of the original
    Scratch,   ///< displacement into the loop's DL1 scratch area: Imm = off
  };
  KindTy Kind = Immediate;
  unsigned Reg = 0;
  int64_t Imm = 0;
  /// For Symbol: index of the operand of the original instruction
  /// (Instr::Id) that holds the symbol.
  int16_t SrcOp = -1;
  /// For Symbol: a key naming the symbol (e.g. a hash of its name; 0 when
  /// unknown) and, in Imm, its offset. Two symbol operands with the same
  /// nonzero key address the same object, so DL1 keeps their relative
  /// offsets and the verifier sees their aliasing.
  uint64_t SymKey = 0;

  static Operand reg(unsigned R) { return {Register, R, 0, -1, 0}; }
  static Operand imm(int64_t V) { return {Immediate, 0, V, -1, 0}; }
  static Operand sym(int16_t Src, uint64_t Key = 0, int64_t Off = 0) {
    return {Symbol, 0, Off, Src, Key};
  }
  static Operand scratch(int64_t Off) { return {Scratch, 0, Off, -1, 0}; }
  bool isReg() const { return Kind == Register; }
  bool isImm() const { return Kind == Immediate; }
  bool operator==(const Operand &O) const {
    return Kind == O.Kind && Reg == O.Reg && Imm == O.Imm && SrcOp == O.SrcOp &&
           SymKey == O.SymKey;
  }
};

/// Id of instructions a transformation inserted that stand for no original
/// instruction (NOP padding).
constexpr unsigned NoId = ~0u;

/// What a call may do to memory, as the front end knows it (the plugin: the
/// callee's IR attributes; the rewriter: nothing, so every call it sees is
/// MayWrite). The variant rules keep or delete a call by it
/// (docs/variants.md, "Calls").
enum class CallKind : uint8_t {
  None,     ///< not a call, or a call the front end said nothing about
  MayWrite, ///< may write program memory: deleted in every variant but REF
  Memory,   ///< memcpy/memset/memmove: memory work that writes its
            ///< destination, so deleted in every variant but REF too
  ReadOnly, ///< reads memory, writes none: memory work, kept in LS, NO_DIV
  Pure,     ///< writes no memory but errno (libm, readnone callees):
            ///< arithmetic, kept in FP, NO_DIV, DL1
};

/// One instruction: opcode number (MCInstrInfo numbering) and the explicit
/// operands exactly as MCInst orders them (memory operands as the five
/// X86 operands base, scale, index, displacement, segment).
struct Instr {
  unsigned Opcode = 0;
  llvm::SmallVector<Operand, 8> Ops;
  /// Index of the REF instruction this one is, or stands for (variants keep
  /// the ids of the instructions they replace); NoId for padding.
  unsigned Id = NoId;
  /// Bytes read or written by the memory operand, when the front end knows
  /// them (MachineMemOperand); 0: inferred from the opcode.
  unsigned MemWidth = 0;
  /// Encoded length when the front end knows it (decoded bytes); 0: ask the
  /// size oracle.
  unsigned Size = 0;
  /// The object the memory operand points into, when the front end knows it
  /// (the plugin: the underlying IR object of the MachineMemOperand), as a
  /// key; 0: unknown. Two accesses of one object may depend on each other
  /// through memory whatever their base registers (a[i] and a[i - d]).
  uint64_t Object = 0;
  /// For a call: what it may do (CallKind::None on a call: MayWrite).
  CallKind Call = CallKind::None;
  /// For a CallKind::Memory call the front end knows by name
  /// (memoryCallPointers): its pointer arguments, 1 (memset: RDI) or 2
  /// (memcpy, memmove: RDI, RSI); 0: unknown, DL1 cannot redirect it.
  uint8_t MemoryPointers = 0;
  /// Registers read and written beyond the opcode's descriptor: a call's
  /// argument registers, and its results and the registers it clobbers.
  /// Empty on a call: every argument register of the SysV ABI is read and
  /// every caller-saved register written (X86Knowledge::callArgumentRegs,
  /// callClobberedRegs).
  llvm::SmallVector<unsigned, 2> ImplicitUses, ImplicitDefs;
  /// True when the instruction is the original one, unchanged.
  bool Unchanged = true;
  /// True for NOP padding (no dependences at all).
  bool Padding = false;
  /// True for an instruction that only stands in for the result of a
  /// deleted one (a bridge copy or an idiom): the verifier treats its id as
  /// deleted, so dependences may pass through it but not start or end there.
  bool Stand = false;
};

/// A natural innermost loop: its instructions in layout order, cut into
/// basic blocks. Blocks[0] is the header; an edge to block 0 is a back edge
/// (it starts the next iteration).
struct LoopBody {
  struct Block {
    unsigned Begin = 0, End = 0;          ///< [Begin, End) into Instrs
    llvm::SmallVector<unsigned, 2> Succs; ///< successor blocks in the loop
    bool Exiting = false;                 ///< has a successor outside
  };
  std::vector<Instr> Instrs;
  std::vector<Block> Blocks;
  /// Registers a transformation may write inside the loop without harm:
  /// caller-saved, not read in the loop, not live into the loop or its
  /// exits (pure-load destinations of stores turned into loads).
  std::vector<unsigned> FreeRegs;
  /// Registers live after the loop (read by its exits). An induction
  /// variable among them (the trip count is derived from it after the
  /// loop) is kept in every variant, with the CTRL slice.
  std::vector<unsigned> LiveOuts;
  /// Whether a store of the loop may write memory an exit condition reads,
  /// as the front end's alias analysis decided (the plugin); unset: judged
  /// from the operands alone (the rewriter), where a store is harmless only
  /// when it is provably disjoint from every exit-feeding load. Variants
  /// never write program memory, so such a loop's variants could run on
  /// where REF stops: they are refused (docs/variants.md).
  std::optional<bool> ExitMayReadStored;
};

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_INSTR_H
