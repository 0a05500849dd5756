//===- Outputs.cpp - Writing a report's JSON, HTML and remarks files ------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "Outputs.h"

#include "decan/Tool/Output.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace decan::tool;

Error writeOutputs(const Report &R, const std::vector<Report> &Runs,
                   const Sweep *S, const std::string &Json,
                   const std::string &Html, const std::string &Remarks) {
  if (!Json.empty()) {
    std::string Buf;
    raw_string_ostream OS(Buf);
    OS << formatv("{0:2}", toJSON(R)) << "\n";
    if (Error E = writeOutput(Json, Buf))
      return E;
  }
  if (!Html.empty()) {
    std::string Buf;
    raw_string_ostream OS(Buf);
    writeHTML(OS, Runs, S);
    if (Error E = writeOutput(Html, Buf))
      return E;
  }
  if (!Remarks.empty()) {
    std::string Buf;
    raw_string_ostream OS(Buf);
    if (Error E = writeRemarks(OS, R))
      return E;
    if (Error E = writeOutput(Remarks, Buf))
      return E;
  }
  return Error::success();
}
