//===- CodeBuffer.cpp - A tiny assembler over MCInst ----------------------===//
//
// Part of decan. See CodeBuffer.h.
//
//===----------------------------------------------------------------------===//

#include "CodeBuffer.h"

#include "decan/Rewriter/LoopCopy.h"

using namespace llvm;
using namespace decan::rewriter;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

Expected<uint64_t> CodeBuffer::layout(uint64_t Base) {
  this->Base = Base;
  uint64_t A = Base;
  for (Item &I : Items) {
    I.Addr = A;
    switch (I.Kind) {
    case Item::Bind:
      LabelAddr[I.Label] = A;
      I.Size = 0;
      break;
    case Item::Align:
      I.Size = (I.AlignOff - A % I.AlignTo + I.AlignTo) % I.AlignTo;
      break;
    case Item::Rel32:
      I.Size = 4;
      break;
    case Item::Inst: {
      if (I.Fix == Item::Branch) {
        I.Size = I.MI.getOpcode() == X86.JCC_4 ? 6 : 5; // jmp, call: 5
        break;
      }
      MCInst Probe = I.MI;
      if (I.Fix == Item::RipMem)
        Probe.getOperand(I.MemIdx + 3) = MCOperand::createImm(0x7fff0000);
      I.Size = X86.encodedSize(Probe);
      if (!I.Size)
        return fail("cannot encode '" + X86.print(I.MI, 0) + "'");
      break;
    }
    }
    A += I.Size;
  }
  return A - Base;
}

Error CodeBuffer::encode(uint64_t DataBase, SmallVectorImpl<char> &Out) {
  for (Item &I : Items) {
    size_t Before = Out.size();
    switch (I.Kind) {
    case Item::Bind:
      break;
    case Item::Align:
      // Loop copies are entered by jumps, so padding never runs; multi-
      // byte NOPs (the instruction knowledge's) keep the bytes before a
      // copy decodable as a few instructions, not a run of 0x90s.
      if (Error E = appendNops(X86, I.Size, Out))
        return E;
      break;
    case Item::Rel32: {
      int64_t V = int64_t(resolve(I.T, DataBase) - resolve(I.T2, DataBase));
      uint32_t U = uint32_t(int32_t(V));
      for (int K = 0; K < 4; ++K)
        Out.push_back(char(U >> (8 * K)));
      break;
    }
    case Item::Inst: {
      MCInst MI = I.MI;
      if (I.Fix != Item::None) {
        int64_t Disp = int64_t(resolve(I.T, DataBase) - (I.Addr + I.Size));
        if (Disp != int64_t(int32_t(Disp)))
          return fail("new code too far from its target (over 2 GiB)");
        if (I.Fix == Item::Branch) {
          // rel32 forms, encoded here: MC would leave a fixup for them.
          if (MI.getOpcode() == X86.JMP_4) {
            Out.push_back(char(0xe9));
          } else if (MI.getOpcode() != X86.JCC_4) {
            Out.push_back(char(0xe8)); // call rel32
          } else {
            Out.push_back(char(0x0f));
            Out.push_back(char(0x80 | (MI.getOperand(1).getImm() & 15)));
          }
          uint32_t U = uint32_t(int32_t(Disp));
          for (int K = 0; K < 4; ++K)
            Out.push_back(char(U >> (8 * K)));
          break;
        }
        MI.getOperand(I.MemIdx + 3) = MCOperand::createImm(Disp);
      }
      if (Error E = X86.encode(MI, Out))
        return E;
      if (Out.size() - Before != I.Size)
        return fail("instruction size changed between layout and "
                    "encoding: '" +
                    X86.print(MI, I.Addr) + "'");
      break;
    }
    }
  }
  return Error::success();
}

uint64_t CodeBuffer::resolve(CodeTarget T, uint64_t DataBase) const {
  switch (T.Kind) {
  case CodeTarget::Abs:
    return T.Value;
  case CodeTarget::Label:
    return LabelAddr[T.Value];
  case CodeTarget::Data:
    return DataBase + T.Value;
  }
  return 0;
}
