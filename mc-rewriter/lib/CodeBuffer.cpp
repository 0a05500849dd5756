//===- CodeBuffer.cpp - A tiny assembler over MCInst ----------------------===//
//
// Part of decan. See CodeBuffer.h.
//
//===----------------------------------------------------------------------===//

#include "CodeBuffer.h"

#include "decan/Rewriter/LoopCopy.h"

#include <cstring>

using namespace llvm;
using namespace decan::rewriter;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

void CodeBuffer::align(unsigned To, unsigned Off) {
  unsigned Pad = (Off % To - Buf.size() % To + To) % To;
  if (Buf.empty() && To == 64) {
    HasLead = true;
    LeadPad = Pad;
    LeadOff = Off % To;
  }
  // Loop copies are entered by jumps, so padding never runs; multi-byte
  // NOPs (the instruction knowledge's) keep the bytes before a copy
  // decodable as a few instructions, not a run of 0x90s.
  if (Error E = appendNops(X86, Pad, Buf); E && Err.empty())
    Err = toString(std::move(E));
}

void CodeBuffer::inst(const MCInst &MI) {
  if (Error E = X86.encode(MI, Buf); E && Err.empty())
    Err = "cannot encode '" + X86.print(MI, 0) + "': " + toString(std::move(E));
}

void CodeBuffer::instRip(const MCInst &MI, CodeTarget T) {
  // The displacement's place in the encoding: where two encodings with
  // different displacements differ (an immediate may follow it).
  int Mem = X86.addressOperandIndex(MI);
  MCInst A = MI, B = MI;
  A.getOperand(Mem + 3) = MCOperand::createImm(0x11223344);
  B.getOperand(Mem + 3) = MCOperand::createImm(0x55667788);
  SmallVector<char, 16> EA, EB;
  if (Error E = X86.encode(A, EA)) {
    if (Err.empty())
      Err =
          "cannot encode '" + X86.print(MI, 0) + "': " + toString(std::move(E));
    return;
  }
  if (Error E = X86.encode(B, EB))
    consumeError(std::move(E));
  unsigned At = 0;
  while (At < EA.size() && At < EB.size() && EA[At] == EB[At])
    ++At;
  if (EA.size() != EB.size() || At + 4 > EA.size()) {
    if (Err.empty())
      Err = "no 32-bit displacement in '" + X86.print(MI, 0) + "'";
    return;
  }
  uint32_t Start = Buf.size();
  Buf.append(EA.begin(), EA.end());
  fixup(Start + At, Start + EA.size(), T);
}

void CodeBuffer::branch(unsigned Opc, int CC, CodeTarget T) {
  // rel32 forms, encoded here: MC would leave a fixup for them.
  if (Opc == X86.JMP_4) {
    Buf.push_back(char(0xe9));
  } else {
    Buf.push_back(char(0x0f));
    Buf.push_back(char(0x80 | (CC & 15)));
  }
  Buf.append(4, 0);
  fixup(Buf.size() - 4, Buf.size(), T);
}

void CodeBuffer::jrcxzBack(unsigned L) {
  // Both ends lie in this buffer, past any lead padding: the distance is
  // known now and stays when the buffer is appended.
  int64_t Rel =
      L < LabelOff.size() ? int64_t(LabelOff[L]) - int64_t(Buf.size() + 2) : 0;
  if (Rel < -128 || Rel > -2) {
    if (Err.empty())
      Err = "jrcxz target out of reach (" + std::to_string(Rel) + ")";
    return;
  }
  Buf.push_back(char(0xe3));
  Buf.push_back(char(int8_t(Rel)));
}

void CodeBuffer::call(CodeTarget T) {
  Buf.push_back(char(0xe8));
  Buf.append(4, 0);
  fixup(Buf.size() - 4, Buf.size(), T);
}

