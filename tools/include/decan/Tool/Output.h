//===- decan/Tool/Output.h - Writing what a decan command outputs --------===//
//
// Part of decan. The one place where every output option of every command
// (`-o`, `--json`, `--html`, `--remarks`, `--raw-dir`, `tune --json`, ...)
// is checked and written, so that an output path never destroys what it
// names:
//
// * "-" is standard output; /dev/stdout, /dev/stderr, /dev/fd/N and
//   /proc/self/fd/N are that descriptor, written where it stands (what the
//   shell redirected it to keeps what was written before);
// * a regular file, or a path that does not exist yet, is replaced
//   atomically: a temporary file in the same directory, renamed over it
//   (never left behind, on error or signal);
// * anything else that exists (a character or block device, a FIFO, a
//   socket) is opened and written in place: never replaced, never removed;
// * a symbolic link stays one: its target is written by the same rules (a
//   dangling link creates its target).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_OUTPUT_H
#define DECAN_TOOL_OUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace decan::tool {

/// Checks, before any work is done, that \p Path can be written by
/// writeOutput(): "-" or a standard descriptor that is open, an existing
/// non-directory that is writable, or a new file whose directory exists and
/// is writable. The error is one line ("cannot write 'P': ...").
llvm::Error checkOutputPath(llvm::StringRef Path);

/// Writes \p Contents to \p Path by the rules above. The error is one line.
llvm::Error writeOutput(llvm::StringRef Path, llvm::StringRef Contents);

/// Before a default output is written (`decan run`'s decan.json): a
/// regular file at \p Path is renamed to "\p Path.old" (replacing an older
/// one), as perf keeps perf.data.old. Anything else at \p Path (a link, a
/// device, a FIFO) is left where it is, to be written through by
/// writeOutput().
llvm::Error keepPreviousOutput(llvm::StringRef Path);

/// Makes \p Path a directory to write files into (`--raw-dir`): an
/// existing directory, or a symbolic link to one, is used as it is; a
/// missing one is created (with its parents). Anything else is an error:
/// nothing is ever replaced or removed.
llvm::Error prepareOutputDirectory(llvm::StringRef Path);

} // namespace decan::tool

#endif // DECAN_TOOL_OUTPUT_H
