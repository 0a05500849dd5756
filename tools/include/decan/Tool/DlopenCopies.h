//===- decan/Tool/DlopenCopies.h - Libraries opened by dlopen --*- C++ -*-===//
//
// Part of decan. `decan run --lib auto` finds the libraries a program
// links before it runs (Libraries.h); those it opens with dlopen (Python
// extension modules, plugins) are asked for while it runs: the runtime's
// dlopen writes a request into the late directory and waits, and this
// answers with a copy to open instead (runtime/src/Late.h). The libraries
// that one needs (numpy's extension needs OpenBLAS) are copied too, into
// the directory decan puts first on LD_LIBRARY_PATH, where the loader finds
// them when it loads the copy (whose $ORIGIN is no longer the original's).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_DLOPENCOPIES_H
#define DECAN_TOOL_DLOPENCOPIES_H

#include "decan/Tool/Libraries.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace decan::tool {

class DlopenCopies {
public:
  /// Makes the copy of the library at \p Real (its real path) that the
  /// program opens instead (the file itself when plugin-built).
  using MakeCopyFn =
      std::function<llvm::Expected<std::string>(llvm::StringRef Real)>;

  DlopenCopies(MakeCopyFn MakeCopy, llvm::raw_ostream &Log)
      : MakeCopy(std::move(MakeCopy)), Log(Log) {}

  /// Before a run: its late directory starts empty.
  void startRun() { Answered.clear(); }

  /// While the program runs: answers every new `dlopen.PID.K.request` in
  /// \p Dir with `dlopen.PID.K.copy` (the copy's path) or
  /// `dlopen.PID.K.nocopy` (the C and C++ runtimes, a library the loader
  /// would not find, one that cannot be rewritten). The libraries a copied
  /// one needs get their copies in \p LoaderDir under the names asked for,
  /// unless a library of that name is there already.
  void poll(llvm::StringRef Dir, llvm::StringRef LoaderDir);

  /// The libraries given a copy: real path to copy.
  const std::map<std::string, std::string> &copies() const { return Copies; }

private:
  /// The copy for the library named \p Name in a request, "" for none.
  std::string answer(llvm::StringRef Name, llvm::StringRef LoaderDir);
  /// The copy of the library at \p Path (\p Why: how it is loaded, for
  /// the log), "" when it gets none.
  std::string copyOf(llvm::StringRef Path, llvm::StringRef Why);

  MakeCopyFn MakeCopy;
  llvm::raw_ostream &Log;
  std::set<std::string> Answered;
  std::map<std::string, std::string> Copies;
  /// Libraries refused once (real path): not tried again.
  std::set<std::string> Refused;
  std::optional<LoaderSearch> Search; ///< read at the first request
};

} // namespace decan::tool

#endif // DECAN_TOOL_DLOPENCOPIES_H
