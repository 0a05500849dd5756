//===- Rewriter.h - Write a copy of an ELF file with decan's variants -----===//
//
// Part of decan. Takes the innermost loops LoopFinder found and writes a NEW
// ELF file (the input is never touched) in which each rewritable loop runs
// from new code:
//
// \code
//   original text                 new RX segment (.decan.text)
//   header: jmp stub_L   ------>  stub_L: cmpl $0, desc.active(%rip)
//           <rest of the loop,             jne  measured_L
//            never run again>              jmp  orig_L
//                                 orig_L:  relocated loop; exits jump back
//                                 measured_L: save GPRs, flags, xsave
//                                          begin_call(desc) -> v
//                                          restore; lfence; rdtsc
//                                          jmp variant_v (rsp moved below
//                                          the saved state, rsp-relative
//                                          operands adjusted)
//                                          exit: rdtscp; lfence; save;
//                                          end_call; restore; continue
// \endcode
//
// A new RW segment starts with decan_rewritten_header (abi.h), followed by
// the descriptors, machine info, strings and DL1 scratch areas; .decan.meta
// (not loaded) holds one decan_meta_record per innermost loop. The program
// header table moves to the start of the new RX segment (BOLT's approach),
// so there is room for the two new PT_LOAD entries.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_REWRITER_H
#define DECAN_REWRITER_REWRITER_H

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"
#include "decan/Rewriter/RegionFinder.h"
#include "decan/abi.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace decan::rewriter {

struct RewriteOptions {
  /// Variants to build (bit per decan_variant); REF is always built.
  unsigned VariantMask = (1u << DECAN_NUM_VARIANTS) - 1;
  /// Rewrite only these loop ids (empty: every rewritable loop, unless
  /// OnlyListed).
  std::vector<std::string> OnlyLoops;
  /// Whether an OnlyLoops item names a loop (id, function) otherwise than
  /// by its id (`decan run --loops` takes a C++ loop's short name); unset:
  /// ids only. Derived from OnlyLoops, which keys the cache.
  std::function<bool(llvm::StringRef Item, llvm::StringRef Id,
                     llvm::StringRef Function)>
      NamesLoop;
  /// OnlyLoops is the whole selection even when empty (the loops a profile
  /// run saw: maybe none of this file's).
  bool OnlyListed = false;
  /// .decan.meta lists the loops left out by the selection ("not
  /// selected"); decan run's copies leave them out (with 19 variants a
  /// record is ~600 bytes: OpenBLAS's 59 000 would double the file).
  bool ListUnselected = true;
  /// A profiling copy: REF only, built without the instruction knowledge's
  /// analysis (seconds for a large library), to learn which loops run
  /// before building variants for those alone.
  bool Profile = false;
  /// A base copy for late variants (docs/rewriter.md, "Late variants"):
  /// per loop its stub, the relocated original and a 24-byte record, no
  /// measured copy and no analysis (like Profile, smaller: no machine info,
  /// scratch or .debug_frame, and DCN0 records in .decan.meta); the image
  /// reserves LateReserve bytes of address space (a file-less PT_LOAD)
  /// where the runtime maps the late pack built for the loops that ran.
  bool LateBase = false;
  uint64_t LateReserve = 64ull << 20;
  /// Threads that build variants and emit loops (0: one per core).
  unsigned Threads = 0;
  /// Also time outer loops as regions (RegionFinder.h; `decan run
  /// --regions`): REF only, the original code keeps running.
  bool Regions = false;
  /// Also measure 2-level nests as one loop (NestFinder.h; `decan run
  /// --nests`): candidates with LoopCandidate::Nest are left out without.
  bool Nests = false;
};

/// What happened to one loop.
struct LoopOutcome {
  std::string Id, Where; ///< "f:L0", "f+0x1a"
  std::string File;
  unsigned Line = 0;
  bool Rewritten = false;
  std::string Reason;       ///< why not rewritten
  unsigned VariantMask = 0; ///< variants emitted
  uint64_t Header = 0, StubAddr = 0;
  std::vector<std::string> VariantNotes; ///< why a variant is missing
  /// [begin, end) of the unmeasured relocated loop and of each measured
  /// copy (REF, LS, ...; {0, 0} when not built).
  std::pair<uint64_t, uint64_t> OrigCopy{0, 0};
  std::array<std::pair<uint64_t, uint64_t>, DECAN_NUM_VARIANTS> Copies{};
};

/// What happened to one region (an outer loop).
struct RegionOutcome {
  std::string Id, Where, File;
  unsigned Line = 0;
  bool Rewritten = false;
  std::string Reason; ///< why not timed
  unsigned Sites = 0; ///< patched entries and exits
};

struct RewriteResult {
  std::vector<LoopOutcome> Loops;
  std::vector<RegionOutcome> Regions;
  uint64_t CodeAddr = 0, CodeSize = 0, DataAddr = 0, DataSize = 0;
  /// LateBase: the reserved range.
  uint64_t LateAddr = 0, LateSize = 0;
};

/// Writes the rewritten copy of \p Bin to \p OutPath (which must differ
/// from the input path).
llvm::Expected<RewriteResult>
rewriteBinary(const BinaryImage &Bin, const decan::X86Knowledge &X86,
              const std::vector<LoopCandidate> &Loops, llvm::StringRef OutPath,
              const RewriteOptions &Opts = {},
              const std::vector<RegionCandidate> &Regions = {});

/// "symbol+0xoff" of a loop header.
std::string loopWhere(const LoopCandidate &L);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_REWRITER_H
