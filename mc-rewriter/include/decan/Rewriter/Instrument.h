//===- Instrument.h - Make any program measurable by decan ----------------===//
//
// Part of decan. The entry points `decan rewrite`, `decan list` and
// `decan run` use for a prebuilt program: a plugin-built ELF is used as is;
// any other x86-64 ELF is rewritten (never in place) into a copy that
// carries decan's variants.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_INSTRUMENT_H
#define DECAN_REWRITER_INSTRUMENT_H

#include "decan/Rewriter/LatePack.h"
#include "decan/Rewriter/LoopFinder.h"
#include "decan/Rewriter/Rewriter.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace decan::rewriter {

/// Default output path for \p Input: \p OutDir/<name> when \p OutDir is
/// given, else <Input>.decan next to it.
std::string rewrittenPath(llvm::StringRef Input, llvm::StringRef OutDir);

/// The innermost loops of a file and what the rewriter did with each.
struct RewrittenFile {
  std::vector<LoopCandidate> Loops;
  std::vector<RegionCandidate> Regions; ///< RewriteOptions::Regions only
  RewriteResult Result; ///< Result.Loops[i] is Loops[i]'s outcome
};

/// Rewrites \p Input into \p Output with the host CPU's instruction
/// knowledge. Refuses an input that already carries decan metadata.
llvm::Expected<RewrittenFile> rewriteFile(llvm::StringRef Input,
                                          llvm::StringRef Output,
                                          const RewriteOptions &RW = {});

/// Every innermost loop of \p Input and why some cannot be rewritten;
/// writes nothing.
llvm::Expected<std::vector<LoopCandidate>>
findLoopsInFile(llvm::StringRef Input, FinderStats *Stats = nullptr);

/// True when \p Path is an ELF file that already carries a ".decan.meta"
/// section (built with the plugin, or already rewritten).
llvm::Expected<bool> hasDecanMetadata(llvm::StringRef Path);

/// Returns the path of an instrumented version of \p Path: \p Path itself when
/// it already carries decan metadata, else a rewritten copy written under
/// \p OutDir. Errors are one line, ready to print after "decan: error: ".
llvm::Expected<std::string> ensureInstrumented(llvm::StringRef Path,
                                               llvm::StringRef OutDir);

/// Where rewritten copies are kept between runs: $DECAN_CACHE_DIR, else
/// $XDG_CACHE_HOME/decan, else ~/.cache/decan; "" when DECAN_CACHE=0.
std::string rewriteCacheDir();

/// Like ensureInstrumented(), with \p RW, through the cache of rewritten
/// copies: a copy is keyed by the input's contents (its build id is part of
/// them), the options and this decan build, so a second run on the same
/// library starts at once. Returns a path in the cache (never to be
/// modified or moved), or under \p OutDir when the cache is off or cannot
/// be written. \p Hit, when given, says whether the copy was there already.
/// An entry appears only complete: the copy is written into a directory of
/// its own, renamed into place; a failed rewrite leaves nothing behind.
/// \p CacheProblem, when given, is set to one line when the cache
/// directory cannot be written ("cannot write the cache directory D: why").
llvm::Expected<std::string>
instrumentCached(llvm::StringRef Path, llvm::StringRef OutDir,
                 const RewriteOptions &RW, bool *Hit = nullptr,
                 std::string *CacheProblem = nullptr);

/// The file beside a copy instrumentCached wrote that says where each
/// loop's measured copies are in it: `<copy>.decan-copies`, lines
/// "<loop id> TAB <variant> TAB <begin> TAB <end>" (hexadecimal addresses).
/// `decan report --html` disassembles them (a rewritten binary has no
/// per-copy symbols, a plugin-built one has `f.decan.L0.LS`).
std::string copyMapPath(llvm::StringRef Copy);

/// One copy of copyMapPath's file.
struct MappedCopy {
  std::string Id;
  unsigned Variant = 0;
  uint64_t Begin = 0, End = 0;
};

/// The copies copyMapPath(\p Copy) lists; empty when there is none.
std::vector<MappedCopy> readCopyMap(llvm::StringRef Copy);

/// The late pack of loops \p Ids for \p BasePath, the base copy of
/// \p Input (LatePack.h), written to \p OutPath. The input and its loops
/// are read once per process and kept for the next pack of the same input
/// (decan run builds one while the program runs).
llvm::Expected<LatePackResult>
buildLatePackFile(llvm::StringRef Input, llvm::StringRef BasePath,
                  llvm::ArrayRef<std::string> Ids, llvm::StringRef OutPath,
                  const LatePackOptions &Opts = {});

} // namespace decan::rewriter

#endif // DECAN_REWRITER_INSTRUMENT_H
