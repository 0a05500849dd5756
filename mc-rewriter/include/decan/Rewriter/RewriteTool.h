//===- RewriteTool.h - `decan rewrite` ------------------------------------===//
//
// Part of decan. The library side of `decan rewrite BINARY [-o DIR]
// [--list] [--loops=ID,...] [--variants=NAME,...]`; tools/decan's
// RewriteCommand.cpp only forwards to it.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_REWRITETOOL_H
#define DECAN_REWRITER_REWRITETOOL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace decan::rewriter {

/// Runs `decan rewrite`; \p argv[0] is the command name ("rewrite").
/// Returns the process exit code.
int runRewriteTool(int argc, char **argv);

/// Default output path for \p Input: \p OutDir/<name> when \p OutDir is
/// given, else <Input>.decan next to it.
std::string rewrittenPath(llvm::StringRef Input, llvm::StringRef OutDir);

/// Rewrites \p Input into \p Output, printing one line per loop to \p OS
/// when \p Verbose. Errors are one line.
llvm::Error rewriteFile(llvm::StringRef Input, llvm::StringRef Output,
                        llvm::raw_ostream &OS, bool Verbose);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_REWRITETOOL_H
