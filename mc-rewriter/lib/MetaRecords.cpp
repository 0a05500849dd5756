//===- MetaRecords.cpp - A loop's .decan.meta record ----------------------===//
//
// Part of decan. See MetaRecords.h.
//
//===----------------------------------------------------------------------===//

#include "MetaRecords.h"

#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace llvm;
using namespace decan::rewriter;

/// Appends the .decan.meta record of \p L (decan_meta_record + strings).
void decan::rewriter::appendMeta(std::string &Out, const LoopCandidate &L,
                                 unsigned Mask, const decan_machine_info &MI,
                                 const std::string &Reason,
                                 unsigned BoundMask) {
  decan_meta_record R{};
  R.bound_mask = BoundMask;
  memcpy(R.magic, "DCN1", 4);
  R.abi_version = DECAN_ABI_VERSION;
  R.variant_mask = Mask;
  R.line = L.Line;
  R.column = 0;
  std::string Strings =
      L.id() + '\0' + L.Function + '\0' + L.File + '\0' + Reason + '\0';
  R.strings_size = Strings.size();
  R.record_size = alignTo(sizeof(R) + Strings.size(), 8);
  R.minfo = MI;
  size_t Start = Out.size();
  Out.append(reinterpret_cast<const char *>(&R), sizeof(R));
  Out += Strings;
  Out.resize(Start + R.record_size, '\0');
}

/// Appends \p L's short .decan.meta record (DCN0: no machine info), as a
/// base copy for late variants lists its loops.
void decan::rewriter::appendShortMeta(std::string &Out, const LoopCandidate &L,
                                      unsigned Mask,
                                      const std::string &Reason) {
  decan_meta_record_short R{};
  memcpy(R.magic, "DCN0", 4);
  R.abi_version = DECAN_ABI_VERSION;
  R.variant_mask = Mask;
  R.line = L.Line;
  std::string Strings =
      L.id() + '\0' + L.Function + '\0' + L.File + '\0' + Reason + '\0';
  R.strings_size = Strings.size();
  R.record_size = alignTo(sizeof(R) + Strings.size(), 8);
  size_t Start = Out.size();
  Out.append(reinterpret_cast<const char *>(&R), sizeof(R));
  Out += Strings;
  Out.resize(Start + R.record_size, '\0');
}
