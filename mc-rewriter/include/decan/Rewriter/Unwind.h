//===- Unwind.h - The input's unwind and exception tables -------*- C++ -*-===//
//
// Part of decan. What the rewriter needs of an input's .eh_frame and
// exception tables (.gcc_except_table), read by a reader of its own that
// neither aborts nor allocates by sizes read from a corrupt file:
//   - function bounds of code no symbol names (FDEs);
//   - the unwind rule of the original code at a loop header, as CFI
//     instructions, for the FDE of the relocated loop;
//   - what an exception thrown by a call in a loop meets in its function
//     (nothing, a landing pad, or termination), which decides whether the
//     loop can run from new code;
//   - every FDE, for the copy's merged .eh_frame_hdr.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_UNWIND_H
#define DECAN_REWRITER_UNWIND_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace decan::rewriter {

class BinaryImage;

/// One FDE of the input.
struct FdeInfo {
  uint64_t Begin = 0, End = 0; ///< code it covers
  uint64_t Addr = 0;           ///< the FDE's own address
  uint64_t Lsda = 0;           ///< its language-specific data (0: none)
  bool HasPersonality = false; ///< its CIE names a personality routine
  /// Offsets in the .eh_frame bytes: the FDE's instructions, and its CIE.
  uint64_t InstrBegin = 0, InstrEnd = 0, Cie = 0;
};

/// One CIE: what its FDEs' instructions are read with.
struct CieInfo {
  uint64_t CodeAlign = 1;
  int64_t DataAlign = -8;
  uint64_t ReturnColumn = 16;
  uint64_t InstrBegin = 0, InstrEnd = 0; ///< initial instructions
  /// The personality routine: its encoding (0xff: none) and the value,
  /// pc-relative encodings resolved (the pointer's slot when indirect).
  uint8_t PersonalityEnc = 0xff;
  uint64_t Personality = 0;
};

/// The CIEs (by offset) and FDEs of an .eh_frame section.
struct EhFrame {
  std::vector<FdeInfo> Fdes;
  std::vector<std::pair<uint64_t, CieInfo>> Cies; ///< sorted by offset
  const CieInfo *cie(uint64_t Off) const;
  const FdeInfo *fdeFor(uint64_t Addr) const; ///< the FDE covering Addr
};

/// The CIEs and FDEs of the .eh_frame bytes \p D at \p Addr (a bad entry
/// ends the walk).
EhFrame parseEhFrame(llvm::ArrayRef<uint8_t> D, uint64_t Addr);

/// UnwindTables::ruleAt on the .eh_frame bytes \p Frame, parsed.
std::optional<std::string> cfiRuleAt(llvm::ArrayRef<uint8_t> Frame,
                                     const EhFrame &Parsed, uint64_t Addr,
                                     std::string &Why);

/// What an exception thrown by a call meets in the calling function.
enum class CallLanding {
  NoTable,    ///< no exception table: unwinding goes on to the caller
  Through,    ///< a call-site entry without landing pad: same
  Handler,    ///< a landing pad (a catch, or cleanups to run)
  Terminates, ///< no call-site entry: the personality terminates
  Unreadable, ///< the table cannot be read
};

/// The input's unwind tables.
class UnwindTables {
public:
  /// Reads \p Bin's .eh_frame and PT_GNU_EH_FRAME; absent or corrupt
  /// tables leave it empty (no FDE).
  explicit UnwindTables(const BinaryImage &Bin);

  /// The FDEs, sorted by Begin.
  const std::vector<FdeInfo> &fdes() const { return Parsed.Fdes; }
  /// The FDE covering \p Addr, if any.
  const FdeInfo *fdeFor(uint64_t Addr) const;
  /// Address of PT_GNU_EH_FRAME's table (0: the input has none) and of
  /// .eh_frame.
  uint64_t ehFrameHdrAddr() const { return HdrAddr; }
  uint64_t ehFrameAddr() const { return FrameAddr; }

  /// CFI instructions (data alignment -8, return address column 16) that
  /// set, from a CIE without initial instructions, the unwind rule the
  /// original code has at \p Addr: the CFA and every saved register.
  /// nullopt, with \p Why, when there is no FDE or the rule uses a DWARF
  /// expression.
  std::optional<std::string> ruleAt(uint64_t Addr, std::string &Why) const;

  /// The personality of the function at \p Addr when it has an exception
  /// table (its CIE's encoding and resolved value), else nullopt.
  std::optional<std::pair<uint8_t, uint64_t>>
  personalityAt(uint64_t Addr) const;

  /// What an exception thrown by the call that returns to \p ReturnAddr
  /// meets in its function; \p LandingPad is set for Handler.
  CallLanding landingFor(uint64_t ReturnAddr, uint64_t &LandingPad) const;

private:
  const BinaryImage &Bin;
  std::vector<uint8_t> Frame; ///< .eh_frame's bytes
  uint64_t FrameAddr = 0, HdrAddr = 0;
  EhFrame Parsed;
};

} // namespace decan::rewriter

#endif // DECAN_REWRITER_UNWIND_H
