//===- FunctionCode.h - One function's instructions, decoded --------------===//
//
// Part of decan. The first step of the loop finder: a function's bytes
// decoded with MCDisassembler into instructions at their addresses, each
// with the control flow MCInstrDesc/MCInstrAnalysis give it. The CFG
// (FunctionCFG.h) is built over this.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_FUNCTIONCODE_H
#define DECAN_REWRITER_FUNCTIONCODE_H

#include "decan/InstrKnowledge/X86Target.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace decan::rewriter {

/// What control flow an instruction has, from MCInstrDesc/MCInstrAnalysis.
struct Flow {
  bool Branch = false, Cond = false, Indirect = false, Call = false,
       Return = false, Barrier = false;
  uint64_t Target = 0; ///< direct branch/call target
  bool HasTarget = false;
};

/// A function's instructions in address order, and their control flow.
struct FunctionCode {
  const FunctionRange *Range = nullptr;
  std::vector<Instr> Instrs;
  std::vector<Flow> Flows; ///< one per instruction
  /// Non-empty when the function's code is not fully known (undecodable
  /// bytes): every loop of the function is then skipped for this reason.
  std::string Problem;

  /// Address one past the last decoded instruction.
  uint64_t end() const {
    return Instrs.empty() ? 0 : Instrs.back().Addr + Instrs.back().Size;
  }
};

/// Decodes function \p F of \p Bin; counts decoded and undecodable bytes in
/// \p Stats. Zero or int3 bytes after the last instruction are padding;
/// other bytes that do not decode set FunctionCode::Problem.
FunctionCode decodeFunction(const BinaryImage &Bin, const decan::X86Target &X86,
                            const FunctionRange &F, FinderStats &Stats);

/// Alignment padding compilers emit: NOPs of any length and int3.
bool isPaddingOpcode(llvm::StringRef OpcodeName);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_FUNCTIONCODE_H
