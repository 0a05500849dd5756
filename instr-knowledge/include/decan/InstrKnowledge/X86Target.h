//===- X86Target.h - The x86-64 MC layer, built once ----------------------===//
//
// Part of decan. X86Target owns the LLVM MC objects of one x86-64 subtarget
// (instruction and register info, subtarget, encoder, disassembler, AT&T
// printer, instruction analysis) and the name maps that stand in for X86's
// opcode and register enums (not installed with LLVM). It is the one place
// that builds them, in the spirit of llvm-exegesis's LLVMState; the plugin
// (through X86Knowledge), the rewriter's disassembler and its emitter all
// use it. Instructions the rewriter's dispatcher emits are made by the
// create*() helpers below, as BOLT's MCPlusBuilder makes them, never by
// opcode name at the call site.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_X86TARGET_H
#define DECAN_INSTRKNOWLEDGE_X86TARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class MCAsmInfo;
class MCCodeEmitter;
class MCContext;
class MCDisassembler;
class MCInstPrinter;
class MCInstrAnalysis;
class MCInstrInfo;
class MCRegisterInfo;
class MCSubtargetInfo;
class MCTargetOptions;
} // namespace llvm

namespace decan {

/// x86-64 MC objects of one subtarget, opcode and register numbers by name,
/// encoding, decoding, printing and instruction builders.
class X86Target {
public:
  /// MC objects for x86-64 with \p CPU and \p Features (a function's
  /// "target-cpu"/"target-features"); registers the X86 target with LLVM's
  /// registry if needed.
  static llvm::Expected<std::unique_ptr<X86Target>>
  create(llvm::StringRef CPU = "x86-64", llvm::StringRef Features = "");
  /// The host's CPU name and its features as "+a,+b,...": what code that
  /// runs here (the rewriter's output) may use.
  static std::pair<std::string, std::string> hostCPU();
  virtual ~X86Target();

  const llvm::MCInstrInfo &instrInfo() const { return *MII; }
  const llvm::MCRegisterInfo &regInfo() const { return *MRI; }
  const llvm::MCSubtargetInfo &subtarget() const { return *STI; }
  const llvm::MCInstrAnalysis &analysis() const { return *MCIA; }

  /// Opcode / register number by name ("ADDSDrm", "XMM3"); 0 if unknown.
  unsigned opcode(llvm::StringRef Name) const;
  unsigned reg(llvm::StringRef Name) const;
  llvm::StringRef opcodeName(unsigned Opcode) const;
  llvm::StringRef regName(unsigned Reg) const;

  /// Index of the first of the five memory operands (base, scale, index,
  /// disp, segment) of an instruction that ACCESSES memory, -1 when none.
  /// LEA computes an address and touches no memory: -1 (the rules must not
  /// treat it as a load).
  int memOperandIndex(unsigned Opcode) const;
  /// Index of the first of the five ADDRESS operands of \p Inst, LEA's
  /// included (1), or -1: what placing code elsewhere must fix when the
  /// base is RIP. Also -1 when \p Inst has fewer operands than its form.
  int addressOperandIndex(const llvm::MCInst &Inst) const;

  /// Decodes one instruction at \p Bytes; returns its size or 0 on failure.
  uint64_t decode(llvm::ArrayRef<uint8_t> Bytes, uint64_t Address,
                  llvm::MCInst &Inst) const;
  /// Encodes \p Inst; fails on instructions the encoder cannot handle
  /// completely (no fixups).
  llvm::Error encode(const llvm::MCInst &Inst,
                     llvm::SmallVectorImpl<char> &Out) const;
  /// True when \p Inst names %ah-%dh and needs a REX prefix, which x86-64
  /// cannot encode (LLVM's encoder would abort): a variant that renamed a
  /// register into such a form must be refused before encoding.
  bool highByteNeedsRex(const llvm::MCInst &Inst) const;
  /// Encoded size of \p Inst, or 0 when it cannot be encoded.
  unsigned encodedSize(const llvm::MCInst &Inst) const;
  /// AT&T text of \p Inst (for listings and errors).
  std::string print(const llvm::MCInst &Inst, uint64_t Address) const;

  /// Frequently used numbers.
  unsigned RIP = 0, RSP = 0, EFLAGS = 0;
  unsigned JMP_4 = 0, JCC_4 = 0, JMP_1 = 0, JCC_1 = 0;

  /// X86 condition codes (X86::CondCode order).
  enum CondCode : unsigned {
    CC_E = 4,
    CC_NE = 5,
    CC_A = 7,
    CC_S = 8,
    CC_NS = 9,
    CC_G = 15
  };

  /// Opcodes of the forms the rewriter's dispatcher emits, resolved and
  /// checked once at create(); the create*() helpers below use them.
  struct DispatchOpcodes {
    unsigned LEA64r, PUSHF64, POPF64, POP64rmm, PUSH64rmm, MOV64mr, MOV64rm,
        MOV32mr, MOV32mi, MOV64mi32, AND64ri32, ADD64ri32, MOV32ri, XOR32rr,
        XSAVE64, XRSTOR64, CALL64m, JMP64m, LFENCE, RDTSC, RDTSCP, CMP32mi,
        DEC32m, CMP32ri, TEST32rr, MOVSX64rr32, MOVSX64rm32, ADD64rr, SUB64rm,
        STMXCSR, LDMXCSR, MOV64rr, TEST64rr, CQO, IDIV64r, NEG64r, MOV64ri32,
        OR64rr, DEC64r, INC32m, RET64;
  };
  const DispatchOpcodes &ops() const { return Ops; }

