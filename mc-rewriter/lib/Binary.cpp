//===- Binary.cpp - A validated x86-64 ELF input and its functions --------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/Unwind.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFLocationExpression.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace llvm::object;
using namespace decan::rewriter;

static Error refuse(StringRef Name, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(), "'" + Name + "': " + Why);
}

Expected<std::unique_ptr<BinaryImage>> BinaryImage::open(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return refuse(Path, "cannot read: " + Buf.getError().message());
  return create(std::move(*Buf), Path);
}

Expected<std::unique_ptr<BinaryImage>>
BinaryImage::create(std::unique_ptr<MemoryBuffer> Buffer, StringRef Name) {
  std::unique_ptr<BinaryImage> B(new BinaryImage());
  B->Name = Name.str();
  B->Buffer = std::move(Buffer);
  if (Error E = B->validate())
    return std::move(E);
  B->findFunctions();
  return std::move(B);
}

bool BinaryImage::isSharedObject() const {
  if (Obj->getELFFile().getHeader().e_type != ELF::ET_DYN)
    return false;
  // A PIE executable is ET_DYN too; it has an interpreter.
  return !isPIE();
}

bool BinaryImage::isPIE() const {
  const auto &F = Obj->getELFFile();
  if (F.getHeader().e_type != ELF::ET_DYN)
    return false;
  auto Phdrs = F.program_headers();
  if (!Phdrs) {
    consumeError(Phdrs.takeError());
    return false;
  }
  for (const auto &P : *Phdrs)
    if (P.p_type == ELF::PT_INTERP)
      return true;
  return false;
}

