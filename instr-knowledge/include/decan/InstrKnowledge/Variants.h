//===- Variants.h - The decan variant rules ------------------------------===//
//
// Part of decan. Builds the body of a variant loop from the REF body, the
// loop's subsets and a scratch layout (DL1), then checks it with the
// dependence verifier. Rules (docs/variants.md has each with asm):
//
//   REF    unchanged
//   LS     arithmetic deleted; load-op -> pure load (same address, width);
//          store -> load of the same address and width
//   FP     memory accesses deleted; load-op -> register form with the other
//          source:   vaddpd (%rdi), %ymm1, %ymm2  ->  vaddpd %ymm1, %ymm1,
//          %ymm2
//   NO_DIV div/sqrt deleted (bridged); stores -> loads (as LS)
//   DL1    memory operands -> RIP-relative scratch (folded into the area
//          whatever the footprint); a lookup keeps its index chain:
//          vmovupd (%rdi,%rcx,8), %ymm0 -> vmovupd f.decan.L0.scratch+64(%rip),
//          %ymm0
//          xorl (%rdx,%r8,4), %eax -> leaq f.decan.L0.scratch(%rip), %rdx ;
//          xorl (%rdx,%r8,4), %eax
//   CTRL   everything but the CTRL slice deleted
//   NO_CALL calls deleted (bridged: sqrt(x) in XMM0 -> XMM0 keeps its
//          chain); stores -> loads (as NO_DIV). Only for loops that call.
//   S2L    stores -> loads of the same address and width, nothing else:
//          vmovupd %ymm0, (%rdi)  ->  vmovupd (%rdi), %ymm15
//   NO_STORE stores deleted; a read-modify-write keeps its read:
//          addl $1, (%rdi)  ->  movl (%rdi), %r11d
//   NO_RED the RED subset deleted: accumulator updates only they read
//          (sum += x; both chains of an unrolled sum); a load-op keeps its
//          load into a free register, the accumulator its entry value;
//          stores -> loads (as S2L)
//   DL1_Gk group k's accesses (LoopSubsets::Group) into the scratch area
//          as DL1 places them, the others in place; stores of other
//          groups -> loads
//   NO_Gk  group k's accesses removed as FP removes memory (a load-op in
//          register form, a pure load replaced by a dependency-free
//          idiom, a store deleted); other stores -> loads. Unavailable
//          when the group's values are addresses of other accesses
//   PREFETCH a prefetcht0 of the same address after each memory access
//          outside the CTRL slice; stores -> loads (as S2L), so its
//          reference is S2L
//
// Calls (Instr::Call): a call that may write memory (unknown callees,
// memcpy/memset/memmove) is deleted in every variant but REF, so variants
// never write program memory; a pure one (libm, readnone: arithmetic) stays
// in FP, NO_DIV and DL1, a read-only one (memory work) in LS and NO_DIV.
//
// CTRL-slice instructions are never touched. A deleted instruction whose
// result is still read is bridged: its readers wait for its input,
//          divsd %xmm2, %xmm0             ->  (nothing: XMM0 keeps its chain)
//          vdivsd %xmm2, %xmm1, %xmm0     ->  vmovaps %xmm1, %xmm0
//          vmovhpd (%r15), %xmm6, %xmm2   ->  vmovaps %xmm6, %xmm2
// and only one without such an input (a load) becomes a dependency-free
// idiom (never `vxorps %xmm2, %xmm6, %xmm2`, thesis Table 6.1). A store the
// next iteration reloads stays, in a scratch cell, in LS and NO_DIV. Each
// deleted or replaced instruction is padded with multi-byte NOPs to its REF
// length (layout "aware", default), or to one 1-byte NOP (layout "nop1"), or
// not at all (layout "unaware").
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_VARIANTS_H
#define DECAN_INSTRKNOWLEDGE_VARIANTS_H

#include "decan/InstrKnowledge/Instr.h"
#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/VariantTable.h"
#include "decan/abi.h"

#include <string>

