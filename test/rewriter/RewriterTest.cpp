//===- RewriterTest.cpp - Unit tests of the MC rewriter library -----------===//
//
// Part of decan. The test binary is itself a prebuilt x86-64 PIE: its own
// loops (functions below, kept out of line) are found, and a rewritten copy
// of it carries the decan tables.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/Rewriter.h"
#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/Instrument.h"
#include "decan/Rewriter/LoopFinder.h"
#include "decan/Rewriter/RegionFinder.h"
#include "decan/Rewriter/Unwind.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace llvm;
using namespace decan::rewriter;

extern "C" __attribute__((noinline, used)) double decanTestSum(const double *A,
                                                               long N) {
  double S = 0;
  for (long I = 0; I < N; ++I)
    S += A[I] * A[I];
  return S;
}

extern "C" __attribute__((noinline, used)) long decanTestCalls(long N) {
  long S = 0;
  for (long I = 0; I < N; ++I)
    S += std::rand() & 3;
  return S;
}

// Loop nests of known bytes for the region finder: two counted loops, the
// inner one run %rsi times per outer iteration, the outer %rdi times.
//  - decanRegionTaken: a 5-byte entry block, a 5-byte exit block (a 4-byte
//    nopl, ret);
//  - decanRegionCallExit: its exit block starts with a call;
//  - decanRegionTailCall: a conditional tail call inside the outer loop;
//  - decanRegionAtEntry: the outer loop's header is the function's entry.
// As function regions, the first is taken (entered at its 5-byte entry
// block, left at its exit block), the others refused: the call before a
// return, the conditional tail call, the entry that is a loop header.
//  - decanFunctionTailJump: one loop, no outer loop; an endbr64 (left in
//    place for indirect calls) before its entry, left at a direct tail
//    jump and at a return;
//  - decanFunctionNoLoop: no loop, no region.
__asm__(R"(
  .text
  .globl decanRegionTaken
  .type decanRegionTaken,@function
decanRegionTaken:
  xor %eax, %eax
  mov %rdi, %rcx
1:
  mov %rsi, %rdx
2:
  add $1, %rax
  sub $1, %rdx
  jne 2b
  sub $1, %rcx
  jne 1b
  nopl 0(%rax,%rax,1)
  ret
  .size decanRegionTaken, .-decanRegionTaken

  .globl decanRegionCallExit
  .type decanRegionCallExit,@function
decanRegionCallExit:
  xor %eax, %eax
  mov %rdi, %rcx
1:
  mov %rsi, %rdx
2:
  add $1, %rax
  sub $1, %rdx
  jne 2b
  sub $1, %rcx
  jne 1b
  call decanRegionTaken
  ret
  .size decanRegionCallExit, .-decanRegionCallExit

  .globl decanRegionTailCall
  .type decanRegionTailCall,@function
decanRegionTailCall:
  xor %eax, %eax
  mov %rdi, %rcx
1:
  mov %rsi, %rdx
  test %rsi, %rsi
  je decanRegionTaken
2:
  add $1, %rax
  sub $1, %rdx
  jne 2b
  sub $1, %rcx
  jne 1b
  nopl 0(%rax,%rax,1)
  ret
  .size decanRegionTailCall, .-decanRegionTailCall

  .globl decanRegionAtEntry
  .type decanRegionAtEntry,@function
decanRegionAtEntry:
1:
  mov %rsi, %rdx
2:
  add $1, %rax
  sub $1, %rdx
  jne 2b
  sub $1, %rdi
  jne 1b
  nopl 0(%rax,%rax,1)
  ret
  .size decanRegionAtEntry, .-decanRegionAtEntry

  .globl decanFunctionTailJump
  .type decanFunctionTailJump,@function
decanFunctionTailJump:
  endbr64
  push %rbx
  mov %rdi, %rbx
  xor %eax, %eax
1:
  add $1, %rax
  sub $1, %rbx
  jne 1b
  test %rsi, %rsi
  pop %rbx
  je 2f
  jmp decanTestSum
2:
  movl $0, %eax
  ret
  .size decanFunctionTailJump, .-decanFunctionTailJump

  .globl decanFunctionNoLoop
  .type decanFunctionNoLoop,@function
decanFunctionNoLoop:
  mov %rdi, %rax
  add $1, %rax
  ret
  .size decanFunctionNoLoop, .-decanFunctionNoLoop
)");

