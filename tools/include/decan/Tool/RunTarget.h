//===- decan/Tool/RunTarget.h - The program a run measures ----------------===//
//
// Part of decan. Which file of `decan run`'s command line is the measured
// binary (the program, or the first ELF program among a launcher's
// arguments), and that binary made measurable: as built when it carries a
// loop table, else a rewritten copy (cached) the runtime is preloaded into.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_RUNTARGET_H
#define DECAN_TOOL_RUNTARGET_H

#include "decan/Rewriter/Instrument.h"
#include "decan/Tool/LoopTable.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// Finds \p Program like execvp does; error "program 'x' not found".
llvm::Expected<std::string> resolveProgram(llvm::StringRef Program);

/// Finds a file decan reads without running it (`decan list`): \p Name as
/// given when it exists (a readable file, executable or not: libraries are
/// installed 0644), else a program of that name found through PATH.
llvm::Expected<std::string> resolveInput(llvm::StringRef Name);

/// An MPI launcher (mpirun, srun...) or a script: the program it starts is
/// among its arguments, or started by the script itself.
bool isLauncher(llvm::StringRef Path);

/// The measured binary: the program itself, or the first ELF file among a
/// launcher's arguments.
struct Target {
  std::optional<std::vector<MetaLoop>> Loops;
  std::string Binary;
  bool Preload = false; ///< rewritten: the runtime must be preloaded
  std::string Input;    ///< the file rewritten into Binary ("": none)
};

/// Makes the measured binary of \p Cmd measurable, rewritten into \p TmpDir
/// with \p RW when it has no loop table (\p Cmd then names the copy).
/// \p PlainOk: a program without a loop table runs unmodified (`--lib`
/// measures only the libraries) instead of being rewritten.
llvm::Expected<Target> prepareTarget(std::vector<std::string> &Cmd,
                                     llvm::StringRef TmpDir, bool PlainOk,
                                     const rewriter::RewriteOptions &RW);

/// Says once per decan process that rewritten copies cannot be cached
/// (instrumentCached's \p Problem; nothing when empty).
void warnCacheProblem(const std::string &Problem);

} // namespace decan::tool

#endif // DECAN_TOOL_RUNTARGET_H
