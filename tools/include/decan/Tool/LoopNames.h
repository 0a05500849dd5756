//===- decan/Tool/LoopNames.h - The names a loop is shown and chosen by ---===//
//
// Part of decan. A loop's id ("f:L0", what the runtime and the JSON key it
// by) is the producer's: a C++ function's is mangled, a library's says
// nothing of its library. What the text, HTML and `decan list` print, and
// what `--loops` also takes, is its name:
//
//   f:L0                          a C function's loop, as its id
//   fmt::v9::vformat_to:L3        a C++ function's: demangled, template
//                                 arguments and parameters left out
//   fmt::format_to~1a2b:L0        the same when overloads or instances share
//                                 it: a suffix from the mangled name (stable)
//   libopenblas.so.0!sub_648f00:L0   a loop of a shared library
//
// The JSON keeps the id, the mangled function and the object apart.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LOOPNAMES_H
#define DECAN_TOOL_LOOPNAMES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace decan::tool {

struct LoopReport;
struct MetaLoop;

/// What a loop's name is made of.
struct LoopIdentity {
  llvm::StringRef Id, Function, Object;
};

/// \p Id with a C++ \p Function's part short ("fmt::vformat_to:L3"); with
/// \p Suffixed, the function's stable suffix too ("fmt::format_to~1a2b:L0").
/// A C function's, or one not in the id, is the id itself.
std::string shortLoopId(llvm::StringRef Function, llvm::StringRef Id,
                        bool Suffixed = false);

/// The names of \p Loops, in order: shortLoopId, suffixed where two loops
/// of different functions share it, prefixed "object!" for a library's.
std::vector<std::string> loopNames(llvm::ArrayRef<LoopIdentity> Loops);

/// Sets each loop's Name: loopNames over \p Loops and the loops of
/// \p Table (the binaries' loop tables, when known: an overload's suffix
/// does not depend on which loops the run measured).
void nameLoops(std::vector<LoopReport> &Loops,
               llvm::ArrayRef<MetaLoop> Table = {});

/// The identities of a binary's loops.
std::vector<LoopIdentity> loopIdentities(llvm::ArrayRef<MetaLoop> Loops);

/// Whether \p Wanted (a --loops item) names loop \p L: its id or its name,
/// suffixed or not, each with or without "object!".
bool namesLoop(llvm::StringRef Wanted, const LoopIdentity &L);

/// namesLoop, the loop's object unknown: "object!" ignored (what the
/// rewriter's selection asks: RewriteOptions::NamesLoop).
bool namesLoopOfAnyObject(llvm::StringRef Wanted, llvm::StringRef Id,
                          llvm::StringRef Function);

/// The ids of \p Loops that the --loops items \p Wanted name, each once;
/// an error names an item that names none, or a short name that names
/// loops of several functions (with the names that tell them apart).
llvm::Expected<std::vector<std::string>>
resolveLoopNames(llvm::ArrayRef<std::string> Wanted,
                 llvm::ArrayRef<LoopIdentity> Loops);

} // namespace decan::tool

#endif // DECAN_TOOL_LOOPNAMES_H
