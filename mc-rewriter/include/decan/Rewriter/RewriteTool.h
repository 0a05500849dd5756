//===- RewriteTool.h - `decan rewrite` ------------------------------------===//
//
// Part of decan. What `decan rewrite BINARY [-o DIR] [--list] [--loops=ID,...]
// [--variants=NAME,...]` does once its command line is parsed (that is
// tools/decan/RewriteCommand.cpp's job).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_REWRITETOOL_H
#define DECAN_REWRITER_REWRITETOOL_H

#include "decan/Rewriter/Rewriter.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace decan::rewriter {

/// Default output path for \p Input: \p OutDir/<name> when \p OutDir is
/// given, else <Input>.decan next to it.
std::string rewrittenPath(llvm::StringRef Input, llvm::StringRef OutDir);

/// Rewrites \p Input into \p Output, printing one line per loop to \p OS
/// when \p Verbose, and the emitted copies of every rewritten loop when
/// \p Disasm. Refuses an input that already carries decan metadata.
llvm::Error rewriteFile(llvm::StringRef Input, llvm::StringRef Output,
                        llvm::raw_ostream &OS, bool Verbose,
                        const RewriteOptions &RW = RewriteOptions(),
                        bool Disasm = false);

/// Prints every innermost loop of \p Input and why some cannot be rewritten;
/// writes nothing.
llvm::Error listLoops(llvm::StringRef Input, llvm::raw_ostream &OS);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_REWRITETOOL_H
