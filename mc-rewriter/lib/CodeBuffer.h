//===- CodeBuffer.h - A tiny assembler over MCInst -------------*- C++ -*-===//
//
// Part of decan. Labels, rel32 branches, RIP-relative operands and
// alignment over MCInsts the X86Target encodes. Every position-dependent
// form has a fixed size (rel32, disp32), so one layout pass suffices: the
// rewriter lays the new code out once, then encodes it at its final
// address. Private to mc-rewriter/lib.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LIB_CODEBUFFER_H
#define DECAN_REWRITER_LIB_CODEBUFFER_H

#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstBuilder.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace decan::rewriter {

/// Where a branch or RIP-relative operand points.
struct CodeTarget {
  enum KindTy { Abs, Label, Data } Kind = Abs;
  uint64_t Value = 0; ///< address, label id, or offset in the RW segment
  static CodeTarget abs(uint64_t A) { return {Abs, A}; }
  static CodeTarget label(unsigned L) { return {Label, L}; }
  static CodeTarget data(uint64_t Off) { return {Data, Off}; }
};

struct Item {
  enum KindTy { Inst, Bind, Align, Rel32 } Kind = Inst;
  llvm::MCInst MI;
  enum FixTy { None, RipMem, Branch } Fix = None;
  int MemIdx = -1;
  CodeTarget T, T2; ///< Rel32: T - T2
  unsigned Label = 0, AlignTo = 1, AlignOff = 0;
  uint64_t Addr = 0;
  unsigned Size = 0;
};

class CodeBuffer {
public:
  explicit CodeBuffer(const decan::X86Knowledge &X86) : X86(X86) {}

  unsigned newLabel() {
    LabelAddr.push_back(0);
    return LabelAddr.size() - 1;
  }
  void bind(unsigned L) {
    Item I;
    I.Kind = Item::Bind;
    I.Label = L;
    Items.push_back(I);
  }
  void align(unsigned To, unsigned Off = 0) {
    Item I;
    I.Kind = Item::Align;
    I.AlignTo = To;
    I.AlignOff = Off % To;
    Items.push_back(I);
  }
  void inst(const llvm::MCInst &MI) {
    Item I;
    I.MI = MI;
    Items.push_back(I);
  }
  /// \p MI has a RIP-based memory operand whose displacement is filled in.
  void instRip(const llvm::MCInst &MI, CodeTarget T) {
    Item I;
    I.MI = MI;
    I.Fix = Item::RipMem;
    I.MemIdx = X86.addressOperandIndex(MI);
    I.T = T;
    Items.push_back(I);
  }
  void jmp(CodeTarget T) { branch(X86.JMP_4, -1, T); }
  void jcc(unsigned CC, CodeTarget T) { branch(X86.JCC_4, CC, T); }
  /// jmp/jcc rel32 (\p Opc is JMP_4 or JCC_4) to \p T.
  void branch(unsigned Opc, int CC, CodeTarget T) {
    Item I;
    I.MI = X86.createBranch32(Opc == X86.JMP_4 ? -1 : CC);
    I.Fix = Item::Branch;
    I.T = T;
    Items.push_back(I);
  }
  /// call rel32 to \p T (a call of a moved loop: its original target).
  void call(CodeTarget T) {
    Item I;
    I.MI = llvm::MCInstBuilder(X86.opcode("CALL64pcrel32")).addImm(0);
    I.Fix = Item::Branch;
    I.T = T;
    Items.push_back(I);
  }
  void rel32(CodeTarget A, CodeTarget B) {
    Item I;
    I.Kind = Item::Rel32;
    I.T = A;
    I.T2 = B;
    Items.push_back(I);
  }

  /// Assigns addresses from \p Base; returns the total size.
  llvm::Expected<uint64_t> layout(uint64_t Base);

  /// Encodes every item; \p DataBase is the RW segment's address.
  llvm::Error encode(uint64_t DataBase, llvm::SmallVectorImpl<char> &Out);

  uint64_t labelAddr(unsigned L) const { return LabelAddr[L]; }

private:
  uint64_t resolve(CodeTarget T, uint64_t DataBase) const;

  const decan::X86Knowledge &X86;
  std::vector<Item> Items;
  std::vector<uint64_t> LabelAddr;
  uint64_t Base = 0;
};

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LIB_CODEBUFFER_H