  /// \name Instruction builders (64-bit unless named otherwise). A memory
  /// operand is [Base + Index * Scale + Disp]; Base may be RIP.
  /// @{
  static llvm::MCInst createInst(unsigned Opcode);
  /// Appends the five memory operands to \p MI.
  static void addMem(llvm::MCInst &MI, unsigned Base, int64_t Disp,
                     unsigned Index = 0, unsigned Scale = 1);
  llvm::MCInst createLoad(unsigned Dst, unsigned Base, int64_t Disp) const;
  llvm::MCInst createStore(unsigned Base, int64_t Disp, unsigned Src,
                           bool Is32 = false) const;
  llvm::MCInst createStoreImm(unsigned Base, int64_t Disp, int64_t Imm,
                              bool Is32) const;
  llvm::MCInst createLea(unsigned Dst, unsigned Base, int64_t Disp) const;
  llvm::MCInst createMove(unsigned Dst, unsigned Src) const;
  llvm::MCInst createMoveImm32(unsigned Dst32, int64_t Imm) const;
  llvm::MCInst createAndImm(unsigned Reg, int64_t Imm) const;
  llvm::MCInst createAddImm(unsigned Reg, int64_t Imm) const;
  llvm::MCInst createOr(unsigned Dst, unsigned Src) const;
  llvm::MCInst createAdd(unsigned Dst, unsigned Src) const;
  llvm::MCInst createXor32(unsigned Dst32, unsigned Src32) const;
  /// Dst -= (Base + Disp).
  llvm::MCInst createSubMem(unsigned Dst, unsigned Base, int64_t Disp) const;
  /// movslq %Src32, %Dst.
  llvm::MCInst createSignExtend32(unsigned Dst, unsigned Src32) const;
  llvm::MCInst createNeg(unsigned Reg) const;
  /// dec %Reg (64-bit; sets ZF when it reaches 0).
  llvm::MCInst createDec(unsigned Reg) const;
  /// movq $Imm (sign-extended 32-bit), %Dst.
  llvm::MCInst createMoveImm(unsigned Dst, int64_t Imm) const;
  /// idivq %Reg (rdx:rax / Reg).
  llvm::MCInst createIDiv(unsigned Reg) const;
  llvm::MCInst createTestSelf(unsigned Reg) const;
  llvm::MCInst createPushMem(unsigned Base, int64_t Disp) const;
  llvm::MCInst createPopMem(unsigned Base, int64_t Disp) const;
  llvm::MCInst createCallMem(unsigned Base, int64_t Disp) const;
  llvm::MCInst createJmpMem(unsigned Base, int64_t Disp) const;
  llvm::MCInst createCmpMemImm32(unsigned Base, int64_t Disp,
                                 int64_t Imm) const;
  llvm::MCInst createCmpImm32(unsigned Reg32, int64_t Imm) const;
  /// decl (Base + Disp).
  llvm::MCInst createDecMem32(unsigned Base, int64_t Disp) const;
  llvm::MCInst createIncMem32(unsigned Base, int64_t Disp) const;
  llvm::MCInst createTestSelf32(unsigned Reg32) const;
  /// movslq (Base + Index*Scale + Disp), Dst.
  llvm::MCInst createSignExtendLoad32(unsigned Dst, unsigned Base, int64_t Disp,
                                      unsigned Index, unsigned Scale) const;
  /// An instruction whose operands are all memory (xsave, stmxcsr, ...).
  llvm::MCInst createMemOnly(unsigned Opcode, unsigned Base,
                             int64_t Disp) const;
  /// jmp / jcc rel32 (JMP_4, JCC_4) with a zero displacement.
  llvm::MCInst createBranch32(int CC = -1) const;
  /// @}

protected:
  X86Target();
  /// Builds the MC objects; called by create() and by subclasses' create().
  llvm::Error init(llvm::StringRef CPU, llvm::StringRef Features);

  std::unique_ptr<llvm::MCTargetOptions> MCOpts;
  std::unique_ptr<llvm::MCRegisterInfo> MRI;
  std::unique_ptr<llvm::MCAsmInfo> MAI;
  std::unique_ptr<llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCSubtargetInfo> STI;
  std::unique_ptr<llvm::MCContext> Ctx;
  std::unique_ptr<llvm::MCCodeEmitter> CE;
  std::unique_ptr<llvm::MCDisassembler> Dis;
  std::unique_ptr<llvm::MCInstPrinter> Printer;
  std::unique_ptr<llvm::MCInstrAnalysis> MCIA;
  llvm::StringMap<unsigned> OpcodeByName, RegByName;
  std::vector<int16_t> MemIdx; ///< per opcode, memOperandIndex
  DispatchOpcodes Ops{};
};

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_X86TARGET_H
