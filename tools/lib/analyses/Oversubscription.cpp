//===- analyses/Oversubscription.cpp - More threads than CPUs -------------===//
//
// Part of decan. More threads and ranks than logical CPUs: they took turns on
// the cores, so calls include waiting. A warning of the report.
//
//===----------------------------------------------------------------------===//

#include "Claims.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace decan::tool::analyses {

void oversubscription(AnalysisContext &C) {
  Report &R = C.R;
  // More threads and ranks than logical CPUs: they take turns on cores.
  int64_t Cpus = R.Machine.getInteger("logical_cpus").value_or(0);
  // Runs follow each other: the threads of one run share the machine.
  std::map<unsigned, unsigned> PerRun;
  for (const ProcessInfo &P : R.Processes)
    PerRun[P.Run] += std::max(1u, P.Threads);
  unsigned Threads = 0;
  for (const auto &KV : PerRun)
    Threads = std::max(Threads, KV.second);
  std::string W = formatv("{0} threads/ranks ran on {1} logical CPUs: they "
                          "took turns on the cores, so calls include waiting "
                          "(pairs are formed within each thread)",
                          Threads, Cpus)
                      .str();
  if (Cpus > 0 && Threads > Cpus &&
      std::find(R.Warnings.begin(), R.Warnings.end(), W) == R.Warnings.end())
    R.Warnings.insert(R.Warnings.begin(), W);
}

} // namespace decan::tool::analyses
