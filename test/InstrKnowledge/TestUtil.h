//===- TestUtil.h - Building loop bodies by opcode name in tests ----------===//
#ifndef DECAN_TEST_INSTRKNOWLEDGE_TESTUTIL_H
#define DECAN_TEST_INSTRKNOWLEDGE_TESTUTIL_H

#include "decan/InstrKnowledge/Instr.h"
#include "decan/InstrKnowledge/Knowledge.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace decan::test {

/// An x86-64 knowledge object for the given CPU (AVX-512 capable by default).
inline std::unique_ptr<X86Knowledge> knowledge(const char *CPU = "x86-64-v4") {
  auto K = X86Knowledge::create(CPU, "");
  if (!K) {
    ADD_FAILURE() << llvm::toString(K.takeError());
    return nullptr;
  }
  return std::move(*K);
}

/// Operand spellings: "XMM1" a register, "#5" an immediate, "-" no register.
struct Ops {
  std::vector<std::string> V;
  Ops(std::initializer_list<const char *> L) : V(L.begin(), L.end()) {}
};

inline Instr ins(const X86Knowledge &K, const char *Op, const Ops &O) {
  Instr I;
  I.Opcode = K.opcode(Op);
  EXPECT_NE(I.Opcode, 0u) << Op;
  for (const std::string &S : O.V) {
    if (S == "-")
      I.Ops.push_back(Operand::reg(0));
    else if (S[0] == '#')
      I.Ops.push_back(Operand::imm(std::stoll(S.substr(1), nullptr, 0)));
    else {
      unsigned R = K.reg(S);
      EXPECT_NE(R, 0u) << S;
      I.Ops.push_back(Operand::reg(R));
    }
  }
  return I;
}

/// A single-block loop: the instructions, then `add $Step, %rcx;
/// cmp %rdx, %rcx; jne`.
/// One block, its own successor, that exits: \p Body as given.
inline LoopBody singleBlockLoop(std::vector<Instr> Body) {
  LoopBody L;
  L.Instrs = std::move(Body);
  for (unsigned I = 0; I < L.Instrs.size(); ++I)
    L.Instrs[I].Id = I;
  LoopBody::Block B;
  B.Begin = 0;
  B.End = L.Instrs.size();
  B.Succs = {0};
  B.Exiting = true;
  L.Blocks = {B};
  return L;
}

inline LoopBody loop(const X86Knowledge &K, std::vector<Instr> Body,
                     const char *Step = "#8") {
  Body.push_back(ins(K, "ADD64ri32", {"RCX", "RCX", Step}));
  Body.push_back(ins(K, "CMP64rr", {"RCX", "RDX"}));
  Body.push_back(ins(K, "JCC_1", {"#0", "#5"}));
  return singleBlockLoop(std::move(Body));
}

} // namespace decan::test

#endif
