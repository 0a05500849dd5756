//===- Listings.cpp - A loop's copies read back from its binary -----------===//
//
// Part of decan. See decan/Tool/Listings.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Listings.h"

#include "decan/InstrKnowledge/X86Target.h"
#include "decan/Rewriter/Instrument.h"
#include "decan/Tool/Render.h"
#include "decan/abi_names.h"
#include "decan/symbols.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace decan::tool {

struct LoopCopies::Impl {
  object::OwningBinary<object::ObjectFile> Bin;
  std::unique_ptr<X86Target> X86;
  /// Symbol name -> (address, size).
  StringMap<std::pair<uint64_t, uint64_t>> Symbols;
  /// Executable sections: address and contents.
  std::vector<std::pair<uint64_t, StringRef>> Code;
};

LoopCopies::LoopCopies() : P(std::make_unique<Impl>()) {}
LoopCopies::~LoopCopies() = default;

Expected<std::unique_ptr<LoopCopies>> LoopCopies::open(StringRef Binary) {
  auto Bin = object::ObjectFile::createObjectFile(Binary);
  if (!Bin)
    return Bin.takeError();
  auto X86 = X86Target::create();
  if (!X86)
    return X86.takeError();
  std::unique_ptr<LoopCopies> C(new LoopCopies());
  C->P->Bin = std::move(*Bin);
  C->P->X86 = std::move(*X86);
  const object::ObjectFile &O = *C->P->Bin.getBinary();
  for (const object::SectionRef &S : O.sections()) {
    if (!S.isText())
      continue;
    if (auto Data = S.getContents())
      C->P->Code.push_back({S.getAddress(), *Data});
    else
      consumeError(Data.takeError());
  }
  auto *ELF = dyn_cast<object::ELFObjectFileBase>(&O);
  if (!ELF)
    return C;
  for (const object::ELFSymbolRef &S : ELF->symbols()) {
    auto Name = S.getName();
    auto Addr = S.getAddress();
    if (!Name || !Addr) {
      consumeError(Name.takeError());
      consumeError(Addr.takeError());
      continue;
    }
    if (Name->contains(LoopSymbolInfix) && S.getSize())
      C->P->Symbols[*Name] = {*Addr, S.getSize()};
  }
  for (const rewriter::MappedCopy &M : rewriter::readCopyMap(Binary))
    C->P->Symbols[loopSymbolOfId(M.Id, decan_variant_name(M.Variant))] = {
        M.Begin, M.End - M.Begin};
  return C;
}

std::vector<AsmLine> LoopCopies::copyOf(const LoopReport &L, Variant V) const {
  auto It = P->Symbols.find(loopSymbolOfId(L.Id, variantName(V)));
  if (It == P->Symbols.end())
    return {};
  auto [Addr, Size] = It->second;
  for (auto [Base, Data] : P->Code) {
    if (Addr < Base || Addr + Size > Base + Data.size())
      continue;
    ArrayRef<uint8_t> Bytes(
        reinterpret_cast<const uint8_t *>(Data.data()) + (Addr - Base), Size);
    std::vector<AsmLine> Out;
    MCInst MI;
    for (uint64_t Off = 0; Off < Bytes.size();) {
      uint64_t N = P->X86->decode(Bytes.slice(Off), Addr + Off, MI);
      if (!N) {
        Out.push_back({Addr + Off, "<undecodable>"});
        break;
      }
      std::string Text = P->X86->print(MI, Addr + Off);
      StringRef T = StringRef(Text).trim();
      if (!T.starts_with("nop"))
        Out.push_back({Addr + Off, T.str()});
      Off += N;
    }
    return Out;
  }
  return {};
}

/// The text of an instruction as copies share it: a branch's or call's
/// target and a RIP-relative displacement (addresses, which differ
/// between copies) left out.
static std::string comparable(StringRef Text) {
  StringRef Mnemonic =
      Text.take_until([](char C) { return C == '\t' || C == ' '; });
  if (Mnemonic.starts_with("j") || Mnemonic.starts_with("call"))
    return Mnemonic.str();
  static const Regex RipDisp("-?(0x)?[0-9a-f]+\\(%rip\\)");
  std::string Out =
      Text.take_until([](char C) { return C == '#'; }).rtrim().str();
  if (RipDisp.match(Out)) // one memory operand per instruction
    Out = RipDisp.sub("(%rip)", Out);
  return Out;
}

