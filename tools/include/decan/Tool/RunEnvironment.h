//===- decan/Tool/RunEnvironment.h - The measured program's environment ---===//
//
// Part of decan. The environment protocol of docs/design.md: what one run
// of the program is told through DECAN_* variables, LD_PRELOAD and
// LD_LIBRARY_PATH.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_RUNENVIRONMENT_H
#define DECAN_TOOL_RUNENVIRONMENT_H

#include "decan/Tool/RunOptions.h"

#include <string>
#include <vector>

namespace decan::tool {

/// What one run is told besides the run's options.
struct RunEnvironment {
  std::string Loops;             ///< DECAN_LOOPS
  std::vector<Variant> Variants; ///< DECAN_VARIANTS
  std::string OutDir;            ///< DECAN_OUTPUT: where reports go
  bool Preload = false;          ///< LD_PRELOAD the runtime (a copy runs)
  std::string LoaderDir;         ///< prepended to LD_LIBRARY_PATH
  std::string MapFile;           ///< DECAN_LIB_MAP ("" = none)
  std::string LateDir;           ///< DECAN_LATE_DIR ("" = none)
  bool AskDlopen = false;        ///< DECAN_LATE_DLOPEN: --lib auto
};

/// This process's environment with \p O and \p R's variables set; an
/// empty LD_LIBRARY_PATH entry is never added (it means the current
/// directory).
std::vector<std::string> buildEnvironment(const RunOptions &O,
                                          const RunEnvironment &R);

/// One warning line per DECAN_* variable of \p Env (a null-terminated
/// "NAME=VALUE" array, as environ) that no part of decan reads (with the
/// nearest known name), that decan run sets itself (the option to use
/// instead), or whose value does not read as the variable's kind.
std::vector<std::string> checkDecanVariables(const char *const *Env);

} // namespace decan::tool

#endif // DECAN_TOOL_RUNENVIRONMENT_H
