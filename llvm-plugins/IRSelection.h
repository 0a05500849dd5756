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

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Loop;
} // namespace llvm

namespace decan {

/// -decan-functions / -decan-lines, parsed once per module.
class LoopFilter {
public:
  /// Parses the command-line options; bad entries are an Error.
  static llvm::Expected<LoopFilter> fromOptions();

  /// Whether the user asked for loops of \p F at \p File:\p Line.
  bool selects(const llvm::Function &F, llvm::StringRef File,
               unsigned Line) const;

  /// Whether -decan-lines was given (it needs line information: -g or
  /// -gline-tables-only).
  bool hasLineRanges() const { return !Lines.empty(); }

private:
  struct LineRange {
    std::string File;
    unsigned First, Last;
  };
  std::vector<std::string> Functions;
  std::vector<LineRange> Lines;
};

/// Whether the IR side is disabled (-decan-disable).
bool isDecanDisabled();

/// Why the innermost loop \p L cannot be outlined, or nullopt if it can.
/// Checks the body only (calls, allocas, EH, tokens), not the loop's shape.
std::optional<std::string> bodySkipReason(const llvm::Loop &L);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRSELECTION_H
