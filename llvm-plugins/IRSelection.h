//===- IRSelection.h - decan: which innermost loops to instrument ---------===//
//
// Part of decan. The options of the IR side (one cl::OptionCategory, passed
// as `-mllvm -decan-...`) and the rules that decide whether a loop can be
// outlined. A loop that is not instrumented keeps a reason, which goes into
// its meta record and a missed remark (-Rpass-missed=decan).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRSELECTION_H
#define DECAN_LLVM_PLUGINS_IRSELECTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Loop;
} // namespace llvm

namespace decan {

/// -decan-functions / -decan-lines / -decan-loops / -decan-pgo-hot, parsed
/// once per module.
class LoopFilter {
public:
  /// Parses the command-line options; bad entries are an Error.
  static llvm::Expected<LoopFilter> fromOptions();

  /// Whether the user asked for loops of \p F at \p File:\p Line.
  bool selects(const llvm::Function &F, llvm::StringRef File,
               unsigned Line) const;

  /// Whether -decan-functions leaves \p F's loops in (any line).
  bool selectsFunction(const llvm::Function &F) const;

  /// Whether -decan-lines was given (it needs line information: -g or
  /// -gline-tables-only).
  bool hasLineRanges() const { return !Lines.empty(); }

  /// Which innermost loops of \p F -decan-loops (the hot loops of an
  /// earlier report, `decan flags --hot`) leaves in; \p Starts: each loop's
  /// start, in index order (F:L0, F:L1, ...). An instance entry
  /// (F:L2@FILE:LINE:COL) selects that loop where it starts at that
  /// position; where F's loop L2 starts elsewhere (not the build that was
  /// measured), F's loops at that position, with a warning.
  llvm::SmallVector<bool, 8>
  selectHotLoops(const llvm::Function &F,
                 llvm::ArrayRef<llvm::DebugLoc> Starts) const;

  /// Whether -decan-pgo-hot was given: only loops whose header block is hot
  /// by the PGO profile summary (counted in source iterations) are
  /// instrumented.
  bool wantsProfileHotness() const { return PgoHot; }

  /// The copies -decan-build-variants asks of every instrumented loop, bit per
  /// decan_variant (REF always): by default what `decan run` rotates.
  unsigned variantMask() const { return Variants; }

private:
  struct LineRange {
    std::string File;
    unsigned First, Last;
  };
  std::vector<std::string> Functions;
  std::vector<LineRange> Lines;
  /// -decan-loops: a loop instance ("f:L2@a.c:10:3"), a loop id ("f:L2"),
  /// or FILE:LINE[:COL] (Col 0: any). Function and Index are the id's.
  struct HotLoop {
    std::string Id, Function, File;
    unsigned Index = 0, Line = 0, Col = 0;
    bool at(llvm::StringRef File, unsigned Line, unsigned Col) const;
  };
  static std::optional<HotLoop> parseHotLoop(llvm::StringRef Entry);
  std::vector<HotLoop> HotLoops;
  bool PgoHot = false;
  unsigned Variants = 0;
};

/// -decan-build-variants as a mask (bit per decan_variant, REF's set); an
/// unknown name is an Error.
llvm::Expected<unsigned> variantMaskFromOption();

/// Whether the IR side is disabled (-decan-disable).
bool isDecanDisabled();

/// Why the innermost loop \p L cannot be outlined, or nullopt if it can.
/// Checks the body only (invokes, allocas, EH, tokens, inline asm), not the
/// loop's shape. Calls do not prevent it: REF times them, NO_CALL deletes
/// them.
std::optional<std::string> bodySkipReason(const llvm::Loop &L);

/// Whether \p L calls a function, or an intrinsic x86-64 codegen turns
/// into a library call (memcpy, exp, fmod for frem): such a loop gets a
/// NO_CALL copy.
bool loopCalls(const llvm::Loop &L);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRSELECTION_H
