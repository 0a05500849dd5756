//===- decan/Tool/TuneKinds.h - Candidates chosen by the diagnosis -------===//
//
// Part of decan. Which kinds of tuning candidates (llvm-plugins/
// IRTuneCandidates.h has the candidates of each kind) `decan flags --tune`
// asks for each hot loop, from decan's own diagnosis of the loop in the
// report: memory-bound or a high DL1 gain -> nest transformations
// (unroll-and-jam, distribution, interchange); fp-bound or division-bound
// -> vector width, interleave, reciprocal; control-bound -> unroll counts.
// Every diagnosed loop gets the vector kind too (width and interleave
// gained whatever the diagnosis, docs/pgo.md); a loop without a diagnosis
// gets every kind.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_TUNEKINDS_H
#define DECAN_TOOL_TUNEKINDS_H

#include "decan/Tool/Report.h"

#include <string>
#include <vector>

namespace decan::tool {

/// The candidate kinds of one source loop and why.
struct TuneKinds {
  std::string Entry;              ///< the -decan-tune entry (FILE:LINE:COL)
  std::vector<std::string> Kinds; ///< "nest", "vector", "unroll"
  std::string Why;                ///< the diagnosis that chose them
};

/// The kinds for each of \p Entries (the -decan-tune entries of
/// selectHotLoops) from the analysed loops of \p R at that position
/// (vector body and remainder of one source loop: their kinds together).
std::vector<TuneKinds> tuneKinds(const Report &R,
                                 const std::vector<std::string> &Entries);

/// "-mllvm -decan-tune-kinds=POS=nest+vector,..." for \p Ks.
std::string tuneKindsFlag(const std::vector<TuneKinds> &Ks);

} // namespace decan::tool

#endif // DECAN_TOOL_TUNEKINDS_H
