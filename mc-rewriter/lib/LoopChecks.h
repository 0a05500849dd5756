//===- LoopChecks.h - Why a loop cannot be rewritten ----------------------===//
//
// Part of decan. The loop finder's refusals: instructions a relocated copy
// cannot run (returns, indirect jumps, stack pointer uses, call forms and
// calls with stack arguments, branches that have no rel32 form...), calls
// whose exceptions a relocated loop could not deliver; and whether EFLAGS
// are live at the header (the dispatch stub must then save them). Each
// check answers with the one-line reason `decan list` prints, "" when the
// loop passes.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LOOPCHECKS_H
#define DECAN_REWRITER_LOOPCHECKS_H

#include "FunctionCFG.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace decan::rewriter {

/// Why the instructions of a loop (its blocks \p Body, in address order)
/// cannot run from new code, or "".
std::string whyNotRelocatable(const FunctionCFG &CFG,
                              const decan::X86Target &X86,
                              llvm::ArrayRef<const CFGBlock *> Body);

/// Whether EFLAGS may be read before written from the loop's \p Header:
/// the dispatch stub's compare clobbers them unless it saves them. Leaving
/// the loop counts as a read, conservatively.
bool flagsLiveIn(const FunctionCFG &CFG, const decan::X86Target &X86,
                 llvm::ArrayRef<const CFGBlock *> Body, const CFGBlock &Header);

/// Skips the loops whose calls an exception could not leave the way it
/// leaves the original: a handler in the function, an exception table or
/// unwind rule that cannot be read or copied.
void skipLoopsExceptionsCannotLeave(const BinaryImage &Bin,
                                    const decan::X86Target &X86,
                                    std::vector<LoopCandidate> &Loops);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LOOPCHECKS_H
