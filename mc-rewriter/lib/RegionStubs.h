//===- RegionStubs.h - The code behind a rewritten copy's regions -*- C++ -*-=//
//
// Part of decan. A region (RegionFinder.h: an outer loop or a function,
// timed REF only) has one stub per patched site, in the new code: a loop's
// enter site's stub runs the instructions its jump covers and, on the
// paths to the loop header, the enter test; a function's enter site's stub
// runs the enter test, then the covered instructions; a leave site's stub
// runs the leave test, then the covered instructions (a return among
// them returns to the function's caller). The tests are the plugin's region
// stubs (llvm-plugins/IRRegions.cpp) on the descriptor's `active` and
// `countdown`; a call to the runtime goes through one shared routine that
// saves the whole state. Private to mc-rewriter/lib.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_LIB_REGIONSTUBS_H
#define DECAN_REWRITER_LIB_REGIONSTUBS_H

#include "Dispatcher.h"
#include "ElfWriter.h"

#include "decan/Rewriter/RegionFinder.h"
#include "decan/Rewriter/Rewriter.h"

#include <vector>

namespace decan::rewriter {

/// A region the rewriter times: its descriptor and, per site, the label
/// of its stub (the site's jump goes there).
struct PlannedRegion {
  const RegionCandidate *R = nullptr;
  unsigned DescIndex = 0;
  uint64_t IdOff = 0, FuncOff = 0, FileOff = 0;
  std::vector<unsigned> SiteLabels;
};

/// The regions of \p Cands that are timed (those \p Selected takes, with
/// no skip reason and patches that overlap neither each other's nor the
/// rewritten loops' in \p Plan), descriptors numbered from Plan.size();
/// \p Out gets every candidate's outcome.
std::vector<PlannedRegion>
planRegions(const BinaryImage &Bin, const std::vector<RegionCandidate> &Cands,
            const std::vector<PlannedLoop> &Plan,
            llvm::function_ref<bool(const RegionCandidate &)> Selected,
            std::vector<RegionOutcome> &Out);

/// Emits the shared routine and every region's stubs into \p CB (once the
/// RW segment is laid out: descriptors are at \p DescsOff in it).
void emitRegionStubs(Asm &A, std::vector<PlannedRegion> &Regions,
                     uint64_t DescsOff);

/// The jumps to the stubs (once the code is laid out): 5 bytes at each
/// site, or 2 to its trampoline and 5 there.
llvm::Error regionPatches(const BinaryImage &Bin, const CodeBuffer &CB,
                          const std::vector<PlannedRegion> &Regions,
                          std::vector<ElfWriter::Patch> &Patches);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_LIB_REGIONSTUBS_H
