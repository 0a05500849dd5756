//===- ElfWriter.h - Copy of an ELF file with new segments -*- C++ -*-===//
//
// Part of decan. Where the rewriter's new code and data go in a copy of an
// ELF file, and the writing of that copy: the original bytes (patched),
// the program headers moved into the new code segment (PT_PHDR follows),
// a new R+X segment (.decan.text), a new RW segment (.decan.data, then
// .decan.scratch as zero-fill), .decan.meta and a longer .shstrtab.
// Original section indices do not change. Private to mc-rewriter/lib.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LIB_ELFWRITER_H
#define DECAN_REWRITER_LIB_ELFWRITER_H

#include "decan/Rewriter/Binary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace decan::rewriter {

class ElfWriter {
public:
  /// Reads \p Bin's headers. New segments go past every existing one,
  /// congruent to their file offsets like the first PT_LOAD (so AT_PHDR is
  /// right even on kernels that compute it from the first segment).
  /// \p WithLate: the copy reserves a late range (reserveLate).
  static llvm::Expected<ElfWriter> create(const BinaryImage &Bin,
                                          bool WithLate = false);

  /// Address of the first byte of new code (after the moved headers).
  uint64_t textStart() const { return TextStart; }
  /// Places the RW segment after \p CodeSize bytes of code; returns its
  /// address.
  uint64_t placeData(uint64_t CodeSize);
  /// A base copy for late variants: reserves \p Size bytes of address
  /// space (page-aligned) past the RW segment's \p DataMemSize bytes, as a
  /// read-only PT_LOAD without file bytes (.decan.late); returns its
  /// address. Call after placeData().
  uint64_t reserveLate(uint64_t DataMemSize, uint64_t Size);

  /// Bytes replacing the input's at a file offset (the jumps to the stubs).
  using Patch = std::pair<uint64_t, std::string>;
  /// Writes the copy to \p OutPath (through a temporary file and a rename,
  /// with the input's permissions): \p Code at textStart(), \p Data at the
  /// RW segment's start, zero-filled memory up to \p DataMemSize (from
  /// \p ScratchOff on: .decan.scratch), \p Meta as .decan.meta,
  /// \p DebugFrame (when not empty) as .debug_frame.
  llvm::Error write(llvm::StringRef OutPath, llvm::ArrayRef<Patch> Patches,
                    llvm::ArrayRef<char> Code, const std::string &Data,
                    uint64_t ScratchOff, uint64_t DataMemSize,
                    const std::string &Meta,
                    const std::string &DebugFrame = "") const;
  /// PT_GNU_EH_FRAME points at \p Vaddr (a table in the new code segment).
  void setEhFrameHdr(uint64_t Vaddr, uint64_t Size) {
    EhHdrVaddr = Vaddr;
    EhHdrSize = Size;
  }
  /// True when the input has a section named \p Name.
  bool hasSection(llvm::StringRef Name) const;

private:
  explicit ElfWriter(const BinaryImage &Bin) : Bin(&Bin) {}
  std::vector<llvm::ELF::Elf64_Phdr>
  newProgramHeaders(uint64_t DataFileSize, uint64_t DataMemSize) const;

  const BinaryImage *Bin;
  llvm::ELF::Elf64_Ehdr EH;
  std::vector<llvm::ELF::Elf64_Phdr> Phdrs;
  std::vector<llvm::ELF::Elf64_Shdr> Shdrs;
  int LastLoad = -1;
  uint64_t CodeOff = 0, CodeVaddr = 0, PhdrBytes = 0, TextStart = 0;
  uint64_t CodeSegSize = 0, DataOff = 0, DataVaddr = 0;
  bool WithLate = false;
  uint64_t LateVaddr = 0, LateSize = 0;
  uint64_t EhHdrVaddr = 0, EhHdrSize = 0;
};

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LIB_ELFWRITER_H