namespace {

std::unique_ptr<decan::X86Knowledge> x86() {
  auto X = decan::X86Knowledge::createForHost();
  EXPECT_TRUE(bool(X));
  return X ? std::move(*X) : nullptr;
}

std::string refusal(StringRef Bytes) {
  auto B = BinaryImage::create(MemoryBuffer::getMemBufferCopy(Bytes), "buf");
  if (B)
    return "";
  return toString(B.takeError());
}

TEST(Binary, RefusesWithOneLine) {
  EXPECT_EQ(refusal("hello"), "'buf': not an ELF file");
  EXPECT_EQ(refusal(StringRef("\x7f"
                              "ELF\x02\x01",
                              6)),
            "'buf': truncated ELF header");
  std::string Hdr(64, '\0');
  memcpy(&Hdr[0],
         "\x7f"
         "ELF\x01\x01",
         6);
  EXPECT_NE(refusal(Hdr).find("not a 64-bit little-endian ELF file"),
            std::string::npos);
}

TEST(X86Target, LeaHasAnAddressButNoMemoryAccess) {
  auto X = x86();
  // lea 0x10(%rip), %rax
  const uint8_t Lea[] = {0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00};
  MCInst MI;
  ASSERT_EQ(X->decode(Lea, 0x1000, MI), 7u);
  // The rewriter moves code: LEA's RIP-relative address must be fixed...
  int M = X->addressOperandIndex(MI);
  ASSERT_EQ(M, 1);
  EXPECT_EQ(MI.getOperand(M).getReg(), X->RIP);
  EXPECT_EQ(MI.getOperand(M + 3).getImm(), 0x10);
  // ... but the rules must not see a memory access (no load, no DL1).
  EXPECT_EQ(X->memOperandIndex(MI.getOpcode()), -1);
  // mov 0x10(%rip), %rax: both questions, one answer.
  const uint8_t Mov[] = {0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00};
  ASSERT_EQ(X->decode(Mov, 0x1000, MI), 7u);
  EXPECT_EQ(X->addressOperandIndex(MI), 1);
  EXPECT_EQ(X->memOperandIndex(MI.getOpcode()), 1);
  // mov %rax, (%rdi): the store's address comes first.
  EXPECT_EQ(X->memOperandIndex(X->opcode("MOV64mr")), 0);
}

TEST(X86Target, BuildersEncodeTheDispatcherForms) {
  auto X = x86();
  SmallVector<char, 16> Out;
  // movq 8(%rsp), %rax
  ASSERT_FALSE(bool(X->encode(X->createLoad(X->reg("RAX"), X->RSP, 8), Out)));
  EXPECT_EQ(StringRef(Out.data(), Out.size()),
            StringRef("\x48\x8b\x44\x24\x08", 5));
  EXPECT_EQ(X->print(X->createLea(X->reg("RDI"), X->RSP, -16), 0),
            "leaq\t-16(%rsp), %rdi");
  // An iteration cap's count-down (Dispatcher.cpp).
  Out.clear();
  ASSERT_FALSE(bool(X->encode(X->createDec(X->reg("R15")), Out)));
  EXPECT_EQ(StringRef(Out.data(), Out.size()), StringRef("\x49\xff\xcf", 3));
}

std::string selfPath() {
  return sys::fs::getMainExecutable(nullptr, (void *)&decanTestSum);
}

TEST(LoopFinder, FindsOwnLoops) {
  auto X = x86();
  auto Bin = BinaryImage::open(selfPath());
  ASSERT_TRUE(bool(Bin)) << toString(Bin.takeError());
  auto Loops = findLoops(**Bin, *X);
  ASSERT_TRUE(bool(Loops)) << toString(Loops.takeError());
  const LoopCandidate *Sum = nullptr, *Calls = nullptr;
  for (const LoopCandidate &L : *Loops) {
    if (L.Function == "decanTestSum" && !Sum)
      Sum = &L;
    if (L.Function == "decanTestCalls" && !Calls)
      Calls = &L;
  }
  ASSERT_NE(Sum, nullptr);
  EXPECT_EQ(Sum->id(), "decanTestSum:L0");
  EXPECT_EQ(Sum->SkipReason, "");
  EXPECT_TRUE(Sum->contains(Sum->Header));
  // A loop that calls (std::rand) is rewritable since issue 13: REF times
  // it with its calls, NO_CALL without.
  ASSERT_NE(Calls, nullptr);
  EXPECT_EQ(Calls->SkipReason, "");
}

TEST(Rewriter, CopyCarriesTablesAndInputIsUntouched) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("decan-rw-test", Dir));
  std::string Self = selfPath();
  auto Before = MemoryBuffer::getFile(Self);
  ASSERT_TRUE(bool(Before));
  std::string Before0 = (*Before)->getBuffer().str();
  auto Out = ensureInstrumented(Self, Dir);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_NE(*Out, Self);
  auto Has = hasDecanMetadata(*Out);
  ASSERT_TRUE(bool(Has));
  EXPECT_TRUE(*Has);
  // Already instrumented: used as is.
  auto Again = ensureInstrumented(*Out, Dir);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(*Again, *Out);
  auto After = MemoryBuffer::getFile(Self);
  ASSERT_TRUE(bool(After));
  EXPECT_EQ((*After)->getBuffer(), Before0);
  sys::fs::remove_directories(Dir);
}

} // namespace

