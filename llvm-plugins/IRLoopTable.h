//===- IRLoopTable.h - decan loop tables: meta records, descriptors -------===//
//
// Part of decan. Emits, per module, what the runtime and `decan list` read
// about each innermost loop (layouts in decan/abi.h):
//
//   @f.decan.L0.meta    = internal constant { [4 x i8] c"DCN1", i32 size,
//                         i32 abi, i32 mask, i32 line, i32 col, i32 strsz,
//                         i32 0, [26 x i32] minfo, [N x i8] strings }
//                         section ".decan.meta", align 8, in llvm.used
//   @f.decan.L0.scratch = internal global [8192 x i8] zeroinitializer, align 64
//   @decan.descs        = internal global [K x desc], section "decan_loops"
//   @f.decan.L0.desc    = internal alias to @decan.descs[i]
//   decan.module_ctor   -> __decan_register_loops(@decan.descs, K)
//
// The machine pass rewrites element MetaMInfo (decan_machine_info) of each
// meta initializer, and the bound_mask elements; everything else is final
// here. The element indices below are checked against abi.h in
// IRLoopTable.cpp.
//
// Loops of a function in a comdat (C++ inline functions, templates) get
// their globals in that comdat, and their own descriptor array and
// constructor, whose llvm.global_ctors entry is keyed on the global naming
// the comdat, so its .init_array entry lands in the same ELF group: the
// linker keeps one copy of the function and of everything describing it,
// whichever object's copy it picks (instrumented, skipped or plain), so each
// loop id is registered and listed once per program.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRLOOPTABLE_H
#define DECAN_LLVM_PLUGINS_IRLOOPTABLE_H

#include "decan/abi.h"
#include "decan/symbols.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugLoc.h"
#include <cstddef>
#include <string>

namespace llvm {
class Comdat;
class GlobalValue;
class GlobalVariable;
class Module;
class StructType;
} // namespace llvm

namespace decan {

/// Element indices of the IR structs that mirror decan_meta_record and
/// decan_loop_desc, and 32-bit word indices into decan_machine_info.
namespace abi_ir {
constexpr unsigned MetaBoundMask = 7, MetaMInfo = 8, MetaStrings = 9;
constexpr unsigned DescActive = 1, DescCountdown = 2, DescBoundMask = 11,
                   DescIterationCap = 17;
constexpr unsigned MInfoWords = sizeof(decan_machine_info) / 4;
constexpr unsigned MInfoStatus = offsetof(decan_machine_info, status) / 4;
constexpr unsigned MInfoLoopBytes =
    offsetof(decan_machine_info, loop_bytes) / 4;
constexpr unsigned MInfoCounts = offsetof(decan_machine_info, n_instrs) / 4;
constexpr unsigned MInfoNumCounts = 8; ///< n_instrs .. n_other
constexpr unsigned MInfoStorePolicy =
    offsetof(decan_machine_info, store_policy) / 4;
constexpr unsigned MInfoNCall = offsetof(decan_machine_info, n_call) / 4;
constexpr unsigned MInfoWhy = offsetof(decan_machine_info, why) / 4;
constexpr unsigned MInfoNChasedLoad =
    offsetof(decan_machine_info, n_chased_load) / 4;
constexpr unsigned MInfoCallsDeleted =
    offsetof(decan_machine_info, calls_deleted_mask) / 4;
constexpr unsigned MInfoDL1MemoryCallBytes =
    offsetof(decan_machine_info, dl1_memory_call_bytes) / 4;
constexpr unsigned MInfoCappedMask =
    offsetof(decan_machine_info, capped_mask) / 4;
} // namespace abi_ir

/// What decan knows about one innermost loop at the IR level.
struct LoopRecord {
  std::string Function; ///< mangled symbol of the enclosing function
  unsigned Index = 0;   ///< L<index>, see docs/design.md
  std::string File;     ///< "" when there is no debug location
  unsigned Line = 0, Column = 0;
  std::string SkipReason; ///< "" when the loop is instrumented
  unsigned VariantMask = 0;
  /// A region (DECAN_DESC_REGION, IRRegions.h): an outer loop (Index is its
  /// position among the function's outer loops) or, with WholeFunction,
  /// the function.
  bool Region = false, WholeFunction = false;
  /// A region whose function calls itself (DECAN_DESC_RECURSIVE).
  bool Recursive = false;
  /// A loop nest (`-decan-nests`, IRNests.h): an outer loop whose inner
  /// loops are innermost, outlined and varied as one loop; Index is its
  /// position among the function's nests (id "function:N<index>").
  bool Nest = false;
  /// Source identity across builds (decan_loop_desc::source), "" unknown.
  std::string Source;
  unsigned IterationStep = 0; ///< decan_loop_desc::iteration_step