void CodeBuffer::rel32(CodeTarget A, CodeTarget B) {
  Fixup F;
  F.At = Buf.size();
  F.Difference = true;
  F.T = A;
  F.T2 = B;
  Fixups.push_back(F);
  Buf.append(4, 0);
}

void CodeBuffer::word(uint32_t V) {
  for (int K = 0; K < 4; ++K)
    Buf.push_back(char(V >> (8 * K)));
}

void CodeBuffer::fixup(uint32_t At, uint32_t PCEnd, CodeTarget T) {
  Fixup F;
  F.At = At;
  F.PCEnd = PCEnd;
  F.T = T;
  Fixups.push_back(F);
}

std::function<unsigned(unsigned)> CodeBuffer::append(CodeBuffer &&F,
                                                     unsigned SharedLabels) {
  if (Err.empty() && !F.Err.empty())
    Err = std::move(F.Err);
  // F's offsets stay congruent modulo 64: its content after a leading
  // align(64, LeadOff) lands at LeadOff modulo 64, at least LeadPad bytes
  // past the current end, so Off below is the start of F's (dropped)
  // padding.
  unsigned Skip = 0;
  if (F.HasLead) {
    align(64, F.LeadOff);
    Skip = F.LeadPad;
  } else {
    align(64);
  }
  uint32_t Off = Buf.size() - Skip;
  unsigned LabelBase = LabelOff.size();
  auto Map = [SharedLabels, LabelBase](unsigned L) {
    return L < SharedLabels ? L : LabelBase + (L - SharedLabels);
  };
  for (unsigned L = SharedLabels; L < F.LabelOff.size(); ++L)
    LabelOff.push_back(Off + F.LabelOff[L]);
  auto MapTarget = [&](CodeTarget &T) {
    if (T.Kind == CodeTarget::Label)
      T.Value = Map(unsigned(T.Value));
  };
  for (Fixup Fx : F.Fixups) {
    Fx.At += Off;
    Fx.PCEnd += Off;
    MapTarget(Fx.T);
    MapTarget(Fx.T2);
    Fixups.push_back(Fx);
  }
  Buf.append(F.Buf.begin() + Skip, F.Buf.end());
  F.Buf.clear();
  F.Fixups.clear();
  return Map;
}

Expected<uint64_t> CodeBuffer::layout(uint64_t Base) {
  if (Base % 64)
    return fail("new code must start 64-byte aligned");
  if (!Err.empty())
    return fail(Err);
  this->Base = Base;
  return Buf.size();
}

Error CodeBuffer::encode(uint64_t DataBase,
                         function_ref<uint64_t(const CodeTarget &)> LoopData,
                         SmallVectorImpl<char> &Out) {
  for (const Fixup &F : Fixups) {
    uint64_t From =
        F.Difference ? resolve(F.T2, DataBase, LoopData) : Base + F.PCEnd;
    int64_t V = int64_t(resolve(F.T, DataBase, LoopData) - From);
    if (V != int64_t(int32_t(V)))
      return fail("new code too far from its target (over 2 GiB): kind " +
                  Twine(int(F.T.Kind)) + " value 0x" +
                  Twine::utohexstr(F.T.Value) + " at 0x" +
                  Twine::utohexstr(Base + F.At));
    uint32_t U = uint32_t(int32_t(V));
    memcpy(&Buf[F.At], &U, 4);
  }
  Out.append(Buf.begin(), Buf.end());
  return Error::success();
}

uint64_t
CodeBuffer::resolve(const CodeTarget &T, uint64_t DataBase,
                    function_ref<uint64_t(const CodeTarget &)> LoopData) const {
  switch (T.Kind) {
  case CodeTarget::Abs:
    return T.Value;
  case CodeTarget::Label:
    return Base + LabelOff[T.Value];
  case CodeTarget::Data:
    return DataBase + T.Value;
  case CodeTarget::LoopDesc:
  case CodeTarget::LoopScratch:
    return DataBase + LoopData(T);
  }
  return 0;
}
