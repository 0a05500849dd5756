//===- RewriteTool.cpp - `decan rewrite` ----------------------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/RewriteTool.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"
#include "decan/Rewriter/Rewriter.h"
#include "decan/abi_names.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace decan::rewriter;

std::string decan::rewriter::rewrittenPath(StringRef Input, StringRef OutDir) {
  if (OutDir.empty())
    return (Input + ".decan").str();
  SmallString<256> P(OutDir);
  sys::path::append(P, sys::path::filename(Input));
  return std::string(P);
}

static std::string maskNames(unsigned Mask) {
  std::string S;
  for (unsigned K = 0; K < DECAN_NUM_VARIANTS; ++K)
    if (Mask & (1u << K))
      S += (S.empty() ? "" : ",") + std::string(decan_variant_name(K));
  return S;
}

static void printLoop(raw_ostream &OS, const LoopCandidate &L,
                      const LoopOutcome *O) {
  OS << "  " << L.id() << "  " << loopWhere(L) << "  ";
  if (!L.File.empty())
    OS << L.File << ":" << L.Line;
  else
    OS << "-";
  OS << "  " << L.numInstrs() << " instrs, " << L.bytes() << " bytes  ";
  std::string Reason = O ? O->Reason : L.SkipReason;
  if (Reason.empty())
    OS << (O ? "rewritten [" + maskNames(O->VariantMask) + "]"
             : std::string("rewritable"));
  else
    OS << "skipped: " << Reason;
  OS << "\n";
  if (O)
    for (const std::string &N : O->VariantNotes)
      OS << "      " << N << "\n";
}

/// Prints the emitted copies of every rewritten loop, decoded from the
/// written file.
static Error disassembleCopies(StringRef Output, const decan::X86Target &X86,
                               const RewriteResult &R, raw_ostream &OS) {
  auto Out = BinaryImage::open(Output);
  if (!Out)
    return Out.takeError();
  auto Dump = [&](const std::string &Title, std::pair<uint64_t, uint64_t> Rg) {
    OS << Title << " @0x" << utohexstr(Rg.first, true) << ":\n";
    ArrayRef<uint8_t> Code = (*Out)->codeAt(Rg.first, Rg.second - Rg.first);
    uint64_t Off = 0;
    MCInst MI;
    while (Off < Code.size()) {
      uint64_t Size = X86.decode(Code.slice(Off), Rg.first + Off, MI);
      if (!Size) {
        OS << "    <undecodable>\n";
        break;
      }
      std::string Text = X86.print(MI, Rg.first + Off);
      if (Text != "nop" && !StringRef(Text).starts_with("nop"))
        OS << "    " << Text << "\n";
      Off += Size;
    }
  };
  for (const LoopOutcome &O : R.Loops) {
    if (!O.Rewritten)
      continue;
    Dump(O.Id + ".orig", O.OrigCopy);
    for (unsigned V = 0; V < 6; ++V)
      if (O.VariantMask & (1u << V))
        Dump(O.Id + "." + decan_variant_name(V), O.Copies[V]);
  }
  return Error::success();
}

Error decan::rewriter::rewriteFile(StringRef Input, StringRef Output,
                                   raw_ostream &OS, bool Verbose,
                                   const RewriteOptions &RW, bool Disasm) {
  auto X86 = decan::X86Knowledge::createForHost();
  if (!X86)
    return X86.takeError();
  auto Bin = BinaryImage::open(Input);
  if (!Bin)
    return Bin.takeError();
  if ((*Bin)->hasDecanMeta())
    return createStringError(inconvertibleErrorCode(),
                             "'%s' already carries decan metadata (built "
                             "with the plugin or already rewritten)",
                             Input.str().c_str());
  auto Loops = findLoops(**Bin, **X86);
  if (!Loops)
    return Loops.takeError();
  auto R = rewriteBinary(**Bin, **X86, *Loops, Output, RW);
  if (!R)
    return R.takeError();
  unsigned N = 0;
  for (const LoopOutcome &O : R->Loops)
    N += O.Rewritten;
  if (Verbose) {
    OS << "decan: wrote " << Output << ": " << N << " of " << R->Loops.size()
       << " innermost loops rewritten (code at 0x"
       << utohexstr(R->CodeAddr, true) << ", " << R->CodeSize
       << " bytes; data at 0x" << utohexstr(R->DataAddr, true) << ")\n";
    for (size_t K = 0; K < Loops->size(); ++K)
      printLoop(OS, (*Loops)[K], &R->Loops[K]);
  }
  if (Disasm)
    return disassembleCopies(Output, **X86, *R, OS);
  return Error::success();
}

Error decan::rewriter::listLoops(StringRef Input, raw_ostream &OS) {
  auto X86 = decan::X86Knowledge::createForHost();
  if (!X86)
    return X86.takeError();
  auto Bin = BinaryImage::open(Input);
  if (!Bin)
    return Bin.takeError();
  FinderStats Stats;
  auto Loops = findLoops(**Bin, **X86, &Stats);
  if (!Loops)
    return Loops.takeError();
  unsigned N = 0;
  for (const LoopCandidate &L : *Loops)
    N += L.SkipReason.empty();
  OS << Input << ": " << Stats.Functions << " functions, " << Loops->size()
     << " innermost loops, " << N << " rewritable\n";
  for (const LoopCandidate &L : *Loops)
    printLoop(OS, L, nullptr);
  return Error::success();
}
