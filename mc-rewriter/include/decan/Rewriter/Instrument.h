//===- Instrument.h - Make any program measurable by decan ----------------===//
//
// Part of decan. The entry point `decan list` and `decan run` use for a
// prebuilt program: a plugin-built ELF is used as is; any other x86-64 ELF is
// rewritten (never in place) into a copy that carries decan's variants.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_INSTRUMENT_H
#define DECAN_REWRITER_INSTRUMENT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace decan::rewriter {

/// True when \p Path is an ELF file that already carries a ".decan.meta"
/// section (built with the plugin, or already rewritten).
llvm::Expected<bool> hasDecanMetadata(llvm::StringRef Path);

/// Returns the path of an instrumented version of \p Path: \p Path itself when
/// it already carries decan metadata, else a rewritten copy written under
/// \p OutDir. Errors are one line, ready to print after "decan: error: ".
llvm::Expected<std::string> ensureInstrumented(llvm::StringRef Path,
                                               llvm::StringRef OutDir);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_INSTRUMENT_H