  /// "function:L<index>"; nests "function:N<index>"; regions
  /// "region:function[:L<index>]".
  std::string id() const {
    if (Nest)
      return Function + ":N" + std::to_string(Index);
    if (!Region)
      return Function + ":L" + std::to_string(Index);
    return "region:" + Function +
           (WholeFunction ? "" : ":L" + std::to_string(Index));
  }
  /// `<function>.decan.L<index>.<Suffix>` (nests: `.decan.N<index>.`;
  /// regions: `.decan.R<index>.` or `.decan.RF.`): every per-loop symbol.
  std::string symbol(llvm::StringRef Suffix) const {
    if (Nest)
      return loopSymbol(Function, "N" + std::to_string(Index), Suffix);
    return loopSymbol(Function, loopSymbolTag(Index, Region, WholeFunction),
                      Suffix);
  }
};

/// The source file a loop's descriptor names: \p File, under the
/// compilation's \p Directory when relative (debug information records the
/// path as the compiler saw it), so that an editor opens it from anywhere.
std::string sourcePath(llvm::StringRef Directory, llvm::StringRef File);

/// \p R's file, line and column from \p DL (nothing without one).
void setRecordLocation(LoopRecord &R, const llvm::DebugLoc &DL);

/// The skip reason of a loop in an optnone function (-O0): what `decan run`
/// and the compile-time warning recognise.
inline constexpr const char *OptNoneSkipReason = "function is optnone (-O0)";

/// Size of the DL1 scratch area given to each instrumented loop.
constexpr unsigned ScratchBytes = 8192;

/// Collects the loops of a module and emits their tables.
class LoopTableBuilder {
public:
  explicit LoopTableBuilder(llvm::Module &M);

  /// Emits the meta record of \p R (skipped or not). For an instrumented
  /// loop also its scratch area and descriptor; returns the descriptor (a
  /// placeholder until finalize(), safe to reference), or null if skipped.
  /// \p C: the comdat of the loop's function, or null.
  llvm::Constant *addLoop(const LoopRecord &R, llvm::Comdat *C);

  /// Builds the descriptor array, the per-loop aliases and the module
  /// constructor. Call once, after every addLoop().
  void finalize();

  /// Loops added with OptNoneSkipReason (built at -O0).
  unsigned optNoneLoops() const { return NumOptNone; }

  /// LLVM type of struct decan_loop_desc.
  llvm::StructType *descType() const { return DescTy; }

private:
  llvm::Module &M;
  llvm::StructType *DescTy;
  struct Pending {
    llvm::GlobalVariable *Placeholder;
    llvm::Constant *Init;
    std::string Name;
    llvm::Comdat *Group;
  };
  llvm::SmallVector<Pending, 8> Descs;
  /// Emits one descriptor array and the constructor that registers it.
  void emitGroup(llvm::Comdat *Group, llvm::ArrayRef<Pending> Members);
  /// A global whose symbol is \p C's name: what the constructor's
  /// llvm.global_ctors entry is keyed on.
  llvm::GlobalValue *groupKey(llvm::Comdat &C);
  llvm::SmallVector<llvm::GlobalValue *, 8> Used;
  unsigned NumOptNone = 0;
};

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRLOOPTABLE_H
