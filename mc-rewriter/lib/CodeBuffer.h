//===- CodeBuffer.h - A tiny assembler over MCInst -------------*- C++ -*-===//
//
// Part of decan. Labels, rel32 branches, RIP-relative operands and
// alignment over MCInsts the X86Target encodes. Every position-dependent
// form has a fixed size (rel32, disp32), so instructions are encoded as
// they are appended and only the fields that depend on addresses are
// filled in once the code is placed. Private to mc-rewriter/lib.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LIB_CODEBUFFER_H
#define DECAN_REWRITER_LIB_CODEBUFFER_H

#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstBuilder.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace decan::rewriter {

/// Where a branch or RIP-relative operand points.
/// LoopDesc and LoopScratch name a field of a loop's descriptor or a byte
/// of its scratch area before the RW segment is laid out (loops are
/// emitted in parallel, before the rewriter knows which of them succeed):
/// Value is the loop's slot (high 32 bits) and the offset.
struct CodeTarget {
  enum KindTy { Abs, Label, Data, LoopDesc, LoopScratch } Kind = Abs;
  uint64_t Value = 0; ///< address, label id, or offset in the RW segment
  static CodeTarget abs(uint64_t A) { return {Abs, A}; }
  static CodeTarget label(unsigned L) { return {Label, L}; }
  static CodeTarget data(uint64_t Off) { return {Data, Off}; }
  static CodeTarget desc(unsigned Slot, uint32_t Field) {
    return {LoopDesc, uint64_t(Slot) << 32 | Field};
  }
  /// \p Off may be negative (an operand's displacement is folded in).
  static CodeTarget scratch(unsigned Slot, int32_t Off) {
    return {LoopScratch, uint64_t(Slot) << 32 | uint32_t(Off)};
  }
  unsigned slot() const { return unsigned(Value >> 32); }
  int32_t offset() const { return int32_t(uint32_t(Value)); }
};

/// A field to fill once addresses are known: a 32-bit displacement
/// relative to the end of its instruction (branches, RIP-relative
/// operands) or the difference of two targets (a table entry).
struct Fixup {
  uint32_t At = 0;         ///< offset of the 4-byte field in the buffer
  uint32_t PCEnd = 0;      ///< offset of the instruction's end (PC-relative)
  bool Difference = false; ///< T - T2 instead of T - (Base + PCEnd)
  CodeTarget T, T2;
};

/// Instructions are encoded as they are appended (every position-dependent
/// form has a fixed size: rel32, disp32), so the buffer holds bytes and a
/// few fixups, not MCInsts: a library of 60 000 loops stays small. The
/// code is placed at a 64-byte aligned base, so alignment is known when a
/// copy is appended.
class CodeBuffer {
public:
  /// Labels below \p SharedLabels are the ones of the buffer this one is
  /// appended to (append()): a loop emitted on its own refers to the
  /// shared routines through them.
  explicit CodeBuffer(const decan::X86Knowledge &X86, unsigned SharedLabels = 0)
      : X86(X86), LabelOff(SharedLabels, 0) {}

  unsigned newLabel() {
    LabelOff.push_back(0);
    return LabelOff.size() - 1;
  }
  void bind(unsigned L) { LabelOff[L] = Buf.size(); }
  /// Pads with multi-byte NOPs up to an offset of \p Off modulo \p To
  /// (at most 64).
  void align(unsigned To, unsigned Off = 0);
  void inst(const llvm::MCInst &MI);
  /// \p MI has a RIP-based memory operand whose displacement is filled in.
  void instRip(const llvm::MCInst &MI, CodeTarget T);
  void jmp(CodeTarget T) { branch(X86.JMP_4, -1, T); }
  void jcc(unsigned CC, CodeTarget T) { branch(X86.JCC_4, CC, T); }
  /// jmp/jcc rel32 (\p Opc is JMP_4 or JCC_4) to \p T.
  void branch(unsigned Opc, int CC, CodeTarget T);
  /// A copied JMP or JCC (either form) re-emitted as rel32 to \p T.
  void copiedBranch(const llvm::MCInst &MI, CodeTarget T) {
    bool Cond = MI.getOpcode() == X86.JCC_1 || MI.getOpcode() == X86.JCC_4;
    branch(Cond ? X86.JCC_4 : X86.JMP_4,
           Cond ? int(MI.getOperand(1).getImm()) : -1, T);
  }
  /// jrcxz rel8 back to \p L, a label bound earlier in this buffer within
  /// 128 bytes (the only flags-free conditional branch: an iteration cap's
  /// count-down where EFLAGS are live, Dispatcher.cpp).
  void jrcxzBack(unsigned L);
  /// call rel32 to \p T (a call of a moved loop: its original target).
  void call(CodeTarget T);
  /// A 4-byte table entry: \p A - \p B.
  void rel32(CodeTarget A, CodeTarget B);
  /// A 4-byte constant (a per-loop record's field).
  void word(uint32_t V);

  /// The first error met while appending (an instruction MC cannot encode).
  llvm::Error takeError() {
    return Err.empty()
               ? llvm::Error::success()
               : llvm::createStringError(llvm::inconvertibleErrorCode(), Err);
  }

  /// Appends \p F at the next 64-byte boundary (its alignment holds), or,
  /// when \p F opens with align(64, Off), where its first bytes land at
  /// Off modulo 64 (the same alignment, one padding);
  /// \p F's labels from \p SharedLabels on become new labels here: returns
  /// the function that maps one of \p F's labels to this buffer's.
  std::function<unsigned(unsigned)> append(CodeBuffer &&F,
                                           unsigned SharedLabels);

  /// Places the code at \p Base (64-byte aligned); returns its size.
  llvm::Expected<uint64_t> layout(uint64_t Base);

  /// Fills in every fixup; \p DataBase is the RW segment's address and
  /// \p LoopData the offset in it of a LoopDesc or LoopScratch target.
  llvm::Error encode(uint64_t DataBase,
                     llvm::function_ref<uint64_t(const CodeTarget &)> LoopData,
                     llvm::SmallVectorImpl<char> &Out);

  uint64_t labelAddr(unsigned L) const { return Base + LabelOff[L]; }
  uint64_t size() const { return Buf.size(); }

private:
  uint64_t
  resolve(const CodeTarget &T, uint64_t DataBase,
          llvm::function_ref<uint64_t(const CodeTarget &)> LoopData) const;
  void fixup(uint32_t At, uint32_t PCEnd, CodeTarget T);

  const decan::X86Knowledge &X86;
  llvm::SmallVector<char, 0> Buf;
  /// The padding of an align(64, LeadOff) that opened the buffer: append()
  /// replaces it with the padding its own position needs.
  unsigned LeadPad = 0, LeadOff = 0;
  bool HasLead = false;
  std::vector<Fixup> Fixups;
  std::vector<uint64_t> LabelOff;
  uint64_t Base = 0;
  std::string Err;
};

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LIB_CODEBUFFER_H