// The CFI reader behind the relocated original's unwind rule: the row at
// an address, through remember/restore_state, re-encoded for data
// alignment -8; expressions refused.
TEST(Unwind, RuleAtAnAddressFollowsTheFdesRows) {
  const uint64_t At = 0x1000;
  std::vector<uint8_t> F = {
      // CIE: "zR", code 1, data -8, ra 16, pcrel sdata4; rsp+8, ra at c-8.
      20, 0,    0,  0, 0,    0,    0, 0, 1,    'z', 'R', 0,
      1,  0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1,   0,   0};
  size_t Fde = F.size();
  auto U32 = [&](uint32_t V) {
    for (int K = 0; K < 4; ++K)
      F.push_back(uint8_t(V >> (8 * K)));
  };
  U32(0);                      // length, below
  U32(uint32_t(F.size() - 0)); // back to the CIE at offset 0
  U32(uint32_t(0x2000 - (At + F.size())));
  U32(0x40);
  F.push_back(0);                            // no augmentation data
  for (uint8_t B : {0x44, 0x0e, 16, 0x83, 2, // +4: cfa rsp+16, rbx at c-16
                    0x44, 0x0a, 0x0e, 8,     // +4: remember; cfa rsp+8
                    0x42, 0x0b,              // +2: restore: rsp+16 again
                    0x50, 0x0f, 1, 0x9c})    // +16: an expression
    F.push_back(B);
  while ((F.size() - Fde) % 8)
    F.push_back(0);
  uint32_t Len = F.size() - Fde - 4;
  memcpy(&F[Fde], &Len, 4);
  U32(0);

  decan::rewriter::EhFrame E = decan::rewriter::parseEhFrame(F, At);
  ASSERT_EQ(E.Fdes.size(), 1u);
  EXPECT_EQ(E.Fdes[0].Begin, 0x2000u);
  EXPECT_EQ(E.Fdes[0].End, 0x2040u);
  std::string Why;
  auto Rule = [&](uint64_t A) {
    return decan::rewriter::cfiRuleAt(F, E, A, Why);
  };
  // def_cfa_sf rsp, -1 (x -8); offset_extended_sf reg, n (x -8).
  EXPECT_EQ(Rule(0x2002), std::string("\x12\x07\x7f\x11\x10\x01"));
  EXPECT_EQ(Rule(0x2009), std::string("\x12\x07\x7f\x11\x03\x02\x11\x10\x01"));
  EXPECT_EQ(Rule(0x200c), std::string("\x12\x07\x7e\x11\x03\x02\x11\x10\x01"));
  EXPECT_FALSE(Rule(0x2030));
  EXPECT_NE(Why.find("DWARF expressions"), std::string::npos);
  EXPECT_FALSE(Rule(0x3000));
  EXPECT_NE(Why.find("no unwind information"), std::string::npos);
}

