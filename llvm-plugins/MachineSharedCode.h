//===- MachineSharedCode.h - decan: code the copies of a loop share -------===//
//
// Part of decan. The copies of one loop (REF and each variant) are clones
// of one function and differ only in their loop (compile cost, issue 29).
// What they would repeat byte for byte outside the timed window, they
// share instead, as the machine pass finishes each copy:
//
// * a copy identical to an earlier copy of its loop after its rules
//   (CTRL equal to FP in a loop without FP work) becomes a jump to it, as
//   an unused copy becomes a jump to REF (MachineUnusedCopy.h): the runtime
//   then runs the same instructions at the same place in their line;
// * the code after the end probe (`rdtscp; lfence`: the TSC difference, the
//   trip count and the live-outs stored, the epilogue, `ret`) of a copy
//   whose tail is the same as one an earlier copy emitted becomes a jump to
//   that tail. The probe has read the counter before the jump: what is
//   timed is unchanged, in REF and in every variant.
//
// Instructions compare by their machine text, constants by value; a tail
// or copy with an operand that only means something inside its function
// (a block, a jump table) is not shared.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINESHAREDCODE_H
#define DECAN_LLVM_PLUGINS_MACHINESHAREDCODE_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Function;
class MachineFunction;
class MCSymbol;
} // namespace llvm

namespace decan {

/// What the copies of each loop emitted so far offer to later copies. One
/// per machine pass instance: the copies of a loop are compiled in module
/// order, REF first.
class SharedCopyCode {
public:
  /// The earlier copy of the loop \p Stem ("f.decan.L0") whose machine code
  /// equals \p MF's, if any; otherwise \p MF is remembered for the copies
  /// after it.
  const llvm::Function *sameAsEarlierCopy(const llvm::MachineFunction &MF,
                                          llvm::StringRef Stem);

  /// Replaces each tail after an end probe of \p MF that an earlier copy of
  /// \p Stem emitted with a jump to it, and labels the others for the
  /// copies after it. The number of tails replaced.
  unsigned shareExitTails(llvm::MachineFunction &MF, llvm::StringRef Stem);

private:
  std::map<std::string,
           std::vector<std::pair<std::string, const llvm::Function *>>>
      Copies;
  std::map<std::string, std::vector<std::pair<std::string, llvm::MCSymbol *>>>
      Tails;
};

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_MACHINESHAREDCODE_H
