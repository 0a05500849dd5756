//===- RewriteTool.cpp - `decan rewrite` ----------------------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/RewriteTool.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"
#include "decan/Rewriter/Rewriter.h"
#include "decan/Rewriter/X86Context.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace decan::rewriter;

static const char *const Names[] = {"REF", "LS", "FP", "NO_DIV", "DL1", "CTRL"};

std::string decan::rewriter::rewrittenPath(StringRef Input, StringRef OutDir) {
  if (OutDir.empty())
    return (Input + ".decan").str();
  SmallString<256> P(OutDir);
  sys::path::append(P, sys::path::filename(Input));
  return std::string(P);
}

static std::string maskNames(unsigned Mask) {
  std::string S;
  for (unsigned K = 0; K < 6; ++K)
    if (Mask & (1u << K))
      S += (S.empty() ? "" : ",") + std::string(Names[K]);
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

namespace {
struct Options {
  std::string Input, OutDir;
  bool List = false, Quiet = false, Disasm = false;
  RewriteOptions RW;
};
} // namespace

/// Prints the emitted copies of every rewritten loop, decoded from the
/// written file.
static Error disassembleCopies(StringRef Output, const X86Context &X86,
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
        Dump(O.Id + "." + Names[V], O.Copies[V]);
  }
  return Error::success();
}

static Error rewriteWith(StringRef Input, StringRef Output, raw_ostream &OS,
                         bool Verbose, const RewriteOptions &RW,
                         bool Disasm = false) {
  auto X86 = X86Context::create();
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

Error decan::rewriter::rewriteFile(StringRef Input, StringRef Output,
                                   raw_ostream &OS, bool Verbose) {
  return rewriteWith(Input, Output, OS, Verbose, RewriteOptions());
}

/// Errors are printed on one line, whatever the error carried.
static std::string oneLine(std::string S) {
  for (char &C : S)
    if (C == '\n')
      C = ' ';
  return S;
}

static void usage(raw_ostream &OS) {
  OS << "USAGE: decan rewrite BINARY [-o DIR] [--list] [--loops=ID,...] "
        "[--variants=NAME,...] [-q]\n\n"
        "Writes a copy of the x86-64 ELF executable or shared library BINARY "
        "into DIR\n(default: BINARY.decan next to it) in which every "
        "rewritable innermost loop\nruns from new code carrying decan's "
        "variants. The input is never modified.\n"
        "  --list          list innermost loops and why some cannot be "
        "rewritten; write nothing\n"
        "  --loops=IDS     rewrite only these loop ids (f:L0,...)\n"
        "  --variants=V    build only these variants (REF always)\n"
        "  --disasm        print the emitted copies of every rewritten loop\n"
        "Run the copy with 'decan run' (or LD_PRELOAD=libdecan_rt.so and "
        "DECAN_LOOPS=...).\n";
}

int decan::rewriter::runRewriteTool(int argc, char **argv) {
  Options O;
  int K = 0;
  if (argc > 0 && StringRef(argv[0]).ends_with("rewrite"))
    K = 1;
  for (; K < argc; ++K) {
    StringRef A = argv[K];
    if (A == "--help" || A == "-h") {
      usage(outs());
      return 0;
    }
    if (A == "--disasm") {
      O.Disasm = true;
    } else if (A == "--list") {
      O.List = true;
    } else if (A == "-q") {
      O.Quiet = true;
    } else if (A == "-o" && K + 1 < argc) {
      O.OutDir = argv[++K];
    } else if (A.consume_front("--loops=")) {
      SmallVector<StringRef, 8> Ids;
      A.split(Ids, ',', -1, false);
      for (StringRef I : Ids)
        O.RW.OnlyLoops.push_back(I.str());
    } else if (A.consume_front("--variants=")) {
      SmallVector<StringRef, 8> Vs;
      A.split(Vs, ',', -1, false);
      O.RW.VariantMask = 1;
      for (StringRef V : Vs) {
        bool Found = false;
        for (unsigned N = 0; N < 6; ++N)
          if (V == Names[N]) {
            O.RW.VariantMask |= 1u << N;
            Found = true;
          }
        if (!Found) {
          errs() << "decan: error: unknown variant '" << V << "'\n";
          return 2;
        }
      }
    } else if (A.starts_with("-")) {
      errs() << "decan: error: unknown option '" << A
             << "' (see 'decan rewrite --help')\n";
      return 2;
    } else if (O.Input.empty()) {
      O.Input = A.str();
    } else {
      errs() << "decan: error: more than one input ('" << O.Input << "', '" << A
             << "')\n";
      return 2;
    }
  }
  if (O.Input.empty()) {
    usage(errs());
    return 2;
  }
  if (O.List) {
    auto X86 = X86Context::create();
    if (!X86) {
      errs() << "decan: error: " << toString(X86.takeError()) << "\n";
      return 2;
    }
    auto Bin = BinaryImage::open(O.Input);
    if (!Bin) {
      errs() << "decan: error: " << oneLine(toString(Bin.takeError())) << "\n";
      return 2;
    }
    FinderStats Stats;
    auto Loops = findLoops(**Bin, **X86, &Stats);
    if (!Loops) {
      errs() << "decan: error: " << oneLine(toString(Loops.takeError()))
             << "\n";
      return 2;
    }
    unsigned N = 0;
    for (const LoopCandidate &L : *Loops)
      N += L.SkipReason.empty();
    outs() << O.Input << ": " << Stats.Functions << " functions, "
           << Loops->size() << " innermost loops, " << N << " rewritable\n";
    for (const LoopCandidate &L : *Loops)
      printLoop(outs(), L, nullptr);
    return 0;
  }
  if (!O.OutDir.empty()) {
    if (std::error_code EC = sys::fs::create_directories(O.OutDir)) {
      errs() << "decan: error: cannot create '" << O.OutDir
             << "': " << EC.message() << "\n";
      return 2;
    }
  }
  std::string Out = rewrittenPath(O.Input, O.OutDir);
  if (Error E = rewriteWith(O.Input, Out, outs(), !O.Quiet, O.RW, O.Disasm)) {
    errs() << "decan: error: " << oneLine(toString(std::move(E))) << "\n";
    return 2;
  }
  return 0;
}