TEST(RegionFinder, TakesOuterLoopsAndSaysWhyNot) {
  auto X = x86();
  auto Bin = BinaryImage::open(selfPath());
  ASSERT_TRUE(bool(Bin)) << toString(Bin.takeError());
  auto Loops = findLoops(**Bin, *X);
  ASSERT_TRUE(bool(Loops)) << toString(Loops.takeError());
  std::vector<RegionCandidate> Regions = findRegions(**Bin, *X, *Loops);
  auto Find = [&](StringRef Fn) -> const RegionCandidate * {
    for (const RegionCandidate &R : Regions)
      if (R.Function == Fn && !R.WholeFunction)
        return &R;
    return nullptr;
  };
  // An innermost loop alone is no outer loop's region.
  EXPECT_EQ(Find("decanTestSum"), nullptr);

  const RegionCandidate *Taken = Find("decanRegionTaken");
  ASSERT_NE(Taken, nullptr);
  EXPECT_EQ(Taken->id(), "region:decanRegionTaken:L0");
  EXPECT_EQ(Taken->SkipReason, "");
  EXPECT_EQ(Taken->NumInnerLoops, 1u);
  EXPECT_EQ(Taken->Header, Taken->FunctionStart + 5);
  ASSERT_EQ(Taken->Sites.size(), 2u);
  // Entered from the entry block's two instructions (xor, mov: 5 bytes),
  // which the stub runs before it goes to the header.
  const RegionSite &In = Taken->Sites[0], &Out = Taken->Sites[1];
  EXPECT_TRUE(In.Enter);
  EXPECT_EQ(In.Patch, Taken->FunctionStart);
  EXPECT_EQ(In.Moved.size(), 2u);
  EXPECT_EQ(In.FallThrough, Taken->Header);
  EXPECT_EQ(In.Trampoline, 0u);
  // Left at the exit block, which moves whole: the stub returns itself.
  EXPECT_FALSE(Out.Enter);
  ASSERT_EQ(Out.Moved.size(), 2u);
  EXPECT_EQ(Out.Moved[0].Size + Out.Moved[1].Size, 5u);
  EXPECT_EQ(Out.FallThrough, 0u);

  const RegionCandidate *CallExit = Find("decanRegionCallExit");
  ASSERT_NE(CallExit, nullptr);
  EXPECT_NE(CallExit->SkipReason.find("exit block at decanRegionCallExit+0x"),
            std::string::npos)
      << CallExit->SkipReason;
  EXPECT_NE(CallExit->SkipReason.find("starts with a call"), std::string::npos)
      << CallExit->SkipReason;
  EXPECT_TRUE(CallExit->Sites.empty());

  const RegionCandidate *Tail = Find("decanRegionTailCall");
  ASSERT_NE(Tail, nullptr);
  EXPECT_NE(Tail->SkipReason.find("jumps out of the function"),
            std::string::npos)
      << Tail->SkipReason;

  const RegionCandidate *AtEntry = Find("decanRegionAtEntry");
  ASSERT_NE(AtEntry, nullptr);
  EXPECT_NE(AtEntry->SkipReason.find("header is the function's entry"),
            std::string::npos)
      << AtEntry->SkipReason;
}

