//===- decan/Tool/ElfFacts.h - What decan run needs to know of an ELF file ===//
//
// Part of decan. Read from the file, without running it: whether it is an
// ELF file decan can read, what the dynamic loader sees in it (type,
// interpreter, DT_SONAME, DT_NEEDED, search paths) and whether decan's
// runtime is linked in.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_ELFFACTS_H
#define DECAN_TOOL_ELFFACTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// What the dynamic loader (and decan run) needs to know of an ELF file.
struct DynamicFacts {
  unsigned Type = 0;               ///< e_type (ET_EXEC, ET_DYN...)
  bool Program = false;            ///< an executable: ET_EXEC, or a PIE
  bool Interpreter = false;        ///< PT_INTERP: started by the dynamic loader
  std::string SoName;              ///< DT_SONAME, "" when none
  std::vector<std::string> Needed; ///< DT_NEEDED, in order
  std::string RunPath;             ///< DT_RUNPATH, "" when none
  std::string RPath;               ///< DT_RPATH, "" when none
  /// Whether the file defines __decan_register_loops (the runtime is linked
  /// in); nullopt when it has no symbol table to tell.
  std::optional<bool> DefinesRuntime;
  /// A program the dynamic loader does not start (static, static PIE):
  /// LD_PRELOAD cannot bring decan's runtime into it.
  bool isStaticProgram() const { return Program && !Interpreter; }
};

/// Reads \p Path's program headers, dynamic section and symbol table. An
/// error (one line) when it is not an x86-64 ELF file.
llvm::Expected<DynamicFacts> readDynamicFacts(llvm::StringRef Path);

/// The file name the dynamic loader looks for when a program needs the
/// shared library \p Path: its DT_SONAME, else its file name. An error
/// (one line) when \p Path is not an x86-64 ELF shared library: a program
/// (PIE included), an object file, a non-ELF file.
llvm::Expected<std::string> sharedLibraryName(llvm::StringRef Path);

/// True when \p Path starts with the ELF magic.
bool isELF(llvm::StringRef Path);

/// Checks that decan can read \p Path, a file it is about to classify
/// (loop table, ELF or script): an execute-only program (mode 0111) runs
/// but cannot be read, and must not pass for one without a loop table.
/// The error is one line: "cannot read 'P': permission denied".
llvm::Error checkReadable(llvm::StringRef Path);

} // namespace decan::tool

#endif // DECAN_TOOL_ELFFACTS_H
