//===- NestFinderTest.cpp - Unit tests of the rewriter's nest finder ------===//
//
// Part of decan. The test binary's own nests (functions below, in assembly
// so their shapes are known): which outer loops are nests, how they are
// numbered, and why one is refused (NestFinder.h).
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/NestFinder.h"
#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopCopy.h"
#include "decan/Rewriter/LoopFinder.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace decan::rewriter;

// Counted loops (inner %rsi times, outer %rdi times):
//  - decanNestTaken: one inner loop, the nest decanNestTaken:N0;
//  - decanNestCalls: the outer loop calls (refused);
//  - decanNestLoadTest: the inner loop's test reads memory (found, refused
//    when its variants are built);
//  - decanNestDeep: three levels: the middle loop is a nest, the outermost
//    (whose inner loop is no innermost loop) is not;
//  - decanNestLoopInstr: the inner loop ends in `loop` (no rel32 form: not
//    rewritten): the outer loop is no nest;
//  - decanNestOnlyControl: nothing but the loops' control: no variant
//    (refused: REF alone would take its inner loop's copies away).
__asm__(R"(
  .text
  .globl decanNestTaken
  .type decanNestTaken,@function
decanNestTaken:
  xor %eax, %eax
  mov %rdi, %rcx
1:
  mov %rsi, %rdx
  nopl 0(%rax,%rax,1)
2:
  add $1, %rax
  sub $1, %rdx
  jne 2b
  sub $1, %rcx
  jne 1b
  ret
  .size decanNestTaken, .-decanNestTaken
  .globl decanNestCalls
  .type decanNestCalls,@function
decanNestCalls:
  push %rbx
  xor %eax, %eax
  mov %rdi, %rbx
1:
  mov %rsi, %rdx
  nopl 0(%rax,%rax,1)
2:
  add $1, %rax
  sub $1, %rdx
  jne 2b
  call decanNestTaken
  sub $1, %rbx
  jne 1b
  pop %rbx
  ret
  .size decanNestCalls, .-decanNestCalls
  .globl decanNestLoadTest
  .type decanNestLoadTest,@function
decanNestLoadTest:
  xor %eax, %eax
  mov %rdi, %rcx
1:
  mov %rsi, %rdx
  nopl 0(%rax,%rax,1)
2:
  add $1, %rax
  cmpq $0, (%rdx,%rax,8)
  jne 2b
  sub $1, %rcx
  jne 1b
  ret
  .size decanNestLoadTest, .-decanNestLoadTest
  .globl decanNestDeep
  .type decanNestDeep,@function
decanNestDeep:
  xor %eax, %eax
  mov %rdi, %r8
1:
  mov %rdi, %rcx
  nopl 0(%rax,%rax,1)
2:
  mov %rsi, %rdx
  nopl 0(%rax,%rax,1)
3:
  add $1, %rax
  sub $1, %rdx
  jne 3b
  sub $1, %rcx
  jne 2b
  sub $1, %r8
  jne 1b
  ret
  .size decanNestDeep, .-decanNestDeep
  .globl decanNestLoopInstr
  .type decanNestLoopInstr,@function
decanNestLoopInstr:
  xor %eax, %eax
  mov %rdi, %rdx
1:
  mov %rsi, %rcx
  nopl 0(%rax,%rax,1)
2:
  add $1, %rax
  loop 2b
  sub $1, %rdx
  jne 1b
  ret
  .size decanNestLoopInstr, .-decanNestLoopInstr
  .globl decanNestOnlyControl
  .type decanNestOnlyControl,@function
decanNestOnlyControl:
  mov %rdi, %rcx
  nopl 0(%rax,%rax,1)
1:
  mov %rsi, %rdx
  nopl 0(%rax,%rax,1)
2:
  sub $1, %rdx
  jne 2b
  sub $1, %rcx
  jne 1b
  ret
  .size decanNestOnlyControl, .-decanNestOnlyControl
)");

extern "C" long decanNestTaken(long, long);

namespace {

struct SelfNests {
  std::unique_ptr<decan::X86Knowledge> X86;
  std::unique_ptr<BinaryImage> Bin;
  std::vector<LoopCandidate> Loops, Nests;

  SelfNests() {
    auto X = decan::X86Knowledge::createForHost();
    EXPECT_TRUE(bool(X));
    if (!X)
      return;
    X86 = std::move(*X);
    auto B = BinaryImage::open(
        sys::fs::getMainExecutable(nullptr, (void *)&decanNestTaken));
    EXPECT_TRUE(bool(B)) << toString(B.takeError());
    if (!B)
      return;
    Bin = std::move(*B);
    auto L = findLoops(*Bin, *X86);
    EXPECT_TRUE(bool(L)) << toString(L.takeError());
    if (!L)
      return;
    Loops = std::move(*L);
    Nests = findNests(*Bin, *X86, Loops);
  }

