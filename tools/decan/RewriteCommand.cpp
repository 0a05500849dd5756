//===- RewriteCommand.cpp - decan rewrite ---------------------------------===//
//
// Part of decan. `decan rewrite BINARY [-o DIR] [--list] ...`: parses the
// command line and prints what happened; the MC rewriter (mc-rewriter/,
// decan/Rewriter/Instrument.h) does the work.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/InstrKnowledge/X86Target.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/Instrument.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/ElfFacts.h"
#include "decan/Tool/LoopNames.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/Report.h"
#include "decan/Tool/RunOptions.h"
#include "decan/abi_names.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;
namespace rw = decan::rewriter;

static std::string maskNames(unsigned Mask) {
  std::string S;
  for (unsigned K = 0; K < DECAN_NUM_VARIANTS; ++K)
    if (Mask & (1u << K))
      S += (S.empty() ? "" : ",") + std::string(decan_variant_name(K));
  return S;
}

/// "f:L0, f:L1" as the ids it names.
static std::vector<std::string> splitIds(StringRef List) {
  std::vector<std::string> Ids;
  SmallVector<StringRef, 8> Parts;
  List.split(Parts, ',', -1, false);
  for (StringRef Id : Parts)
    Ids.push_back(Id.trim().str());
  return Ids;
}

/// One line per loop, and why a variant is missing.
static void printLoop(raw_ostream &OS, const rw::LoopCandidate &L,
                      const rw::LoopOutcome *O) {
  OS << "  " << L.id() << "  " << rw::loopWhere(L) << "  ";
  if (!L.File.empty())
    OS << L.File << ":" << L.Line;
  else
    OS << "-";
  OS << "  " << L.numInstrs() << " instrs, " << L.bytes() << " bytes  ";
  std::string Reason = O ? O->Reason : L.SkipReason;
  if (Reason.empty()) {
    OS << (!O ? std::string("rewritable")
           : O->VariantMask == 0
               ? std::string("rewritten, variants late")
               : "rewritten [" + maskNames(O->VariantMask) + "]");
    // How its header is patched, where that is not the plain 5-byte jump.
    if (L.Trampoline)
      OS << " (short header: jmp rel8 to a trampoline at 0x"
         << utohexstr(L.Trampoline, true) << ")";
    if (L.UnknownEntries)
      OS << " (unresolved indirect jump in the function: the patch covers "
            "the header's first instruction only)";
  } else
    OS << "skipped: " << Reason;
  OS << "\n";
  if (O)
    for (const std::string &N : O->VariantNotes)
      OS << "      " << N << "\n";
}

/// Prints the emitted copies of every rewritten loop, decoded from the
/// written file, after the original header's place in its 64-byte line
/// (every copy's header keeps that offset: Sat compares like fetch windows).
static Error disassembleCopies(StringRef Output,
                               ArrayRef<rw::LoopCandidate> Loops,
                               const rw::RewriteResult &R, raw_ostream &OS) {
  auto X86 = decan::X86Target::create();
  if (!X86)
    return X86.takeError();
  auto Out = rw::BinaryImage::open(Output);
  if (!Out)
    return Out.takeError();
  auto Dump = [&](const std::string &Title, std::pair<uint64_t, uint64_t> Rg) {
    OS << Title << " @0x" << utohexstr(Rg.first, true) << ":\n";
    ArrayRef<uint8_t> Code = (*Out)->codeAt(Rg.first, Rg.second - Rg.first);
    uint64_t Off = 0;
    MCInst MI;
    while (Off < Code.size()) {
      uint64_t Size = (*X86)->decode(Code.slice(Off), Rg.first + Off, MI);
      if (!Size) {
        OS << "    <undecodable>\n";
        break;
      }
      // X86's printer adds a branch's displacement to the address it is
      // given: the next instruction's, as in llvm-objdump.
      std::string Text = (*X86)->print(MI, Rg.first + Off + Size);
      if (Text != "nop" && !StringRef(Text).starts_with("nop"))
        OS << "    " << Text << "\n";
      Off += Size;
    }
  };
  for (size_t K = 0; K < R.Loops.size(); ++K) {
    const rw::LoopOutcome &O = R.Loops[K];
    if (!O.Rewritten)
      continue;
    if (K < Loops.size())
      OS << O.Id << ": original header 0x" << utohexstr(Loops[K].Header, true)
         << ", offset " << Loops[K].Header % 64 << " of its 64-byte line\n";
    Dump(O.Id + ".orig", O.OrigCopy);
    for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
      if (O.VariantMask & (1u << V))
        Dump(O.Id + "." + decan_variant_name(V), O.Copies[V]);
  }
  return Error::success();
}

