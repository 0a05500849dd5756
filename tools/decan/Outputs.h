//===- Outputs.h - Writing a report's JSON, HTML and remarks files --------===//
//
// Part of decan. Shared by `run` and `report`.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOLS_OUTPUTS_H
#define DECAN_TOOLS_OUTPUTS_H

#include "decan/Tool/Render.h"
#include "decan/Tool/Report.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

/// Writes whichever of \p Json, \p Html, \p Remarks is non-empty: JSON and
/// remarks from \p R, HTML from \p Runs (with \p S for a sweep).
llvm::Error writeOutputs(const decan::tool::Report &R,
                         const std::vector<decan::tool::Report> &Runs,
                         const decan::tool::Sweep *S, const std::string &Json,
                         const std::string &Html, const std::string &Remarks);

#endif // DECAN_TOOLS_OUTPUTS_H
