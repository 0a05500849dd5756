//===- Knowledge.h - Facts about x86-64 instructions (MC level) -----------===//
//
// Part of decan. X86Knowledge is an X86Target (the MC objects of one x86-64
// subtarget) that answers, for the plugin and the rewriter alike: operand
// roles, memory width, encoded size as the AsmPrinter would emit, NOPs of a
// given length and dependency-free idioms.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_KNOWLEDGE_H
#define DECAN_INSTRKNOWLEDGE_KNOWLEDGE_H

#include "decan/InstrKnowledge/Instr.h"
#include "decan/InstrKnowledge/X86Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace llvm {
class MCRegisterClass;
class Target;
} // namespace llvm

namespace decan {

/// What a dependency-free value for a register must look like.
enum class IdiomValue {
  Zero,    ///< any value (xorps/vpxord/mov $0): breaks the dependence
  Normal,  ///< a normal FP number in every lane (about 2.0): div/sqrt input
  NonZero, ///< a GPR value that is a safe integer divisor (mov $3)
};

/// How deleting an instruction keeps the dependence of a register it wrote
/// (a "bridge"): consumers of the deleted result still wait for the input
/// that flows through it.
struct PassThrough {
  enum KindTy : uint8_t {
    None, ///< no input in the same register file (a load, a conversion)
    Keep, ///< the instruction reads the register it writes (tied, merge,
          ///< div's EDX:EAX): deleting it leaves the previous value
    Copy, ///< a copy of register Src stands for the result
  };
  KindTy Kind = None;
  unsigned Src = 0; ///< Copy: the source register, as the instruction names it
};

/// True for opcodes that write only part of EFLAGS and keep the rest (inc
/// and dec keep CF; rotates touch only CF and OF; shifts by CL leave the
/// flags alone when the count is 0). For liveness (the rewriter: may its
/// stub clobber the flags?) such a write merges, so it reads the flags; for
/// dependences it does not -- cores rename CF apart from the other flags,
/// so regsRead leaves it out, and deleting one keeps the previous flags
/// (passThrough: Keep).
bool mergesFlags(llvm::StringRef OpcodeName);

/// What a call of the C library function \p Name may do (both front ends
/// ask it for callees they know only by name: the plugin's libcalls, the
/// rewriter's PLT entries): memcpy/memmove/memset are Memory, libm
/// functions (sqrt, exp, ... and their f/l forms) Pure (errno only),
/// anything else MayWrite.
CallKind callKindOfSymbol(llvm::StringRef Name);

/// The pointer arguments of the C library's memory function \p Name: 2 for
/// memcpy and memmove (destination RDI, source RSI), 1 for memset
/// (destination RDI), their _chk forms included; 0 for anything else. The
/// length is RDX in all of them.
unsigned memoryCallPointers(llvm::StringRef Name);

/// Facts about x86-64 instructions for one subtarget (CPU + features), on
/// top of its MC layer.
class X86Knowledge : public X86Target {
public:
  /// The MC layer for x86-64 with \p CPU and \p Features (the function's
  /// "target-cpu"/"target-features") and the tables below.
  static llvm::Expected<std::unique_ptr<X86Knowledge>>
  create(llvm::StringRef CPU = "x86-64", llvm::StringRef Features = "");
  /// For the host CPU (X86Target::hostCPU): the rewritten program runs
  /// here, and the rules pick idioms (VEX/EVEX) the CPU has.
  static llvm::Expected<std::unique_ptr<X86Knowledge>> createForHost();
  ~X86Knowledge() override;

  /// Local-view subsets (SubsetBits) of an opcode.
  unsigned classify(unsigned Opcode) const;
  /// Bytes the memory operand of \p I accesses (I.MemWidth when set): the
  /// size LLVM's X86 tables give the operand (i32mem, f64mem...; one
  /// element of a broadcast), else inferred from the opcode's name (opaque
  /// operands; gathers and scatters count every element's bytes).
  unsigned memWidth(const Instr &I) const;
  /// Alignment the memory operand of \p I must have, or it faults: aligned
  /// moves (movaps, movdqa, movnt*) and legacy-SSE 16-byte operands other
  /// than the unaligned moves; 1 for everything else.
  unsigned memAlignment(const Instr &I) const;

