//===- MetaRecords.h - A loop's .decan.meta record --------------*- C++ -*-===//
//
// Part of decan. The records a rewritten copy's .decan.meta lists, one per
// loop (abi.h, decan_meta_record): what `decan list` and the runtime read
// about a loop the copy rewrote or left out, and why.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_METARECORDS_H
#define DECAN_REWRITER_METARECORDS_H

#include "decan/Rewriter/LoopFinder.h"
#include "decan/abi.h"

#include <string>

namespace decan::rewriter {

/// Appends the .decan.meta record of \p L (decan_meta_record + strings).
void appendMeta(std::string &Out, const LoopCandidate &L, unsigned Mask,
                const decan_machine_info &MI, const std::string &Reason,
                unsigned BoundMask = 0);

/// Appends \p L's short .decan.meta record (DCN0: no machine info), as a
/// base copy for late variants lists its loops.
void appendShortMeta(std::string &Out, const LoopCandidate &L, unsigned Mask,
                     const std::string &Reason);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_METARECORDS_H
