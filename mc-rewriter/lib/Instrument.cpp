//===- Instrument.cpp - Make any program measurable by decan --------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/Instrument.h"
#include "decan/Rewriter/Binary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace decan::rewriter;

std::string decan::rewriter::rewrittenPath(StringRef Input, StringRef OutDir) {
  if (OutDir.empty())
    return (Input + ".decan").str();
  SmallString<256> P(OutDir);
  sys::path::append(P, sys::path::filename(Input));
  return std::string(P);
}

/// The host CPU's instruction knowledge and the input file.
static Expected<std::pair<std::unique_ptr<decan::X86Knowledge>,
                          std::unique_ptr<BinaryImage>>>
openInput(StringRef Input) {
  auto X86 = decan::X86Knowledge::createForHost();
  if (!X86)
    return X86.takeError();
  auto Bin = BinaryImage::open(Input);
  if (!Bin)
    return Bin.takeError();
  return std::make_pair(std::move(*X86), std::move(*Bin));
}

Expected<RewrittenFile> decan::rewriter::rewriteFile(StringRef Input,
                                                     StringRef Output,
                                                     const RewriteOptions &RW) {
  auto In = openInput(Input);
  if (!In)
    return In.takeError();
  auto &[X86, Bin] = *In;
  if (Bin->hasDecanMeta())
    return createStringError(inconvertibleErrorCode(),
                             "'%s' already carries decan metadata (built "
                             "with the plugin or already rewritten)",
                             Input.str().c_str());
  RewrittenFile F;
  auto Loops = findLoops(*Bin, *X86);
  if (!Loops)
    return Loops.takeError();
  F.Loops = std::move(*Loops);
  auto R = rewriteBinary(*Bin, *X86, F.Loops, Output, RW);
  if (!R)
    return R.takeError();
  F.Result = std::move(*R);
  return F;
}

Expected<std::vector<LoopCandidate>>
decan::rewriter::findLoopsInFile(StringRef Input, FinderStats *Stats) {
  auto In = openInput(Input);
  if (!In)
    return In.takeError();
  return findLoops(*In->second, *In->first, Stats);
}

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
  if (Expected<RewrittenFile> F = rewriteFile(Path, Out); !F)
    return F.takeError();
  return Out;
}
