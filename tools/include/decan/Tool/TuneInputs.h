//===- decan/Tool/TuneInputs.h - One choice from several inputs ----------===//
//
// Part of decan. `decan flags --apply a.json,b.json`: the `decan tune`
// files of several training inputs give one build: per source loop, the
// candidate whose worst speedup over the inputs is best (the default's is
// 1), chosen when that worst case beats the default by more than the
// minimum gain; where the inputs' own choices differ, a note says so.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_TUNEINPUTS_H
#define DECAN_TOOL_TUNEINPUTS_H

#include "decan/Tool/Tune.h"

#include <string>
#include <utility>
#include <vector>

namespace decan::tool {

/// One input's tune file: its name and loops (readTuneFile()).
using TuneInput = std::pair<std::string, std::vector<TunedLoop>>;

/// The loops of \p Inputs with one choice each (a loop tuned in some
/// inputs only is chosen from those); \p Notes gets one line per loop whose
/// choice depends on the input.
std::vector<TunedLoop> chooseAcrossInputs(const std::vector<TuneInput> &Inputs,
                                          std::vector<std::string> &Notes,
                                          double MinGain = 0.02);

} // namespace decan::tool

#endif // DECAN_TOOL_TUNEINPUTS_H
