//===- decan/Tool/Install.h - Where decan's pieces live -------------------===//
//
// Part of decan. Paths are found relative to the running `decan` executable:
// <prefix>/bin/decan, <prefix>/lib/decan.so (plugin), <prefix>/lib/
// libdecan_rt.so (runtime), <prefix>/include/decan/*.h. The build tree and
// an install (cmake --install) share this layout, so `decan flags` works in
// both.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_INSTALL_H
#define DECAN_TOOL_INSTALL_H

#include "llvm/Support/Error.h"

#include <string>

namespace decan::tool {

struct InstallLayout {
  std::string Prefix, LibDir, IncludeDir, Plugin, Runtime;
};

/// The layout around the executable \p Argv0 (resolved through /proc when
/// possible). Errors when the plugin is missing.
llvm::Expected<InstallLayout> findInstallLayout(const char *Argv0);

/// Compile flags: load the plugin for the IR and machine passes, keep line
/// tables for file:line, and include the runtime's headers.
std::string compileFlags(const InstallLayout &L);
/// The plugin and line tables alone (`decan flags --ship`): what a build
/// needs for the plugin to find its loops by source position.
std::string shipCompileFlags(const InstallLayout &L);
/// Link flags for the shared runtime (rpath so the program finds it).
std::string linkFlags(const InstallLayout &L);

} // namespace decan::tool

#endif // DECAN_TOOL_INSTALL_H