/// `--list`: every innermost loop and why some cannot be rewritten.
static Error listLoops(StringRef Input, raw_ostream &OS) {
  rw::FinderStats Stats;
  auto Loops = rw::findLoopsInFile(Input, &Stats);
  if (!Loops)
    return Loops.takeError();
  unsigned N = 0;
  for (const rw::LoopCandidate &L : *Loops)
    N += L.SkipReason.empty();
  OS << Input << ": " << Stats.Functions << " functions, " << Loops->size()
     << " innermost loops, " << N << " rewritable";
  if (Stats.FunctionsWithIndirectJump)
    OS << "; " << Stats.FunctionsWithIndirectJump
       << " functions with an unresolved indirect jump";
  if (Stats.Trampolines)
    OS << "; " << Stats.Trampolines << " short headers through trampolines";
  OS << "\n";
  for (const rw::LoopCandidate &L : *Loops)
    printLoop(OS, L, nullptr);
  return Error::success();
}

/// Rewrites \p Input into \p Output; prints one line per loop when
/// \p Verbose and the emitted copies when \p Disasm.
static Error rewrite(StringRef Input, StringRef Output,
                     const rw::RewriteOptions &RW, bool Verbose, bool Disasm,
                     raw_ostream &OS) {
  auto F = rw::rewriteFile(Input, Output, RW);
  if (!F)
    return F.takeError();
  const rw::RewriteResult &R = F->Result;
  unsigned N = 0;
  for (const rw::LoopOutcome &O : R.Loops)
    N += O.Rewritten;
  if (Verbose) {
    OS << "decan: wrote " << Output << ": " << N << " of " << R.Loops.size()
       << (RW.Nests ? " loops and nests" : " innermost loops")
       << " rewritten (code at 0x" << utohexstr(R.CodeAddr, true) << ", "
       << R.CodeSize << " bytes; data at 0x" << utohexstr(R.DataAddr, true);
    if (R.LateSize)
      OS << "; late range at 0x" << utohexstr(R.LateAddr, true) << ", "
         << R.LateSize << " bytes";
    OS << ")\n";
    for (size_t K = 0; K < F->Loops.size(); ++K)
      printLoop(OS, F->Loops[K], &R.Loops[K]);
    printRegionOutcomes(OS, R.Regions);
  }
  if (Disasm)
    return disassembleCopies(Output, F->Loops, R, OS);
  return Error::success();
}

void printRegionOutcomes(raw_ostream &OS, ArrayRef<rw::RegionOutcome> Rs) {
  for (const rw::RegionOutcome &O : Rs) {
    OS << "  " << O.Id << "  " << O.Where << "  "
       << (O.File.empty() ? "?" : O.File) << ":" << O.Line << "  ";
    if (O.Rewritten)
      OS << "region, " << O.Sites << " patched entries and exits\n";
    else
      OS << "skipped: " << O.Reason << "\n";
  }
}