  /// Registers \p I reads and writes, explicit and implicit (flags, MXCSR,
  /// RAX/RDX of div...). Memory base/index registers count as reads.
  void regsRead(const Instr &I, llvm::SmallVectorImpl<unsigned> &Regs) const;
  void regsWritten(const Instr &I, llvm::SmallVectorImpl<unsigned> &Regs) const;
  /// What a call whose front end gave no register lists reads (the SysV
  /// argument registers: RDI, RSI, RDX, RCX, R8, R9, XMM0-7) and writes
  /// (every caller-saved register and the flags).
  const std::vector<unsigned> &callArgumentRegs() const { return CallArgs; }
  const std::vector<unsigned> &callClobberedRegs() const {
    return CallClobbered;
  }
  /// True for zero idioms and other dependency-breaking forms (xorps x,x;
  /// pcmpeqd x,x; sub r,r), as MCInstrAnalysis reports them: they read
  /// nothing.
  bool isDependencyBreaking(const Instr &I) const;
  /// The input whose value a deletion of \p I passes on to the readers of
  /// \p Written (a register \p I writes): the register itself when \p I
  /// reads it too, else the first register source of the same file (the
  /// dividend of `vdivsd %xmm2, %xmm1, %xmm0`, the source of a unary op),
  /// never an address register or a mask.
  PassThrough passThrough(const Instr &I, unsigned Written) const;
  /// A register-to-register copy of \p Src into \p Dst, at \p Dst's width
  /// (movaps/vmovaps/vmovaps EVEX; mov for GPRs). Empty when none exists.
  std::vector<Instr> copy(unsigned Dst, unsigned Src) const;

  /// The last general-purpose register \p I writes (its GPR result, for
  /// the forms an induction update takes), 0 when none.
  unsigned gprWritten(const Instr &I) const;
  /// Step of \p I when it is `Def += constant` in one of the forms an
  /// induction update takes (add/sub immediate, inc/dec, lea c(r)); 0 when
  /// not.
  int64_t inductionStep(const Instr &I, unsigned Def) const;

  /// Registers a variant may use as scratch (caller-saved vector registers
  /// and GPRs, in the order both front ends try them) that \p L does not
  /// touch in any width. A front end that knows liveness also drops those
  /// live into or out of the loop (LoopBody::FreeRegs). \p CalleeSaved
  /// adds RBX, RBP and R12-R15 after them (the rewriter restores every
  /// register after a variant).
  std::vector<unsigned> unusedRegs(const LoopBody &L,
                                   bool CalleeSaved = false) const;

  /// True when \p A and \p B share a register unit (alias): a lookup in
  /// a table built once (the variant rules and checks ask it millions of
  /// times for a large library).
  bool regsOverlap(unsigned A, unsigned B) const {
    return A && B && A < NumRegs && B < NumRegs &&
           (Alias[A * AliasWords + B / 64] >> (B % 64) & 1);
  }

  /// Register units of \p Reg (MCRegisterInfo::regunits, listed once);
  /// none for 0.
  llvm::ArrayRef<unsigned> unitsOf(unsigned Reg) const {
    if (!Reg || Reg >= NumRegs)
      return {};
    return llvm::ArrayRef(UnitList).slice(UnitBegin[Reg],
                                          UnitBegin[Reg + 1] - UnitBegin[Reg]);
  }

  /// Register kinds.
  bool isGPR(unsigned Reg) const;
  bool isVector(unsigned Reg) const; ///< XMM/YMM/ZMM (and FR32/FR64 views)
  bool isMask(unsigned Reg) const;   ///< K0-K7
  /// Width of a register in bits (8..512), 0 when unknown.
  unsigned regBits(unsigned Reg) const;
  /// XMM register with the same number as vector register \p Reg.
  unsigned xmmOf(unsigned Reg) const;
  /// Register number 0..31 of a vector or GPR register.
  unsigned regNumber(unsigned Reg) const;

  /// The MCInst of \p I; symbolic and scratch operands become placeholder
  /// displacements that encode with 32 bits (what a relocation takes).
  llvm::MCInst toMCInst(const Instr &I) const;
  /// Encoded length of \p I as the X86 AsmPrinter would emit it (I.Size when
  /// set): the MC encoder, after the same shortening X86's MC lowering does
  /// (imm8 forms, accumulator forms, shift by 1, VEX3 -> VEX2).
  llvm::Expected<unsigned> sizeOf(const Instr &I) const;