namespace decan {

class X86Knowledge;

/// "REF", "LS", ... (decan/abi_names.h).
const char *variantName(Variant V);
/// Whether variant \p V keeps a call of kind \p C outside the CTRL slice
/// (docs/variants.md, "Calls"; variants.def's CALLS); REF keeps every
/// call, NO_CALL none.
bool keepsCall(Variant V, CallKind C);

/// Equal to enum decan_variant_status of decan/abi.h.
enum class VariantStatus : unsigned {
  NotBuilt = 0,
  OK = 1,
  Unsupported = 2,
  Verifier = 3,
  NoLoop = 4,
  Empty = 5,
};
static_assert(unsigned(VariantStatus::NotBuilt) == DECAN_VARIANT_NOT_BUILT &&
                  unsigned(VariantStatus::OK) == DECAN_VARIANT_OK &&
                  unsigned(VariantStatus::Unsupported) ==
                      DECAN_VARIANT_UNSUPPORTED &&
                  unsigned(VariantStatus::Verifier) == DECAN_VARIANT_VERIFIER &&
                  unsigned(VariantStatus::NoLoop) == DECAN_VARIANT_NO_LOOP &&
                  unsigned(VariantStatus::Empty) == DECAN_VARIANT_EMPTY,
              "VariantStatus mirrors enum decan_variant_status");

enum class LayoutMode {
  Aware,   ///< default: each changed instruction keeps its REF byte length
  Unaware, ///< deleted instructions vanish
  Nop1,    ///< each deleted instruction leaves one 1-byte NOP
};

struct VariantOptions {
  LayoutMode Layout = LayoutMode::Aware;
  unsigned ScratchSize = 8192; ///< bytes of the DL1 scratch area
  /// The loop's scratch area is addressable from every variant: LS and
  /// NO_DIV then keep a store the next iteration reloads (a[i] from a[i-1])
  /// as a store into a scratch cell the load reads too, so the chain
  /// through memory stays.
  bool ScratchInAllVariants = true;
  /// The copy carries an iteration cap where its exit reads memory
  /// (LoopSubsets::CtrlReadsMemory; the rewriter's copies always, the
  /// plugin's unless built with -decan-iteration-caps=false): a loop whose
  /// exit may read what its stores or calls write, without proof either
  /// way, then gets variants; the cap ends a copy that runs on, and only
  /// samples with REF's trip count are kept. Without it they are refused.
  bool ExitCapped = false;
};

/// Where DL1 puts each memory operand.
struct ScratchLayout {
  enum Form : uint8_t {
    InPlace,  ///< left alone: RIP-relative constant, CTRL slice, or an
              ///< address that depends on loaded data without a known bound
    Redirect, ///< RIP-relative scratch operand at Offset
    Indexed,  ///< a data-dependent index with a known bound (movzbl, and
              ///< $imm): a scratch base register (scratch + Offset) + the
              ///< original index, scale and displacement; the address chain
              ///< stays
    Masked,   ///< a data-dependent index without a bound: as Indexed, the
              ///< index first masked into the window (copy + and $Mask: one
              ///< more cycle on its chain)
  };
  std::vector<Form> How;
  std::vector<int64_t> Offset;
  std::vector<int64_t> Mask; ///< Masked: the index mask (2^k - 1)
  unsigned BytesUsed = 0;
  bool Wrapped = false; ///< more lines than fit: some lines are shared
};

/// Places the memory operands of \p Loop into a scratch area of \p Size
/// bytes (an L1-sized window), whatever the loop's footprint. Accesses of
/// one array (same base, index, scale, segment, symbol) that lie within a
/// line of each other form a cluster that keeps its relative offsets; each
/// cluster gets its own lines, at its original offset within a line (or at
/// the phase its aligned accesses need), so a stencil whose rows are 32 KiB
/// apart folds into a few lines with the alignment REF had. Stores of
/// arrays whose address changes across iterations go to lines no load
/// touches, so no store-to-load forwarding appears that REF lacks. Fails
/// only when one cluster is larger than the area.
llvm::Expected<ScratchLayout> layoutScratch(const X86Knowledge &K,
                                            const LoopBody &Loop,
                                            const LoopSubsets &Subsets,
                                            unsigned Size);

/// A built variant body, with the ids of the REF instructions.
struct VariantResult {
  Variant V = Variant::REF;
  VariantStatus Status = VariantStatus::NotBuilt;
  std::string Reason; ///< why not OK (remark text)
  /// Why not OK, as a code reports name in words (decan_machine_info::why).
  decan_variant_why Why = DECAN_WHY_NONE;
  LoopBody Body; ///< same blocks as REF, instructions rewritten
  unsigned RefBytes = 0, Bytes = 0; ///< encoded loop sizes
  /// The variant drops a dependence through memory that REF has (a store
  /// iteration i+k loads became a load or vanished): its time lacks that
  /// chain, so its saturation is a lower bound, not an estimate.
  bool Bound = false;
  std::string BoundReason;
  /// The variant deleted calls REF makes (keepsCall): its time lacks their
  /// work, so its stream analysis takes NO_CALL as the reference.
  bool CallsDeleted = false;
  /// DL1: memcpy/memset/memmove calls it redirected into the scratch area
  /// (destination and source), and the bytes their lengths are clamped to
  /// (ScratchSize / 4).
  unsigned MemoryCallsRedirected = 0, MemoryCallBytes = 0;
};

/// Builds variant \p V of \p Ref and verifies it (verifyNoNewDependences).
/// Never fails silently: Status says why the variant is not available.
VariantResult buildVariant(const X86Knowledge &K, const LoopBody &Ref,
                           const LoopSubsets &Subsets, Variant V,
                           const VariantOptions &Opts);

/// Encoded bytes of a loop body (sum of sizeOf).
llvm::Expected<unsigned> loopBytes(const X86Knowledge &K, const LoopBody &L);

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_VARIANTS_H