  std::vector<const LoopCandidate *> nestsOf(StringRef Fn) const {
    std::vector<const LoopCandidate *> Out;
    for (const LoopCandidate &N : Nests)
      if (N.Function == Fn)
        Out.push_back(&N);
    return Out;
  }
};

TEST(NestFinder, TakesTwoLevelNests) {
  SelfNests S;
  ASSERT_TRUE(S.Bin);
  auto Taken = S.nestsOf("decanNestTaken");
  ASSERT_EQ(Taken.size(), 1u);
  const LoopCandidate &N = *Taken[0];
  EXPECT_TRUE(N.Nest);
  EXPECT_EQ(N.id(), "decanNestTaken:N0");
  EXPECT_EQ(N.SkipReason, "");
  EXPECT_EQ(N.Header, N.FunctionStart + 5);
  ASSERT_EQ(N.InnerIndices.size(), 1u);
  EXPECT_EQ(N.InnerIndices[0], 0u);
  ASSERT_EQ(N.InnerBlocks.size(), 1u);
  EXPECT_EQ(N.InnerBlocks[0].size(), 1u);
  EXPECT_EQ(N.Blocks.size(), 3u); // header, inner body, outer latch

  // Its variants: the rules apply over the whole nest (the inner loop's
  // `add` is no control, so LS has it gone).
  Expected<LoopVariants> V =
      buildVariants(*S.X86, N, (1u << DECAN_NUM_VARIANTS) - 1);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_TRUE(V->Mask & (1u << DECAN_LS));
  EXPECT_TRUE(V->Mask & (1u << DECAN_CTRL));
  EXPECT_EQ(V->MInfo.capped_mask, 0u); // nests carry no iteration cap
}

TEST(NestFinder, SaysWhyANestIsRefused) {
  SelfNests S;
  ASSERT_TRUE(S.Bin);
  auto Calls = S.nestsOf("decanNestCalls");
  ASSERT_EQ(Calls.size(), 1u);
  EXPECT_EQ(Calls[0]->SkipReason,
            "a call in the nest (nests are measured without calls)");

  // The inner loop's exit test reads memory: found, its variants refused
  // (a variant, which never writes memory, could change the trip count; a
  // nest has no iteration cap).
  auto Load = S.nestsOf("decanNestLoadTest");
  ASSERT_EQ(Load.size(), 1u);
  EXPECT_EQ(Load[0]->SkipReason, "");
  Expected<LoopVariants> V =
      buildVariants(*S.X86, *Load[0], (1u << DECAN_NUM_VARIANTS) - 1);
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(toString(V.takeError()),
            "a loop test of the nest reads memory (a variant could change "
            "its trip counts)");

  auto Control = S.nestsOf("decanNestOnlyControl");
  ASSERT_EQ(Control.size(), 1u);
  Expected<LoopVariants> C =
      buildVariants(*S.X86, *Control[0], (1u << DECAN_NUM_VARIANTS) - 1);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(
      toString(C.takeError()).rfind("no variant of the nest could be built", 0),
      0u);
  // REF alone asked for: nothing is refused.
  EXPECT_TRUE(bool(buildVariants(*S.X86, *Control[0], 1u)));
}

TEST(NestFinder, OnlyOuterLoopsOfRewritableInnermostLoops) {
  SelfNests S;
  ASSERT_TRUE(S.Bin);
  // Three levels: the middle loop only (the outermost holds no innermost
  // loop directly).
  auto Deep = S.nestsOf("decanNestDeep");
  ASSERT_EQ(Deep.size(), 1u);
  EXPECT_EQ(Deep[0]->id(), "decanNestDeep:N0");
  EXPECT_EQ(Deep[0]->Blocks.size(), 3u); // header, inner body, latch
  EXPECT_GT(Deep[0]->Header, Deep[0]->FunctionStart + 5);
  // The inner loop is not rewritten (`loop`): no nest.
  unsigned Inner = 0;
  for (const LoopCandidate &L : S.Loops)
    if (L.Function == "decanNestLoopInstr") {
      EXPECT_NE(L.SkipReason, "");
      ++Inner;
    }
  EXPECT_EQ(Inner, 1u);
  EXPECT_TRUE(S.nestsOf("decanNestLoopInstr").empty());
  // findLoops never returns a nest.
  for (const LoopCandidate &L : S.Loops)
    EXPECT_FALSE(L.Nest);
}

TEST(NestFinder, NumbersKeptNestsByHeader) {
  auto Cand = [](uint64_t Header, std::vector<unsigned> Inner) {
    LoopCandidate C;
    C.Function = "f";
    C.Nest = true;
    C.Header = Header;
    C.InnerIndices = std::move(Inner);
    return C;
  };
  std::vector<LoopCandidate> Out =
      numberNests({Cand(0x300, {3}), Cand(0x100, {0, 1}), Cand(0x200, {2})},
                  [](unsigned Inner) { return Inner != 2; });
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0].Header, 0x100u);
  EXPECT_EQ(Out[0].id(), "f:N0");
  EXPECT_EQ(Out[1].Header, 0x300u);
  EXPECT_EQ(Out[1].id(), "f:N1");
}

} // namespace
