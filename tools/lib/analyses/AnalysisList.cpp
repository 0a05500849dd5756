//===- analyses/AnalysisList.cpp - The analyses analyse() runs ------------===//
//
// Part of decan. See decan/Tool/AnalysisList.h. The order is the order of
// a loop's diagnosis and warnings: the shares, saturations and ranks first
// (what the claims read), then the verdict, then each variant's claim,
// then the checks of the measurements themselves.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

namespace decan::tool {

using namespace analyses;

static const AnalysisUnit List[] = {
    {"shares", shares},
    {"saturations", saturations},
    {"blocked", blocked},
    {"ranking", ranking},
    {"regions", regions},
    {"precision", precision},
    {"variant-calls", variantCalls},
    {"suspect-variants", suspectVariants},
    {"calls", calls},
    {"streams", streams},
    {"control-bound", controlBound},
    {"inconclusive", inconclusive},
    {"memory-cpu", memoryCpu},
    {"dl1", dl1},
    {"divisions", divisions},
    {"stores", stores},
    {"reduction", reduction},
    {"prefetch", prefetch},
    {"threads", threads},
    {"groups", groups},
    {"ctrl", ctrl},
    {"share-caveats", shareCaveats},
    {"phases", phases},
    {"coherence", coherence},
    {"unavailable", unavailable},
    {"crashes", crashes},
    {"loop-structure", loopStructure},
    {"oversubscription", oversubscription},
};

llvm::ArrayRef<AnalysisUnit> analysisList() { return List; }

} // namespace decan::tool
