//===- ElfWriter.cpp - Write a copy of an ELF file with new segments ------===//
//
// Part of decan. See ElfWriter.h.
//
//===----------------------------------------------------------------------===//

#include "ElfWriter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <unistd.h>

using namespace llvm;
using namespace llvm::ELF;
using namespace decan::rewriter;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

static constexpr uint64_t Page = 4096;

Expected<ElfWriter> ElfWriter::create(const BinaryImage &Bin, bool WithLate) {
  ElfWriter W(Bin);
  StringRef In = Bin.bytes();
  // Raw little-endian structures (validated by BinaryImage; host is x86-64).
  memcpy(&W.EH, In.data(), sizeof(W.EH));
  const Elf64_Ehdr &EH = W.EH;
  if (EH.e_shstrndx == SHN_XINDEX || EH.e_shnum >= SHN_LORESERVE)
    return fail("'" + Bin.path() + "': too many sections to add decan's");
  W.Phdrs.resize(EH.e_phnum);
  W.Shdrs.resize(EH.e_shnum);
  if (EH.e_phoff + W.Phdrs.size() * sizeof(Elf64_Phdr) > In.size() ||
      EH.e_shoff + W.Shdrs.size() * sizeof(Elf64_Shdr) > In.size() ||
      EH.e_shstrndx >= W.Shdrs.size())
    return fail("'" + Bin.path() + "': corrupt headers");
  memcpy(W.Phdrs.data(), In.data() + EH.e_phoff,
         W.Phdrs.size() * sizeof(Elf64_Phdr));
  memcpy(W.Shdrs.data(), In.data() + EH.e_shoff,
         W.Shdrs.size() * sizeof(Elf64_Shdr));
  const Elf64_Phdr *First = nullptr;
  uint64_t MaxEnd = 0;
  for (size_t K = 0; K < W.Phdrs.size(); ++K)
    if (W.Phdrs[K].p_type == PT_LOAD) {
      if (!First)
        First = &W.Phdrs[K];
      MaxEnd =
          std::max<uint64_t>(MaxEnd, W.Phdrs[K].p_vaddr + W.Phdrs[K].p_memsz);
      W.LastLoad = K;
    }
  uint64_t Delta = First->p_vaddr - First->p_offset;
  if (MaxEnd < Delta || (Delta % Page))
    return fail("'" + Bin.path() + "': unusual first PT_LOAD segment");
  W.CodeOff = alignTo(std::max<uint64_t>(In.size(), MaxEnd - Delta), Page);
  W.CodeVaddr = W.CodeOff + Delta;
  // Two new PT_LOADs (three with a late range): the header table is laid
  // out before the code.
  W.WithLate = WithLate;
  unsigned NewPhnum = W.Phdrs.size() + (WithLate ? 3 : 2);
  W.PhdrBytes = NewPhnum * sizeof(Elf64_Phdr);
  W.TextStart = W.CodeVaddr + alignTo(W.PhdrBytes, 64);
  return W;
}

bool ElfWriter::hasSection(StringRef Name) const {
  StringRef In = Bin->bytes();
  const Elf64_Shdr &S = Shdrs[EH.e_shstrndx];
  StringRef Names = In.substr(S.sh_offset, S.sh_size);
  for (const Elf64_Shdr &Sh : Shdrs)
    if (Sh.sh_name < Names.size() &&
        Names.drop_front(Sh.sh_name).split('\0').first == Name)
      return true;
  return false;
}

uint64_t ElfWriter::placeData(uint64_t CodeSize) {
  CodeSegSize = (TextStart - CodeVaddr) + CodeSize;
  DataOff = alignTo(CodeOff + CodeSegSize, Page);
  DataVaddr = DataOff + (CodeVaddr - CodeOff);
  return DataVaddr;
}

uint64_t ElfWriter::reserveLate(uint64_t DataMemSize, uint64_t Size) {
  LateVaddr = alignTo(DataVaddr + DataMemSize, Page);
  LateSize = alignTo(Size, Page);
  return LateVaddr;
}

