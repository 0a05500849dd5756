//===- decan/Tool/Listings.h - A loop's source and assembly for reports ---===//
//
// Part of decan. What the HTML page shows of a loop besides its numbers:
// the source lines around it, and the instructions of each copy (REF and
// every variant) of a plugin build, read back from the binary the report
// names, with the instructions a variant deleted marked in REF's listing.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LISTINGS_H
#define DECAN_TOOL_LISTINGS_H

#include "decan/Tool/Report.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace decan::tool {

/// One instruction of a copy: its address and AT&T text.
struct AsmLine {
  uint64_t Address = 0;
  std::string Text;
};

/// The copies of a binary's loops, by symbol: a plugin build emits each
/// copy of loop `f:L0` as a function `f.decan.L0.<VARIANT>` (REF's too,
/// decan/symbols.h); a copy mc-rewriter wrote for `decan run` has none, its
/// copies are listed beside it (rewriter::copyMapPath) and taken as such
/// symbols.
class LoopCopies {
public:
  /// Reads \p Binary's symbol table (and copy map); fails when it is not
  /// an object file.
  static llvm::Expected<std::unique_ptr<LoopCopies>>
  open(llvm::StringRef Binary);
  ~LoopCopies();
  /// \p L's copy of \p V, decoded (NOPs left out); empty when the binary
  /// has no such symbol (a rewritten binary, a variant not built).
  std::vector<AsmLine> copyOf(const LoopReport &L, Variant V) const;

private:
  LoopCopies();
  struct Impl;
  std::unique_ptr<Impl> P;
};

/// The instructions of \p Ref that \p Variant has no counterpart for: a
/// multiset difference on the instructions' text (branch targets, which
/// differ between copies, left out), one flag per line of \p Ref.
std::vector<bool> deletedInstructions(llvm::ArrayRef<AsmLine> Ref,
                                      llvm::ArrayRef<AsmLine> Variant);

/// Whether \p L's source file can be read here (the HTML page embeds it).
bool sourceReadable(const LoopReport &L);
/// \p L's `file:line` as an HTML link: to the listing \p Anchor embedded
/// in the page when its source is readable, else to the file (file://).
std::string sourceLinkHTML(const LoopReport &L, llvm::StringRef Anchor);
/// The source lines around \p L (its line marked), each line with an id
/// "<Anchor>-<line>", the block with id \p Anchor.
void writeSourceListing(llvm::raw_ostream &OS, const LoopReport &L,
                        llvm::StringRef Anchor);
/// REF's instructions next to each variant's, the instructions a variant
/// deleted struck through in REF's column; nothing when \p Copies has no
/// copy of \p L.
void writeAssemblyListing(llvm::raw_ostream &OS, const LoopReport &L,
                          const LoopCopies &Copies);

/// The program a report measured, as a path that exists now: the copy
/// `decan run` rewrote of it (config "rewritten_binary"), else its first
/// process's argv[0], made absolute, or found in PATH; "" when gone.
std::string measuredBinary(const Report &R);

} // namespace decan::tool

#endif // DECAN_TOOL_LISTINGS_H
