//===- Instrument.cpp - Make any program measurable by decan --------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/Instrument.h"
#include "decan/Rewriter/RewriteTool.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

Expected<bool> decan::rewriter::hasDecanMetadata(StringRef Path) {
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin)
    return createStringError(inconvertibleErrorCode(), "'%s': %s",
                             Path.str().c_str(),
                             toString(Bin.takeError()).c_str());
  for (const object::SectionRef &Sec : Bin->getBinary()->sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (Name && *Name == ".decan.meta")
      return true;
    consumeError(Name.takeError());
  }
  return false;
}

Expected<std::string> decan::rewriter::ensureInstrumented(StringRef Path,
                                                          StringRef OutDir) {
  Expected<bool> Has = hasDecanMetadata(Path);
  if (!Has)
    return Has.takeError();
  if (*Has)
    return Path.str();
  if (!OutDir.empty())
    if (std::error_code EC = sys::fs::create_directories(OutDir))
      return createStringError(EC, "cannot create '%s': %s",
                               OutDir.str().c_str(), EC.message().c_str());
  std::string Out = rewrittenPath(Path, OutDir);
  if (Error E = rewriteFile(Path, Out, nulls(), /*Verbose=*/false))
    return std::move(E);
  return Out;
}