  /// One NOP of exactly \p Bytes (1..15) bytes: 0x66 prefixes + the longest
  /// `nopw/nopl` form (the prefix instructions carry Padding too).
  std::vector<Instr> nop(unsigned Bytes) const;
  /// Multi-byte NOPs covering \p Bytes (as few as possible).
  std::vector<Instr> nops(unsigned Bytes) const;

  /// Dependency-free instructions that give \p Reg a value of kind \p V
  /// without reading any register or flag (zero idioms, all-ones idioms,
  /// mov-immediate). Empty when no idiom exists for that register.
  /// \p FlagsDead: the flags may be clobbered here, so a GPR zero can be
  /// the 2-3 byte `xor r32, r32` instead of `mov $0, r32`.
  std::vector<Instr> idiom(unsigned Reg, IdiomValue V,
                           bool FlagsDead = false) const;

  /// Opcode of a pure load of \p Width bytes into vector/GPR register
  /// \p Dst (masked: \p MaskKind 'k' merge, 'z' zeroing, 0 none; ElemBits
  /// the masking granularity; \p Legacy: SSE encoding, as the instruction
  /// it replaces, so no SSE/AVX transition appears); 0 when none fits.
  unsigned pureLoadOpcode(unsigned Dst, unsigned Width, char MaskKind = 0,
                          unsigned ElemBits = 32, bool Legacy = false) const;

  bool hasAVX() const { return HasAVX; }
  bool hasAVX512() const { return HasAVX512; }

private:
  X86Knowledge() = default;
  unsigned encodeSize(const llvm::MCInst &MI) const;

  void initRegisterTables();
  void initMemoryOperandBytes(const llvm::Target &T);
  unsigned memWidthFromName(const Instr &I) const;

  std::vector<unsigned> IdiomModels; ///< scheduling models MCIA is asked for
  /// Register facts looked up by name once, not per question.
  std::vector<unsigned> CallArgs, CallClobbered;
  std::vector<unsigned> ScratchCands, CalleeSavedCands; ///< unusedRegs'
  std::vector<unsigned> XMM;                            ///< XMM0..XMM31
  unsigned SSP = 0;
  /// regsOverlap: bit B of row A (AliasWords 64-bit words per row).
  std::vector<uint64_t> Alias;
  std::vector<unsigned> UnitList, UnitBegin; ///< unitsOf
  unsigned NumRegs = 0, AliasWords = 0;
  /// Per opcode, classifyOpcode's bits with Classified set, 0 until first
  /// asked: a compile asks about a few dozen of the ~30 000 opcodes, and
  /// classifying them all cost every instrumented compile ~15 ms. Atomic:
  /// a Knowledge may answer several threads (the value is the same).
  mutable std::unique_ptr<std::atomic<unsigned>[]> Classes;
  static constexpr unsigned Classified = 1u << 31;
  /// Per opcode, the size of its memory operand in LLVM's tables (0 where
  /// they give none), NotPrinted until first asked; printing one needs
  /// IntelPrinter, under IntelMutex.
  mutable std::unique_ptr<std::atomic<uint8_t>[]> MemOperandBytes;
  static constexpr uint8_t NotPrinted = 0xff;
  std::unique_ptr<llvm::MCInstPrinter> IntelPrinter;
  mutable std::mutex IntelMutex;
  unsigned VmovwStore = 0; ///< VMOVZPWILo2PWIZmr: LLVM gives it i32mem
  unsigned memOperandBytes(unsigned Opcode) const;
  uint8_t printedMemOperandBytes(unsigned Opcode) const;
  const llvm::MCRegisterClass *GR8 = nullptr, *GR16 = nullptr, *GR32 = nullptr,
                              *GR64 = nullptr, *VR128 = nullptr,
                              *VR256 = nullptr, *VR512 = nullptr, *VK = nullptr,
                              *FR32 = nullptr, *FR64 = nullptr;
  bool HasAVX = false, HasAVX512 = false;
};

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_KNOWLEDGE_H
