//===- ElfFacts.cpp - What decan run needs to know of an ELF file ---------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/ElfFacts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace decan::tool {

bool isELF(StringRef Path) {
  auto Buf = MemoryBuffer::getFileSlice(Path, 4, 0);
  return Buf && (*Buf)->getBuffer() == "\x7f"
                                       "ELF";
}

Error checkReadable(StringRef Path) {
  int FD = ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (FD < 0) {
    std::string Why = std::error_code(errno, std::generic_category()).message();
    if (!Why.empty())
      Why[0] = toLower(Why[0]);
    return createStringError("cannot read '%s': %s", Path.str().c_str(),
                             Why.c_str());
  }
  ::close(FD);
  return Error::success();
}

Expected<DynamicFacts> readDynamicFacts(StringRef Path) {
  std::string P = Path.str();
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin) {
    consumeError(Bin.takeError());
    return createStringError("'%s' is not an ELF file (not an object file)",
                             P.c_str());
  }
  auto *Obj = dyn_cast<object::ELF64LEObjectFile>(Bin->getBinary());
  if (!Obj || Obj->getELFFile().getHeader().e_machine != ELF::EM_X86_64)
    return createStringError("'%s' is not an x86-64 ELF file", P.c_str());
  const auto &F = Obj->getELFFile();
  DynamicFacts Out;
  Out.Type = F.getHeader().e_type;
  auto Phdrs = F.program_headers();
  if (!Phdrs)
    return createStringError("'%s': bad program headers: %s", P.c_str(),
                             toString(Phdrs.takeError()).c_str());
  bool HasDynamic = false;
  for (const auto &Ph : *Phdrs) {
    Out.Interpreter |= Ph.p_type == ELF::PT_INTERP;
    HasDynamic |= Ph.p_type == ELF::PT_DYNAMIC;
  }
  uint64_t Flags1 = 0;
  if (HasDynamic) {
    auto Dyn = F.dynamicEntries();
    if (!Dyn)
      return createStringError("'%s': bad dynamic section: %s", P.c_str(),
                               toString(Dyn.takeError()).c_str());
    uint64_t StrTab = 0, StrSz = 0;
    std::optional<uint64_t> SoName, RunPath, RPath;
    std::vector<uint64_t> Needed;
    for (const auto &D : *Dyn) {
      switch (D.d_tag) {
      case ELF::DT_STRTAB:
        StrTab = D.getPtr();
        break;
      case ELF::DT_STRSZ:
        StrSz = D.getVal();
        break;
      case ELF::DT_SONAME:
        SoName = D.getVal();
        break;
      case ELF::DT_NEEDED:
        Needed.push_back(D.getVal());
        break;
      case ELF::DT_RUNPATH:
        RunPath = D.getVal();
        break;
      case ELF::DT_RPATH:
        RPath = D.getVal();
        break;
      case ELF::DT_FLAGS_1:
        Flags1 = D.getVal();
        break;
      }
    }
    if (SoName || RunPath || RPath || !Needed.empty()) {
      auto Str = F.toMappedAddr(StrTab);
      if (!Str)
        return createStringError("'%s': bad DT_STRTAB: %s", P.c_str(),
                                 toString(Str.takeError()).c_str());
      const char *Begin = reinterpret_cast<const char *>(*Str);
      auto At = [&](uint64_t Off) -> Expected<std::string> {
        if (Off >= StrSz)
          return createStringError("'%s': a dynamic entry points outside "
                                   "DT_STRTAB",
                                   P.c_str());
        return std::string(Begin + Off, strnlen(Begin + Off, StrSz - Off));
      };
      if (SoName) {
        auto S = At(*SoName);
        if (!S)
          return S.takeError();
        if (S->empty() || StringRef(*S).contains('/'))
          return createStringError("'%s': bad DT_SONAME '%s'", P.c_str(),
                                   S->c_str());
        Out.SoName = *S;
      }
      for (uint64_t N : Needed) {
        auto S = At(N);
        if (!S)
          return S.takeError();
        Out.Needed.push_back(*S);
      }
      for (auto [Off, To] :
           {std::pair(RunPath, &Out.RunPath), std::pair(RPath, &Out.RPath)})
        if (Off) {
          auto S = At(*Off);
          if (!S)
            return S.takeError();
          *To = *S;
        }
    }
  }
  // A PIE is ET_DYN too, but the loader never loads it as a dependency.
  Out.Program = Out.Type == ELF::ET_EXEC ||
                (Out.Type == ELF::ET_DYN && (Flags1 & ELF::DF_1_PIE) &&
                 Out.SoName.empty());
  // A stripped file has no symbol table: nothing to tell.
  if (Obj->symbol_begin() != Obj->symbol_end()) {
    Out.DefinesRuntime = false;
    for (const object::SymbolRef &Sym : Obj->symbols()) {
      Expected<StringRef> Name = Sym.getName();
      Expected<uint32_t> Flags = Sym.getFlags();
      if (Name && Flags && *Name == "__decan_register_loops" &&
          !(*Flags & object::SymbolRef::SF_Undefined))
        Out.DefinesRuntime = true;
      if (!Name)
        consumeError(Name.takeError());
      if (!Flags)
        consumeError(Flags.takeError());
    }
  }
  return Out;
}

Expected<std::string> sharedLibraryName(StringRef Path) {
  std::string P = Path.str();
  auto Facts = readDynamicFacts(Path);
  if (!Facts) {
    std::string Msg = toString(Facts.takeError());
    if (StringRef(Msg).ends_with("(not an object file)"))
      return createStringError("'%s' is not a shared library (not an object "
                               "file)",
                               P.c_str());
    if (StringRef(Msg).ends_with("is not an x86-64 ELF file"))
      return createStringError("'%s' is not an x86-64 ELF shared library",
                               P.c_str());
    return createStringError(Msg);
  }
  if (Facts->Type != ELF::ET_DYN)
    return createStringError("'%s' is not a shared library (ELF type %u)",
                             P.c_str(), unsigned(Facts->Type));
  if (Facts->Program)
    return createStringError("'%s' is a program (PIE), not a shared library",
                             P.c_str());
  if (Facts->SoName.empty())
    return sys::path::filename(Path).str();
  return Facts->SoName;
}

} // namespace decan::tool
