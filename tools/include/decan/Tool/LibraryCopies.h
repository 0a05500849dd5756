//===- decan/Tool/LibraryCopies.h - The --lib libraries as loaded ---------===//
//
// Part of decan. `decan run --lib`: each library made measurable (as built
// when it carries a loop table, else a rewritten copy) and put where the
// dynamic loader and dlopen find it instead of the original.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LIBRARYCOPIES_H
#define DECAN_TOOL_LIBRARYCOPIES_H

#include "decan/Rewriter/Instrument.h"
#include "decan/Tool/LoopTable.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace decan::tool {

/// The `--lib` libraries as the program will load them.
struct LibraryCopies {
  std::string LoaderDir; ///< prepended to LD_LIBRARY_PATH ("" = none)
  /// DECAN_LIB_MAP: the copies a dlopen by path opens instead of the
  /// originals ("" = none).
  std::string MapFile;
  bool Preload = false; ///< a rewritten copy: the runtime must be preloaded
  std::vector<MetaLoop> Loops;
  /// Per library: the path given, the file it resolves to (symlinks
  /// followed), the name loaded, its loop ids, how many are measurable.
  struct Lib {
    std::string Path, Real, Name;
    std::string Copy; ///< the rewritten copy ("": plugin-built)
    std::vector<std::string> Ids;
    unsigned Measurable = 0;
    /// Rewritable loops left without variants: the first run did not see
    /// them run.
    unsigned NotSelected = 0;
  };
  std::vector<Lib> Each;
};

/// Makes each of \p Libs measurable: a plugin-built library as is, any
/// other rewritten into \p TmpDir (never in place). Both go into one loader
/// directory under the name the program asks for (its DT_SONAME, read
/// through any symlink, as Debian's alternatives are), so the dynamic loader
/// picks exactly the file the user named; a dlopen of the original by path
/// is redirected to the copy by the runtime (DECAN_LIB_MAP).
llvm::Expected<LibraryCopies>
prepareLibraries(llvm::ArrayRef<std::string> Libs, llvm::StringRef TmpDir,
                 const rewriter::RewriteOptions &RW);

} // namespace decan::tool

#endif // DECAN_TOOL_LIBRARYCOPIES_H
