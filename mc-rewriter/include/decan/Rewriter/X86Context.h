//===- X86Context.h - The LLVM MC objects the rewriter works with ---------===//
//
// Part of decan. One bundle of x86-64 MC objects (disassembler, encoder,
// printer, instruction and register info) created once per rewrite, plus the
// handful of opcode and register numbers the rewriter needs, looked up by
// name because X86's enums are not installed with LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_X86CONTEXT_H
#define DECAN_REWRITER_X86CONTEXT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <string>

namespace decan::rewriter {

/// x86-64 MC layer objects plus name-resolved opcodes and registers.
class X86Context {
public:
  static llvm::Expected<std::unique_ptr<X86Context>> create();

  /// Decodes one instruction at \p Bytes; returns its size or 0 on failure.
  uint64_t decode(llvm::ArrayRef<uint8_t> Bytes, uint64_t Address,
                  llvm::MCInst &Inst) const;
  /// Encodes \p Inst; fails on instructions the encoder cannot handle.
  llvm::Error encode(const llvm::MCInst &Inst,
                     llvm::SmallVectorImpl<char> &Out) const;
  /// Encoded size of \p Inst, or 0 when it cannot be encoded.
  unsigned encodedSize(const llvm::MCInst &Inst) const;
  /// AT&T text of \p Inst (for listings and errors).
  std::string print(const llvm::MCInst &Inst, uint64_t Address) const;

  /// Opcode number for an X86 opcode name ("JCC_4"); 0 if unknown.
  unsigned opcode(llvm::StringRef Name) const;
  /// Register number for an X86 register name ("RSP"); 0 if unknown.
  unsigned reg(llvm::StringRef Name) const;
  llvm::StringRef opcodeName(unsigned Opcode) const {
    return MII->getName(Opcode);
  }

  /// Index of the first of the 5 memory sub-operands (base, scale, index,
  /// disp, segment) of \p Inst, or -1 when it has no memory operand.
  int memOperandIndex(const llvm::MCInst &Inst) const;

  const llvm::MCInstrInfo &instrInfo() const { return *MII; }
  const llvm::MCRegisterInfo &regInfo() const { return *MRI; }
  const llvm::MCSubtargetInfo &subtarget() const { return *STI; }
  const llvm::MCInstrAnalysis &analysis() const { return *MIA; }

  // Frequently used numbers.
  unsigned RIP = 0, RSP = 0, EFLAGS = 0;
  unsigned JMP_4 = 0, JCC_4 = 0, JMP_1 = 0, JCC_1 = 0;

private:
  llvm::Triple TheTriple;
  std::unique_ptr<llvm::MCRegisterInfo> MRI;
  std::unique_ptr<llvm::MCAsmInfo> MAI;
  std::unique_ptr<llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCSubtargetInfo> STI;
  std::unique_ptr<llvm::MCContext> Ctx;
  std::unique_ptr<llvm::MCDisassembler> Dis;
  std::unique_ptr<llvm::MCCodeEmitter> Emitter;
  std::unique_ptr<llvm::MCInstPrinter> Printer;
  std::unique_ptr<llvm::MCInstrAnalysis> MIA;
  llvm::MCTargetOptions Options;
  llvm::StringMap<unsigned> Opcodes, Registers;
};

} // namespace decan::rewriter

#endif // DECAN_REWRITER_X86CONTEXT_H