std::vector<Elf64_Phdr>
ElfWriter::newProgramHeaders(uint64_t DataFileSize,
                             uint64_t DataMemSize) const {
  // PT_PHDR moves, two PT_LOADs follow the last one.
  std::vector<Elf64_Phdr> NewPh;
  for (size_t K = 0; K < Phdrs.size(); ++K) {
    Elf64_Phdr P = Phdrs[K];
    if (P.p_type == PT_PHDR) {
      P.p_offset = CodeOff;
      P.p_vaddr = P.p_paddr = CodeVaddr;
      P.p_filesz = P.p_memsz = PhdrBytes;
    }
    if (P.p_type == PT_GNU_EH_FRAME && EhHdrVaddr) {
      P.p_offset = CodeOff + (EhHdrVaddr - CodeVaddr);
      P.p_vaddr = P.p_paddr = EhHdrVaddr;
      P.p_filesz = P.p_memsz = EhHdrSize;
    }
    NewPh.push_back(P);
    if (int(K) == LastLoad) {
      Elf64_Phdr C{};
      C.p_type = PT_LOAD;
      C.p_flags = PF_R | PF_X;
      C.p_offset = CodeOff;
      C.p_vaddr = C.p_paddr = CodeVaddr;
      C.p_filesz = C.p_memsz = CodeSegSize;
      C.p_align = Page;
      NewPh.push_back(C);
      Elf64_Phdr D{};
      D.p_type = PT_LOAD;
      D.p_flags = PF_R | PF_W;
      D.p_offset = DataOff;
      D.p_vaddr = D.p_paddr = DataVaddr;
      D.p_filesz = DataFileSize;
      D.p_memsz = DataMemSize;
      D.p_align = Page;
      NewPh.push_back(D);
      if (WithLate) {
        // Zero-filled, read-only address space: the loader maps anonymous
        // pages there; the runtime maps the late pack over them.
        Elf64_Phdr R{};
        R.p_type = PT_LOAD;
        R.p_flags = PF_R;
        R.p_offset = DataOff; // page-aligned like the address; no bytes
        R.p_vaddr = R.p_paddr = LateVaddr;
        R.p_filesz = 0;
        R.p_memsz = LateSize;
        R.p_align = Page;
        NewPh.push_back(R);
      }
    }
  }
  return NewPh;
}