std::vector<bool> deletedInstructions(ArrayRef<AsmLine> Ref,
                                      ArrayRef<AsmLine> Variant) {
  std::map<std::string, unsigned> Left;
  for (const AsmLine &A : Variant)
    ++Left[comparable(A.Text)];
  std::vector<bool> Deleted;
  for (const AsmLine &A : Ref) {
    unsigned &N = Left[comparable(A.Text)];
    Deleted.push_back(N == 0);
    if (N)
      --N;
  }
  return Deleted;
}

bool sourceReadable(const LoopReport &L) {
  return !L.File.empty() && L.Line && sys::fs::is_regular_file(L.File) &&
         sys::fs::access(L.File, sys::fs::AccessMode::Exist) ==
             std::error_code();
}

std::string sourceLinkHTML(const LoopReport &L, StringRef Anchor) {
  std::string Text = htmlEscape(sourceLocation(L.File, L.Line));
  if (L.File.empty())
    return Text;
  if (sourceReadable(L))
    return formatv("<a class=\"src-link\" href=\"#{0}-{1}\">{2}</a>", Anchor,
                   L.Line, Text)
        .str();
  SmallString<256> Abs(L.File);
  if (sys::fs::make_absolute(Abs))
    return Text;
  return formatv("<a class=\"src-link\" href=\"file://{0}\">{1}</a>",
                 htmlEscape(Abs), Text)
      .str();
}

void writeSourceListing(raw_ostream &OS, const LoopReport &L,
                        StringRef Anchor) {
  if (!sourceReadable(L))
    return;
  auto Buf = MemoryBuffer::getFile(L.File);
  if (!Buf)
    return;
  SmallVector<StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  // The loop's line and what usually is its body: a few lines before (the
  // header of a nest), a screenful after.
  unsigned From = L.Line > 4 ? L.Line - 4 : 1;
  unsigned To = std::min<unsigned>(Lines.size(), L.Line + 14);
  OS << formatv("<details class=\"source\" open><summary>source: {0} "
                "(lines {1}-{2})</summary><pre id=\"{3}\">",
                htmlEscape(L.File), From, To, Anchor);
  for (unsigned N = From; N <= To; ++N)
    OS << formatv("<span id=\"{0}-{1}\" class=\"{2}\">{3,5}  {4}</span>\n",
                  Anchor, N, N == L.Line ? "line loop-line" : "line", N,
                  htmlEscape(Lines[N - 1].rtrim()));
  OS << "</pre></details>\n";
}

void writeAssemblyListing(raw_ostream &OS, const LoopReport &L,
                          const LoopCopies &Copies) {
  std::vector<AsmLine> Ref = Copies.copyOf(L, Variant::REF);
  if (Ref.empty())
    return;
  OS << "<details class=\"assembly\"><summary>assembly: REF and each "
        "variant's copy (from the binary; struck through in REF: not in "
        "the variant, deleted or changed)</summary>\n";
  for (Variant V : AllVariants) {
    if (V == Variant::REF)
      continue;
    std::vector<AsmLine> Var = Copies.copyOf(L, V);
    if (Var.empty() || !L.Variants[V])
      continue;
    std::vector<bool> Deleted = deletedInstructions(Ref, Var);
    unsigned NDel = count(Deleted, true);
    OS << formatv("<div class=\"asm-pair\" data-variant=\"{0}\" "
                  "data-deleted=\"{1}\"><h4>REF vs {0}: {1} of {2} "
                  "instructions deleted, {0} has {3}</h4>"
                  "<pre class=\"asm\">",
                  variantName(V), NDel, Ref.size(), Var.size());
    for (size_t I = 0; I < Ref.size(); ++I)
      OS << formatv(Deleted[I] ? "<del>{0:x}  {1}</del>\n" : "{0:x}  {1}\n",
                    Ref[I].Address, htmlEscape(Ref[I].Text));
    OS << "</pre><pre class=\"asm\">";
    for (const AsmLine &A : Var)
      OS << formatv("{0:x}  {1}\n", A.Address, htmlEscape(A.Text));
    OS << "</pre></div>\n";
  }
  OS << "</details>\n";
}

std::string measuredBinary(const Report &R) {
  if (auto Copy = R.Config.getString("rewritten_binary"))
    if (sys::fs::exists(*Copy))
      return Copy->str();
  for (const ProcessInfo &P : R.Processes) {
    if (P.Program.empty())
      continue;
    SmallString<256> Path(P.Program);
    if (StringRef(P.Program).contains('/')) {
      if (sys::fs::make_absolute(Path) || !sys::fs::exists(Path))
        continue;
      return std::string(Path);
    }
    if (auto Found = sys::findProgramByName(P.Program))
      return *Found;
  }
  return "";
}

} // namespace decan::tool
