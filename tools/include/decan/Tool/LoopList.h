//===- decan/Tool/LoopList.h - decan list's one line per loop -------------===//
//
// Part of decan. `decan list` without --verbose: one line per loop (id,
// source, bytes, iteration step, the variants built or why only REF was),
// the reasons a variant was not built grouped, names of C++ functions
// shortened; the per-variant detail is `decan list --verbose`
// (printLoopList in Render.h).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LOOPLIST_H
#define DECAN_TOOL_LOOPLIST_H

#include "decan/Tool/LoopTable.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace decan::tool {

/// A demangled C++ name for a table: template arguments shown as "<…>",
/// the parameter list, return type and qualifiers dropped, namespaces and
/// the function's name kept; past \p Max columns the outer scopes give way
/// to "…::". A C name is itself.
std::string shortFunctionName(llvm::StringRef Demangled, size_t Max = 60);

/// The scopes and name of a nested C++ name LLVM's demangler does not
/// read ("_ZN3fmt2v96detail10vformat_toIcEE..." is
/// "fmt::v9::detail::vformat_to<...>"), "" when it is not one.
std::string nestedNamePrefix(llvm::StringRef Mangled);

/// The variants \p L did not get for a reason worth reading, grouped by
/// reason: "LS, FP not built: an exit condition reads memory the loop may
/// write". Variants with nothing to do (NO_DIV without a division, NO_CALL
/// without a call...) and those the build did not ask for are left out.
std::vector<std::string> groupedReasons(const MetaLoop &L);

/// `decan list`'s table: one line per loop, then a summary.
void printLoopSummary(llvm::raw_ostream &OS,
                      const std::vector<MetaLoop> &Loops);

} // namespace decan::tool

#endif // DECAN_TOOL_LOOPLIST_H
