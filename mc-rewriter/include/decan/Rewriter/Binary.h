//===- Binary.h - A validated x86-64 ELF input and its functions ----------===//
//
// Part of decan. Opens a prebuilt ELF file, refuses anything the rewriter
// cannot handle with one line (other architectures, non-ELF, truncated or
// corrupt headers, packed code), and lists function bounds: from .symtab and
// .dynsym when present, else (and for code no symbol covers) from .eh_frame
// FDEs.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_BINARY_H
#define DECAN_REWRITER_BINARY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace decan::rewriter {

class UnwindTables;

/// One function: [Start, End) in virtual addresses, inside one executable
/// section.
struct FunctionRange {
  uint64_t Start = 0, End = 0;
  std::string Name; ///< symbol, or "sub_<hex>" for FDE-only functions
  bool FromSymbol = false;
};

/// A validated ELF64 little-endian x86-64 executable or shared object.
class BinaryImage {
public:
  /// Opens \p Path. Errors are one line.
  static llvm::Expected<std::unique_ptr<BinaryImage>>
  open(llvm::StringRef Path);
  /// Same on a buffer (fuzzing); \p Name is used in messages.
  static llvm::Expected<std::unique_ptr<BinaryImage>>
  create(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef Name);

  ~BinaryImage(); // UnwindTables is incomplete here

  llvm::StringRef path() const { return Name; }
  const llvm::object::ELF64LEObjectFile &object() const { return *Obj; }
  llvm::StringRef bytes() const { return Buffer->getBuffer(); }
  bool isSharedObject() const;
  bool isPIE() const;
  bool hasDecanMeta() const { return HasDecanMeta; }

  /// Function bounds, sorted by start address, non-overlapping.
  const std::vector<FunctionRange> &functions() const { return Functions; }

  /// Bytes mapped at [Addr, Addr+Size) from an executable section, or an
  /// empty ref when the range is not entirely inside one.
  llvm::ArrayRef<uint8_t> codeAt(uint64_t Addr, uint64_t Size) const;
  /// File bytes mapped at [Addr, Addr+Size) by one PT_LOAD (any section:
  /// jump tables live in .rodata), or an empty ref.
  llvm::ArrayRef<uint8_t> dataAt(uint64_t Addr, uint64_t Size) const;
  /// File bytes from \p Addr to the end of the PT_LOAD that maps it.
  llvm::ArrayRef<uint8_t> dataFrom(uint64_t Addr) const;
  /// File offset of virtual address \p Addr (through PT_LOAD), if mapped
  /// from the file.
  std::optional<uint64_t> fileOffset(uint64_t Addr) const;

  /// A DT_RPATH or DT_RUNPATH entry of the dynamic section: where its
  /// value (an offset into the string table at \p StrTab) lies in the
  /// file, and the search path it names.
  struct SearchPath {
    uint64_t ValueOffset = 0;
    uint64_t StrTab = 0; ///< DT_STRTAB's address
    std::string Path;
  };
  /// The input's DT_RPATH and DT_RUNPATH entries (none when it has no
  /// dynamic section or they cannot be read).
  std::vector<SearchPath> searchPaths() const;

  /// The unwind and exception tables (read on first use).
  const UnwindTables &unwind() const;

  /// file:line of \p Addr from DWARF line tables, if any.
  std::optional<std::pair<std::string, unsigned>> lineFor(uint64_t Addr) const;

  /// The source variables DWARF places in a register at \p Addr (a
  /// parameter or local whose location there is exactly that register),
  /// by DWARF register number; the innermost scope's name wins. Empty
  /// without full debug info (-g; line tables alone name no variable).
  std::map<unsigned, std::string> registerVariables(uint64_t Addr) const;

private:
  BinaryImage() = default;
  llvm::Error validate();
  void findFunctions();

  std::string Name;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::unique_ptr<llvm::object::ELF64LEObjectFile> Obj;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> DebugSections;
  std::unique_ptr<llvm::DWARFContext> Dwarf;
  bool HasDwarfLines = false;
  bool HasDecanMeta = false;
  struct CodeSection {
    uint64_t Addr, Size, Offset;
  };
  std::vector<CodeSection> Code;
  std::vector<FunctionRange> Functions;
  mutable std::once_flag UnwindOnce;
  mutable std::unique_ptr<UnwindTables> Unwind;
};

/// One entry of a DT_RPATH, DT_RUNPATH or LD_LIBRARY_PATH with the dynamic
/// loader's tokens replaced: $ORIGIN by \p OriginDir (the directory of the
/// object that names it), $LIB by \p Lib, $PLATFORM by \p Platform (also
/// spelt ${ORIGIN}...); nullopt when it names another token, or $ORIGIN
/// without an \p OriginDir (the loader skips such an entry).
std::optional<std::string> expandLoaderTokens(llvm::StringRef Entry,
                                              llvm::StringRef OriginDir,
                                              llvm::StringRef Lib,
                                              llvm::StringRef Platform);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_BINARY_H