TEST(RegionFinder, TakesFunctionsWithLoopsAndSaysWhyNot) {
  auto X = x86();
  auto Bin = BinaryImage::open(selfPath());
  ASSERT_TRUE(bool(Bin)) << toString(Bin.takeError());
  auto Loops = findLoops(**Bin, *X);
  ASSERT_TRUE(bool(Loops)) << toString(Loops.takeError());
  std::vector<RegionCandidate> Regions = findRegions(**Bin, *X, *Loops);
  auto Find = [&](StringRef Fn) -> const RegionCandidate * {
    for (const RegionCandidate &R : Regions)
      if (R.Function == Fn && R.WholeFunction)
        return &R;
    return nullptr;
  };
  // A function with an innermost loop only is a region; one without loops
  // is none.
  const RegionCandidate *Sum = Find("decanTestSum");
  ASSERT_NE(Sum, nullptr);
  EXPECT_EQ(Sum->id(), "region:decanTestSum");
  EXPECT_EQ(Find("decanFunctionNoLoop"), nullptr);
  bool NoLoopSeen = false;
  for (const FunctionRange &F : (*Bin)->functions())
    NoLoopSeen |= F.Name == "decanFunctionNoLoop";
  EXPECT_TRUE(NoLoopSeen) << "a function the finder saw";

  const RegionCandidate *Taken = Find("decanRegionTaken");
  ASSERT_NE(Taken, nullptr);
  EXPECT_EQ(Taken->SkipReason, "");
  EXPECT_EQ(Taken->Header, Taken->FunctionStart);
  ASSERT_EQ(Taken->Sites.size(), 2u);
  const RegionSite &In = Taken->Sites[0], &Out = Taken->Sites[1];
  // The test first, then the entry block's xor and mov, then the header.
  EXPECT_TRUE(In.Enter && In.TestFirst);
  EXPECT_EQ(In.Patch, Taken->FunctionStart);
  EXPECT_EQ(In.Moved.size(), 2u);
  EXPECT_EQ(In.FallThrough, Taken->FunctionStart + 5);
  // Left before the nopl and the ret, which return from the stub.
  EXPECT_FALSE(Out.Enter);
  EXPECT_TRUE(Out.TestFirst);
  ASSERT_EQ(Out.Moved.size(), 2u);
  EXPECT_EQ(Out.FallThrough, 0u);
  EXPECT_FALSE(Out.FlagsLive) << "dead at a return";

  const RegionCandidate *Tail = Find("decanFunctionTailJump");
  ASSERT_NE(Tail, nullptr);
  EXPECT_EQ(Tail->SkipReason, "");
  ASSERT_EQ(Tail->Sites.size(), 3u);
  EXPECT_EQ(Tail->Sites[0].Patch, Tail->FunctionStart + 4)
      << "the endbr64 stays where indirect calls land";
  EXPECT_EQ(Tail->Sites[0].Moved.size(), 3u); // push, mov, xor
  const RegionSite &Jump = Tail->Sites[1], &Ret = Tail->Sites[2];
  ASSERT_EQ(Jump.Moved.size(), 1u);
  EXPECT_EQ(X->opcodeName(Jump.Moved[0].Inst.getOpcode()), "JMP_4");
  EXPECT_FALSE(Jump.Enter);
  ASSERT_EQ(Ret.Moved.size(), 2u); // movl $0, %eax; ret

  auto Refused = [&](StringRef Fn, StringRef Why) {
    const RegionCandidate *R = Find(Fn);
    ASSERT_NE(R, nullptr) << Fn.str();
    EXPECT_NE(R->SkipReason.find(Why.str()), std::string::npos)
        << Fn.str() << ": " << R->SkipReason;
    EXPECT_TRUE(R->Sites.empty());
  };
  Refused("decanRegionCallExit", "the block of its return at "
                                 "decanRegionCallExit+0x1d ends with a call");
  Refused("decanRegionTailCall",
          "a conditional jump out of the function at decanRegionTailCall+0x");
  Refused("decanRegionAtEntry", "its first block is also reached from "
                                "decanRegionAtEntry+0x");
}