Error ElfWriter::write(StringRef OutPath, ArrayRef<Patch> Patches,
                       ArrayRef<char> Code, const std::string &Data,
                       uint64_t ScratchOff, uint64_t DataMemSize,
                       const std::string &Meta,
                       const std::string &DebugFrame) const {
  StringRef In = Bin->bytes();
  std::vector<Elf64_Phdr> NewPh = newProgramHeaders(Data.size(), DataMemSize);

  // Sections: the originals (indices unchanged), a longer .shstrtab, and
  // .decan.text, .decan.data, .decan.meta.
  std::vector<Elf64_Shdr> NewSh = Shdrs;
  std::string ShStr;
  {
    const Elf64_Shdr &S = Shdrs[EH.e_shstrndx];
    ShStr = In.substr(S.sh_offset, S.sh_size).str();
  }
  auto AddName = [&](StringRef N) {
    uint64_t O = ShStr.size();
    ShStr += N.str();
    ShStr.push_back('\0');
    return O;
  };
  uint64_t MetaOff = DataOff + Data.size();
  MetaOff = alignTo(MetaOff, 8);
  uint64_t FrameOff = alignTo(MetaOff + Meta.size(), 8);
  uint64_t ShStrOff = FrameOff + DebugFrame.size();
  Elf64_Shdr Text{}, DataSec{}, MetaSec{}, FrameSec{};
  Text.sh_name = AddName(".decan.text");
  Text.sh_type = SHT_PROGBITS;
  Text.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
  Text.sh_addr = TextStart;
  Text.sh_offset = CodeOff + (TextStart - CodeVaddr);
  Text.sh_size = Code.size();
  Text.sh_addralign = 64;
  DataSec.sh_name = AddName(".decan.data");
  DataSec.sh_type = SHT_PROGBITS;
  DataSec.sh_flags = SHF_ALLOC | SHF_WRITE;
  DataSec.sh_addr = DataVaddr;
  DataSec.sh_offset = DataOff;
  DataSec.sh_size = Data.size();
  DataSec.sh_addralign = Page;
  Elf64_Shdr Scratch{};
  Scratch.sh_name = AddName(".decan.scratch");
  Scratch.sh_type = SHT_NOBITS;
  Scratch.sh_flags = SHF_ALLOC | SHF_WRITE;
  Scratch.sh_addr = DataVaddr + ScratchOff;
  Scratch.sh_offset = DataOff + ScratchOff;
  Scratch.sh_size = DataMemSize - ScratchOff;
  Scratch.sh_addralign = Page;
  MetaSec.sh_name = AddName(".decan.meta");
  uint64_t LateName = WithLate ? AddName(".decan.late") : 0;
  if (!DebugFrame.empty())
    FrameSec.sh_name = AddName(".debug_frame");
  MetaSec.sh_type = SHT_PROGBITS;
  MetaSec.sh_offset = MetaOff;
  MetaSec.sh_size = Meta.size();
  MetaSec.sh_addralign = 8;
  NewSh[EH.e_shstrndx].sh_offset = ShStrOff;
  NewSh[EH.e_shstrndx].sh_size = ShStr.size();
  NewSh.push_back(Text);
  NewSh.push_back(DataSec);
  if (Scratch.sh_size)
    NewSh.push_back(Scratch);
  if (WithLate) {
    Elf64_Shdr Late{};
    Late.sh_name = LateName;
    Late.sh_type = SHT_NOBITS;
    Late.sh_flags = SHF_ALLOC;
    Late.sh_addr = LateVaddr;
    Late.sh_offset = DataOff;
    Late.sh_size = LateSize;
    Late.sh_addralign = Page;
    NewSh.push_back(Late);
  }
  NewSh.push_back(MetaSec);
  if (!DebugFrame.empty()) {
    FrameSec.sh_type = SHT_PROGBITS;
    FrameSec.sh_offset = FrameOff;
    FrameSec.sh_size = DebugFrame.size();
    FrameSec.sh_addralign = 8;
    NewSh.push_back(FrameSec);
  }
  uint64_t ShOff = alignTo(ShStrOff + ShStr.size(), 8);

  // Original bytes with the patches, then the new parts.
  std::string Out = In.str();
  for (const Patch &P : Patches)
    memcpy(&Out[P.first], P.second.data(), P.second.size());
  Elf64_Ehdr NewEH = EH;
  NewEH.e_phoff = CodeOff;
  NewEH.e_phnum = NewPh.size();
  NewEH.e_shoff = ShOff;
  NewEH.e_shnum = NewSh.size();
  memcpy(&Out[0], &NewEH, sizeof(NewEH));
  // The pieces at their offsets; gaps (up to past a large .bss) are left as
  // holes, so the file stays sparse.
  std::string Tail = Meta;
  Tail.resize(FrameOff - MetaOff, '\0');
  Tail += DebugFrame;
  Tail += ShStr;
  Tail.resize(ShOff - MetaOff, '\0');
  Tail.append(reinterpret_cast<const char *>(NewSh.data()),
              NewSh.size() * sizeof(Elf64_Shdr));
  std::string TextBytes(reinterpret_cast<const char *>(NewPh.data()),
                        PhdrBytes);
  TextBytes.resize(TextStart - CodeVaddr, 0);
  TextBytes.append(Code.data(), Code.size());
  const std::pair<uint64_t, const std::string *> Pieces[] = {
      {0, &Out}, {CodeOff, &TextBytes}, {DataOff, &Data}, {MetaOff, &Tail}};

  // Write to a temporary name, then rename: never a half-written output.
  // (per process: two runs may fill one cache entry at once)
  std::string Tmp = (OutPath + ".tmp" + Twine(::getpid())).str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC, sys::fs::OF_None);
    if (EC)
      return fail("cannot write '" + Tmp + "': " + EC.message());
    for (auto [Off, Bytes] : Pieces) {
      if (OS.tell() != Off)
        OS.seek(Off);
      OS << *Bytes;
    }
    OS.close();
    if (OS.has_error()) {
      std::string Why = OS.error().message();
      OS.clear_error();
      sys::fs::remove(Tmp); // never a partial file left behind
      return fail("cannot write '" + Tmp + "': " + Why);
    }
  }
  // Same permissions as the input (executables stay executable).
  if (auto Perms = sys::fs::getPermissions(Bin->path()))
    sys::fs::setPermissions(Tmp, *Perms);
  if (std::error_code EC = sys::fs::rename(Tmp, OutPath)) {
    sys::fs::remove(Tmp);
    return fail("cannot rename '" + Tmp + "' to '" + OutPath +
                "': " + EC.message());
  }
  return Error::success();
}
