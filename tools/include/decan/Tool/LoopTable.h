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
  /// The `--lib` library it is in (file name; "" the program's or unknown).
  std::string Object;

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

/// The demangled form of a symbol (itself when not mangled).
std::string demangleSymbol(llvm::StringRef Sym);

} // namespace decan::tool

#endif // DECAN_TOOL_LOOPTABLE_H
