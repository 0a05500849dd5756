//===- Frames.h - Unwind rules of the new code: CIEs and FDEs ---*- C++ -*-===//
//
// Part of decan. Writes call frame information for code the rewriter laid
// out: the entries' encoding (.eh_frame or .debug_frame) and the one rule
// of a measured copy, shared by a full copy (RewriteInstance.cpp) and a
// late pack (LatePack.cpp). Private to mc-rewriter/lib.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LIB_FRAMES_H
#define DECAN_REWRITER_LIB_FRAMES_H

#include "CodeBuffer.h"
#include "Dispatcher.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace decan::rewriter {

/// Appends DWARF encodings to a string.
struct DwarfOut {
  std::string &S;
  void u8(uint8_t V) { S.push_back(char(V)); }
  void u32(uint32_t V);
  void u64(uint64_t V);
  void uleb(uint64_t V);
  void sleb(int64_t V);
  /// A length-prefixed entry, padded with DW_CFA_nop to 8 bytes.
  void entry(llvm::function_ref<void()> Body);
};

/// Appends CIEs and FDEs to \p S: .eh_frame (\p Eh; \p S is loaded at
/// \p At, pointers pc-relative) or .debug_frame (absolute addresses, no
/// augmentation). \p Fdes gets each FDE's (code start, FDE address), for
/// PT_GNU_EH_FRAME's table.
class FrameWriter {
public:
  FrameWriter(std::string &S, bool Eh, uint64_t At,
              std::vector<std::pair<uint64_t, uint64_t>> &Fdes)
      : S(S), O{S}, Eh(Eh), At(At), Fdes(Fdes) {}

  /// A CIE (returns its offset in \p S): return address rip, with
  /// \p Personality (encoding, address) and pc-relative LSDAs when given;
  /// \p Initial appends its initial instructions.
  size_t cie(std::optional<std::pair<uint8_t, uint64_t>> Personality,
             llvm::function_ref<void()> Initial);
  /// An FDE of CIE \p CieOff for [\p Begin, \p End), its exception table
  /// at \p S offset \p Lsda (-1: none); \p Body appends its instructions.
  void fde(size_t CieOff, uint64_t Begin, uint64_t End, int64_t Lsda,
           llvm::function_ref<void()> Body);

  /// The measured copies' CIE: CFA = rsp + FrameDelta, the return address
  /// at CFA - ReturnFromCFA (measuredFrameCFI): the loop header + 1.
  size_t measuredCie();
  /// \p P's measured copies (and their exit stubs), laid out in \p CB, with
  /// CIE \p CieOff; at each call the return address is the original call's
  /// (DW_CFA_val_expression), so the function's exception table sees the
  /// original call site. Nothing when the loop has no measured copy.
  void measuredFde(size_t CieOff, const CodeBuffer &CB, const PlannedLoop &P);

  /// At least the bytes of measuredCie() and of measuredFde() for \p P
  /// (a pack's layout reserves them before its code's addresses are known).
  static constexpr size_t MeasuredCieBound = 32;
  static size_t measuredFdeBound(const PlannedLoop &P) {
    // 17-byte head, per call at most 40: two advances, the expression
    // (two sleb128 of at most 3 and 10 bytes) and the default rule again.
    return 24 + 40 * P.MeasuredCalls.size();
  }

  /// .eh_frame's zero terminator.
  void terminate() { O.u32(0); }

  std::string &S;
  DwarfOut O;

private:
  bool Eh;
  uint64_t At;
  std::vector<std::pair<uint64_t, uint64_t>> &Fdes;
};

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LIB_FRAMES_H