int runRewriteCommand(int argc, char **argv) {
  RewriteArgs A;
  OptionTable P = rewriteOptionTable(A);
  if (Error E = P.parse(argc, argv, 2))
    return reportError(std::move(E));
  if (P.helpAsked()) {
    P.printHelp(outs());
    return 0;
  }
  const std::vector<std::string> &Pos = P.positionals();
  if (Pos.empty())
    return reportError("decan rewrite wants a BINARY (see 'decan rewrite "
                       "--help')");
  if (Pos.size() > 1)
    return reportError("more than one input ('" + Pos[0] + "', '" + Pos[1] +
                       "')");
  const std::string &Input = Pos[0];
  if (Error E = checkReadable(Input))
    return reportError(std::move(E));
  if (A.List) {
    if (Error E = listLoops(Input, outs()))
      return reportError(std::move(E));
    return 0;
  }
  if (P.has("late-pack")) {
    // The late pack of the loops named, for a base copy of this input.
    if (!P.has("loops"))
      return reportError("--late-pack wants the loops: --loops=ID,...");
    std::vector<std::string> Ids = splitIds(A.Loops);
    rw::LatePackOptions LO;
    if (A.Variants) {
      LO.VariantMask = 1u << DECAN_REF;
      for (Variant V : *A.Variants)
        LO.VariantMask |= 1u << static_cast<unsigned>(V);
    }
    std::string Base = A.LatePack;
    std::string Out = P.has("o") ? A.OutDir : Base + ".pack";
    if (Error E = checkOutputPath(Out))
      return reportError(std::move(E));
    // Built aside, then written by the rules of every output path (a
    // device or a symlink named by -o is not replaced).
    SmallString<128> Tmp;
    if (std::error_code EC = sys::fs::createUniqueDirectory("decan-pack", Tmp))
      return reportError("cannot create a temporary directory: " +
                         EC.message());
    scope_exit RemoveTmp([&] { sys::fs::remove_directories(Tmp); });
    std::string Built = (Tmp + "/pack").str();
    auto R = rw::buildLatePackFile(Input, Base, Ids, Built, LO);
    if (!R)
      return reportError(R.takeError());
    auto Pack = MemoryBuffer::getFile(Built, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
    if (!Pack)
      return reportError("cannot read '" + Built +
                         "': " + Pack.getError().message());
    if (Error E = writeOutput(Out, (*Pack)->getBuffer()))
      return reportError(std::move(E));
    if (!A.Quiet) {
      outs() << "decan: wrote " << Out << ": " << R->Built.size()
             << " loop(s), " << R->CodeSize << " bytes of code, "
             << R->ScratchSize << " bytes of scratch\n";
      for (const std::string &Id : R->Built)
        outs() << "  " << Id << "  built\n";
      for (const auto &[Id, Why] : R->Left)
        outs() << "  " << Id << "  left out: " << Why << "\n";
    }
    return 0;
  }
  rw::RewriteOptions RW;
  if (P.has("all") && P.has("loops"))
    return reportError("--all and --loops exclude each other");
  if (P.has("profile") && P.has("variants"))
    return reportError("--profile builds REF alone: no --variants");
  if (P.has("late-base") && (P.has("variants") || P.has("profile")))
    return reportError("--late-base builds no measured copy: no --variants "
                       "or --profile");
  RW.Profile = A.Profile;
  RW.LateBase = A.LateBase;
  RW.Regions = A.Regions;
  RW.Nests = A.Nests;
  RW.OnlyLoops = splitIds(A.Loops);
  RW.NamesLoop = namesLoopOfAnyObject;
  if (P.has("profile") && (P.has("extended") || P.has("groups")))
    return reportError("--profile builds REF alone: no --extended/--groups");
  // The variants decan run rotates by default (the verdicts' seven), unless
  // asked for others: what it would build for the same options.
  RunOptions Run;
  if (A.Variants)
    Run.Variants = *A.Variants;
  Run.Extended = A.Extended;
  Run.Groups = A.Groups;
  RW.VariantMask = 0;
  for (Variant V : Run.rotation())
    RW.VariantMask |= 1u << static_cast<unsigned>(V);
  RW.Threads = A.Threads;
  std::string OutDir = A.OutDir;
  if (!OutDir.empty())
    if (Error E = prepareOutputDirectory(OutDir))
      return reportError(std::move(E));
  std::string Out = rw::rewrittenPath(Input, OutDir);
  if (Error E = rewrite(Input, Out, RW, !A.Quiet, A.Disasm, outs()))
    return reportError(std::move(E));
  auto Facts = readDynamicFacts(Input);
  if (Facts && Facts->isStaticProgram())
    errs() << "decan: warning: '" << Input
           << "' is statically linked: its copy runs, but cannot be measured "
              "(decan loads its runtime through the dynamic loader)\n";
  if (!Facts)
    consumeError(Facts.takeError());
  return 0;
}