Error BinaryImage::validate() {
  StringRef Data = Buffer->getBuffer();
  if (Data.size() < 4 || !Data.starts_with("\x7f"
                                           "ELF"))
    return refuse(Name, "not an ELF file");
  if (Data.size() < sizeof(ELF::Elf64_Ehdr))
    return refuse(Name, "truncated ELF header");
  if (Data[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      Data[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return refuse(Name, "not a 64-bit little-endian ELF file (only x86-64 "
                        "is supported)");
  auto ObjOr = ELF64LEObjectFile::create(MemoryBufferRef(*Buffer));
  if (!ObjOr)
    return refuse(Name, "corrupt ELF file: " + toString(ObjOr.takeError()));
  Obj = std::make_unique<ELF64LEObjectFile>(std::move(*ObjOr));
  const auto &F = Obj->getELFFile();
  const auto &H = F.getHeader();
  if (H.e_machine != ELF::EM_X86_64)
    return refuse(Name, "architecture is not x86-64 (e_machine " +
                            Twine(H.e_machine) + ")");
  if (H.e_type != ELF::ET_EXEC && H.e_type != ELF::ET_DYN)
    return refuse(Name, "not an executable or shared library (relocatable "
                        "objects and core files are not rewritten)");
  if (H.e_phentsize != sizeof(ELF::Elf64_Phdr) ||
      (H.e_shnum && H.e_shentsize != sizeof(ELF::Elf64_Shdr)))
    return refuse(Name, "corrupt ELF header (entry sizes)");
  auto Phdrs = F.program_headers();
  if (!Phdrs)
    return refuse(Name,
                  "corrupt program headers: " + toString(Phdrs.takeError()));
  bool HasLoad = false;
  for (const auto &P : *Phdrs) {
    if (P.p_type != ELF::PT_LOAD)
      continue;
    HasLoad = true;
    if (P.p_offset > Data.size() || P.p_filesz > Data.size() - P.p_offset)
      return refuse(Name, "truncated file: a PT_LOAD segment extends past "
                          "the end of the file");
    if (P.p_filesz > P.p_memsz)
      return refuse(Name, "corrupt PT_LOAD segment (filesz > memsz)");
  }
  if (!HasLoad)
    return refuse(Name, "no loadable segment");
  auto Secs = F.sections();
  if (!Secs)
    return refuse(Name,
                  "corrupt section headers: " + toString(Secs.takeError()));
  if (Secs->empty())
    return refuse(Name, "no section headers (packed or stripped of section "
                        "headers): cannot find its code");
  auto StrTab = F.getSectionStringTable(*Secs);
  if (!StrTab)
    return refuse(Name, "corrupt section name table: " +
                            toString(StrTab.takeError()));
  for (const auto &S : *Secs) {
    auto SecName = F.getSectionName(S, *StrTab);
    if (!SecName)
      return refuse(Name,
                    "corrupt section name: " + toString(SecName.takeError()));
    if (*SecName == ".decan.meta")
      HasDecanMeta = true;
    if (S.sh_type != ELF::SHT_NOBITS &&
        (S.sh_offset > Data.size() || S.sh_size > Data.size() - S.sh_offset))
      return refuse(Name, "truncated file: section '" + *SecName +
                              "' extends past the end of the file");
    if (S.sh_type == ELF::SHT_PROGBITS && (S.sh_flags & ELF::SHF_ALLOC) &&
        (S.sh_flags & ELF::SHF_EXECINSTR) && S.sh_size > 0) {
      // The section must be mapped from the same file bytes by a PT_LOAD.
      bool Mapped = false;
      for (const auto &P : *Phdrs)
        if (P.p_type == ELF::PT_LOAD && (P.p_flags & ELF::PF_X) &&
            S.sh_addr >= P.p_vaddr &&
            S.sh_addr + S.sh_size <= P.p_vaddr + P.p_filesz &&
            S.sh_offset - P.p_offset == S.sh_addr - P.p_vaddr)
          Mapped = true;
      if (Mapped)
        Code.push_back({S.sh_addr, S.sh_size, S.sh_offset});
    }
  }
  if (Code.empty())
    return refuse(Name, "no executable section mapped by an executable "
                        "segment (packed or not a program)");
  std::sort(Code.begin(), Code.end(),
            [](const CodeSection &A, const CodeSection &B) {
              return A.Addr < B.Addr;
            });
  return Error::success();
}

ArrayRef<uint8_t> BinaryImage::codeAt(uint64_t Addr, uint64_t Size) const {
  for (const CodeSection &C : Code)
    if (Addr >= C.Addr && Addr - C.Addr <= C.Size &&
        Size <= C.Size - (Addr - C.Addr))
      return ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(Buffer->getBufferStart()) +
              C.Offset + (Addr - C.Addr),
          Size);
  return {};
}

ArrayRef<uint8_t> BinaryImage::dataAt(uint64_t Addr, uint64_t Size) const {
  ArrayRef<uint8_t> D = dataFrom(Addr);
  return D.size() >= Size ? D.take_front(Size) : ArrayRef<uint8_t>();
}

std::optional<uint64_t> BinaryImage::fileOffset(uint64_t Addr) const {
  auto Phdrs = Obj->getELFFile().program_headers();
  if (!Phdrs) {
    consumeError(Phdrs.takeError());
    return std::nullopt;
  }
  for (const auto &P : *Phdrs)
    if (P.p_type == ELF::PT_LOAD && Addr >= P.p_vaddr &&
        Addr - P.p_vaddr < P.p_filesz)
      return P.p_offset + (Addr - P.p_vaddr);
  return std::nullopt;
}

std::vector<BinaryImage::SearchPath> BinaryImage::searchPaths() const {
  std::vector<SearchPath> Res;
  auto Phdrs = Obj->getELFFile().program_headers();
  if (!Phdrs) {
    consumeError(Phdrs.takeError());
    return Res;
  }
  StringRef File = bytes();
  for (const auto &P : *Phdrs) {
    if (P.p_type != ELF::PT_DYNAMIC || P.p_offset > File.size() ||
        P.p_filesz > File.size() - P.p_offset)
      continue;
    struct Entry {
      int64_t Tag;
      uint64_t Val;
    };
    auto At = [&](uint64_t K) {
      Entry E;
      memcpy(&E, File.data() + P.p_offset + K * sizeof(Entry), sizeof(E));
      return E;
    };
    uint64_t N = P.p_filesz / sizeof(Entry), StrTab = 0;
    for (uint64_t K = 0; K < N && At(K).Tag != ELF::DT_NULL; ++K)
      if (At(K).Tag == ELF::DT_STRTAB)
        StrTab = At(K).Val;
    for (uint64_t K = 0; StrTab && K < N && At(K).Tag != ELF::DT_NULL; ++K) {
      Entry E = At(K);
      if (E.Tag != ELF::DT_RPATH && E.Tag != ELF::DT_RUNPATH)
        continue;
      ArrayRef<uint8_t> Str = dataFrom(StrTab + E.Val);
      const char *B = reinterpret_cast<const char *>(Str.data());
      const char *End = static_cast<const char *>(memchr(B, 0, Str.size()));
      if (!End)
        continue;
      Res.push_back({P.p_offset + K * sizeof(Entry) + offsetof(Entry, Val),
                     StrTab, std::string(B, End)});
    }
  }
  return Res;
}

ArrayRef<uint8_t> BinaryImage::dataFrom(uint64_t Addr) const {
  auto Phdrs = Obj->getELFFile().program_headers();
  if (!Phdrs) {
    consumeError(Phdrs.takeError());
    return {};
  }
  for (const auto &P : *Phdrs)
    if (P.p_type == ELF::PT_LOAD && Addr >= P.p_vaddr &&
        Addr - P.p_vaddr < P.p_filesz &&
        P.p_offset + P.p_filesz <= Buffer->getBufferSize())
      return ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(Buffer->getBufferStart()) +
              P.p_offset + (Addr - P.p_vaddr),
          P.p_filesz - (Addr - P.p_vaddr));
  return {};
}

BinaryImage::~BinaryImage() = default;

const UnwindTables &BinaryImage::unwind() const {
  std::call_once(UnwindOnce,
                 [&] { Unwind = std::make_unique<UnwindTables>(*this); });
  return *Unwind;
}

void BinaryImage::findFunctions() {

  std::map<uint64_t, FunctionRange> ByStart;
  auto InCode = [&](uint64_t S, uint64_t E) {
    return E > S && !codeAt(S, E - S).empty();
  };
  // Through ELFFile, whose accessors return errors: ELFObjectFile's symbol
  // accessors abort on a corrupt symbol table.
  const auto &EF = Obj->getELFFile();
  auto Secs = EF.sections();
  if (!Secs) {
    consumeError(Secs.takeError());
    return;
  }
  // .dynsym first: its names are the exported (global) ones.
  for (unsigned Type : {ELF::SHT_DYNSYM, ELF::SHT_SYMTAB})
    for (const auto &Sec : *Secs) {
      if (Sec.sh_type != Type)
        continue;
      auto Syms = EF.symbols(&Sec);
      auto StrTab = EF.getStringTableForSymtab(Sec);
      if (!Syms || !StrTab) {
        consumeError(Syms.takeError());
        consumeError(StrTab.takeError());
        continue;
      }
      for (const auto &Sym : *Syms) {
        uint8_t SymType = Sym.getType();
        if (SymType != ELF::STT_FUNC && SymType != ELF::STT_GNU_IFUNC)
          continue;
        Expected<StringRef> SymName = Sym.getName(*StrTab);
        if (!SymName) {
          consumeError(SymName.takeError());
          continue;
        }
        uint64_t Addr = Sym.st_value, Size = Sym.st_size;
        if (Addr + Size < Addr || !InCode(Addr, Addr + Size) ||
            SymName->empty())
          continue;
        auto It = ByStart.find(Addr);
        if (It != ByStart.end()) {
          It->second.End = std::max(It->second.End, Addr + Size);
          continue;
        }
        ByStart[Addr] = {Addr, Addr + Size, SymName->str(), true};
      }
    }

  // .eh_frame FDEs cover code no symbol names (stripped binaries, hidden
  // kernels). Errors in .eh_frame only lose those functions.
  for (const FdeInfo &F : unwind().fdes())
    if (F.End > F.Begin && InCode(F.Begin, F.End) && !ByStart.count(F.Begin))
      ByStart[F.Begin] = {F.Begin, F.End,
                          ("sub_" + utohexstr(F.Begin, /*LowerCase=*/true)),
                          false};

  // DWARF line tables only, built from the debug sections' bytes: a
  // corrupt section table never reaches DWARFContext's object reader.
  for (const auto &Sec : *Secs) {
    auto SecName = EF.getSectionName(Sec);
    if (!SecName) {
      consumeError(SecName.takeError());
      continue;
    }
    if (!SecName->starts_with(".debug_") || Sec.sh_type == ELF::SHT_NOBITS ||
        (Sec.sh_flags & ELF::SHF_COMPRESSED))
      continue;
    auto Bytes = EF.getSectionContents(Sec);
    if (!Bytes) {
      consumeError(Bytes.takeError());
      continue;
    }
    if (*SecName == ".debug_line")
      HasDwarfLines = true;
    DebugSections[SecName->drop_front(1)] = MemoryBuffer::getMemBuffer(
        toStringRef(*Bytes), *SecName, /*RequiresNullTerminator=*/false);
  }
  if (HasDwarfLines) {
    auto Ignore = [](Error E) { consumeError(std::move(E)); };
    Dwarf = DWARFContext::create(DebugSections, /*AddrSize=*/8,
                                 /*isLittleEndian=*/true, Ignore, Ignore);
  }

  uint64_t LastEnd = 0;
  for (auto &[Start, F] : ByStart) {
    if (Start < LastEnd)
      continue; // overlaps a function already kept (aliases, nested FDEs)
    LastEnd = F.End;
    Functions.push_back(F);
  }
}

std::optional<std::pair<std::string, unsigned>>
BinaryImage::lineFor(uint64_t Addr) const {
  if (!HasDwarfLines || !Dwarf)
    return std::nullopt;
  DILineInfoSpecifier Spec(
      DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
      DILineInfoSpecifier::FunctionNameKind::None);
  std::optional<DILineInfo> Info = Dwarf->getLineInfoForAddress(
      {Addr, object::SectionedAddress::UndefSection}, Spec);
  if (!Info || Info->Line == 0 || Info->FileName == DILineInfo::BadString)
    return std::nullopt;
  // As the plugin records it: under the compilation's directory, so that an
  // editor opens it from anywhere.
  SmallString<256> Path(Info->FileName);
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::make_pair(std::string(Path), Info->Line);
}

/// The DWARF register \p Expr names when it is exactly "in register N"
/// (DW_OP_reg0..31 or DW_OP_regx); nothing for memory, pieces or values.
static std::optional<unsigned> exactRegister(ArrayRef<uint8_t> Expr) {
  if (Expr.size() == 1 && Expr[0] >= dwarf::DW_OP_reg0 &&
      Expr[0] <= dwarf::DW_OP_reg31)
    return Expr[0] - dwarf::DW_OP_reg0;
  if (Expr.size() >= 2 && Expr[0] == dwarf::DW_OP_regx) {
    unsigned Len = 0;
    const char *Error = nullptr;
    uint64_t Reg =
        decodeULEB128(Expr.data() + 1, &Len, Expr.data() + Expr.size(), &Error);
    if (!Error && 1 + Len == Expr.size())
      return unsigned(Reg);
  }
  return std::nullopt;
}

/// Adds to \p Out the variables of \p Scope in a register at \p Addr, then
/// those of the nested scopes (blocks, inlined calls) that hold \p Addr,
/// which replace an outer name for the same register.
static void collectRegisterVariables(const DWARFDie &Scope, uint64_t Addr,
                                     std::map<unsigned, std::string> &Out,
                                     unsigned Depth) {
  if (Depth > 64)
    return; // a malformed tree
  for (const DWARFDie &C : Scope.children()) {
    dwarf::Tag T = C.getTag();
    if (T == dwarf::DW_TAG_lexical_block ||
        T == dwarf::DW_TAG_inlined_subroutine) {
      if (C.addressRangeContainsAddress(Addr))
        collectRegisterVariables(C, Addr, Out, Depth + 1);
      continue;
    }
    if (T != dwarf::DW_TAG_formal_parameter && T != dwarf::DW_TAG_variable)
      continue;
    const char *Name = C.getName(DINameKind::ShortName);
    if (!Name || !*Name)
      continue;
    auto Locs = C.getLocations(dwarf::DW_AT_location);
    if (!Locs) {
      consumeError(Locs.takeError());
      continue;
    }
    for (const DWARFLocationExpression &L : *Locs)
      if (!L.Range || (L.Range->LowPC <= Addr && Addr < L.Range->HighPC))
        if (auto Reg = exactRegister(L.Expr))
          Out[*Reg] = Name;
  }
}

std::map<unsigned, std::string>
BinaryImage::registerVariables(uint64_t Addr) const {
  std::map<unsigned, std::string> Out;
  if (!Dwarf)
    return Out;
  DWARFContext::DIEsForAddress D = Dwarf->getDIEsForAddress(Addr);
  if (D.FunctionDIE)
    collectRegisterVariables(D.FunctionDIE, Addr, Out, 0);
  return Out;
}

std::optional<std::string>
decan::rewriter::expandLoaderTokens(StringRef Entry, StringRef OriginDir,
                                    StringRef Lib, StringRef Platform) {
  std::string Out;
  while (!Entry.empty()) {
    size_t Dollar = Entry.find('$');
    Out += Entry.take_front(Dollar);
    if (Dollar == StringRef::npos)
      break;
    Entry = Entry.drop_front(Dollar + 1);
    StringRef Token;
    if (Entry.consume_front("{")) {
      size_t Close = Entry.find('}');
      if (Close == StringRef::npos)
        return std::nullopt;
      Token = Entry.take_front(Close);
      Entry = Entry.drop_front(Close + 1);
    } else {
      size_t End =
          Entry.find_if_not([](char C) { return isAlnum(C) || C == '_'; });
      Token = Entry.take_front(End);
      Entry = Entry.drop_front(Token.size());
    }
    if (Token == "ORIGIN") {
      if (OriginDir.empty())
        return std::nullopt; // no object to be relative to
      Out += OriginDir;
    } else if (Token == "LIB") {
      Out += Lib;
    } else if (Token == "PLATFORM") {
      Out += Platform;
    } else {
      return std::nullopt;
    }
  }
  return Out;
}
