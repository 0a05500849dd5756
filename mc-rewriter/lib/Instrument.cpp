//===- Instrument.cpp - Make any program measurable by decan --------------===//
#include "decan/Rewriter/Instrument.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"

using namespace llvm;

Expected<bool> decan::rewriter::hasDecanMetadata(StringRef Path) {
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin)
    return Bin.takeError();
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
  return createStringError(inconvertibleErrorCode(),
                           "'%s' was not built with the decan plugin and the "
                           "MC rewriter cannot rewrite it",
                           Path.str().c_str());
}
