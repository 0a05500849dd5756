//===- FuzzLoopFinder.cpp - libFuzzer target for ELF input + loops --------===//
//
// Part of decan. Feeds arbitrary bytes to the rewriter's entry point (ELF
// validation, function discovery, disassembly, CFG, dominators, loops): it
// must refuse or succeed, never crash, whatever the input.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/X86Target.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;
using namespace decan::rewriter;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static std::unique_ptr<decan::X86Target> X86 = [] {
    auto X = decan::X86Target::create();
    if (!X) {
      consumeError(X.takeError());
      abort();
    }
    return std::move(*X);
  }();
  auto Buf = MemoryBuffer::getMemBufferCopy(
      StringRef(reinterpret_cast<const char *>(Data), Size), "fuzz");
  auto Bin = BinaryImage::create(std::move(Buf), "fuzz");
  if (!Bin) {
    consumeError(Bin.takeError());
    return 0;
  }
  FinderStats Stats;
  // DWARF line lookups are LLVM's DWARF reader, not fuzzed here.
  auto Loops = findLoops(**Bin, *X86, &Stats, /*WithLines=*/false,
                         /*Threads=*/1);
  if (!Loops) {
    consumeError(Loops.takeError());
    return 0;
  }
  // Touch what a listing prints.
  size_t N = 0;
  for (const LoopCandidate &L : *Loops)
    N += L.id().size() + L.bytes() + L.numInstrs() + L.SkipReason.size();
  return N == size_t(-1);
}
