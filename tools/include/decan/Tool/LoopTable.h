//===- decan/Tool/LoopTable.h - Read the .decan.meta loop table -----------===//
//
// Part of decan. `decan list` and `decan run` read the loops an ELF file
// carries (section ".decan.meta", one decan_meta_record per innermost loop,
// abi.h) without running the program.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LOOPTABLE_H
#define DECAN_TOOL_LOOPTABLE_H

#include "decan/abi.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// One decoded decan_meta_record.
struct MetaLoop {
  std::string Id, Function, File, SkipReason;
  std::string Source; ///< source identity (abi.h), "" unknown
  unsigned Line = 0, Column = 0;
  unsigned IterationStep = 0; ///< 0 unknown
  uint32_t VariantMask = 0;
  decan_machine_info MInfo{};

  /// Built and verified: emitted (mask bit) and the machine pass said OK.
  bool available(unsigned V) const;
  /// Why variant \p V is not available ("" when it is).
  std::string whyNot(unsigned V) const;
};

/// "not-built", "ok", "unsupported", "verifier", "no-loop", "empty".
llvm::StringRef variantStatusName(uint32_t Status);

/// Decodes the records of a ".decan.meta" section's bytes. Zero padding the
/// linker put between records is skipped; a truncated or malformed record is
/// an error.
llvm::Expected<std::vector<MetaLoop>> parseLoopTable(llvm::StringRef Bytes);

/// The loops of the ELF file \p Path: nullopt when it is an object file
/// without a ".decan.meta" section; an error when it is not an object file.
llvm::Expected<std::optional<std::vector<MetaLoop>>>
readLoopTable(llvm::StringRef Path);

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

/// The demangled form of a symbol (itself when not mangled).
std::string demangleSymbol(llvm::StringRef Sym);

} // namespace decan::tool

#endif // DECAN_TOOL_LOOPTABLE_H
