//===- LoopTable.cpp - Read the .decan.meta loop table --------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Report.h"
#include "decan/abi_names.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace llvm;

namespace decan::tool {

bool MetaLoop::available(unsigned V) const {
  return (VariantMask >> V & 1) && MInfo.status[V] == DECAN_VARIANT_OK;
}

std::string MetaLoop::whyNot(unsigned V) const {
  if (available(V))
    return "";
  if (!SkipReason.empty())
    return "skipped";
  if (!(VariantMask >> V & 1))
    return "not-emitted";
  return variantStatusName(MInfo.status[V]).str();
}

StringRef variantStatusName(uint32_t Status) {
  return decan_variant_status_name(Status);
}

Expected<std::vector<MetaLoop>> parseLoopTable(StringRef Bytes) {
  std::vector<MetaLoop> Out;
  constexpr size_t Header = sizeof(decan_meta_record);
  size_t Off = 0;
  while (Off + 4 <= Bytes.size()) {
    // DCN0: a record without machine info (a base copy for late variants).
    bool Short = Bytes.substr(Off, 4) == "DCN0";
    if (Bytes.substr(Off, 4) != "DCN1" && !Short) {
      // The linker aligns each object file's contribution: skip its zero
      // padding, but never skip over data.
      if (Bytes[Off] != 0)
        return createStringError(".decan.meta: bad record at offset %zu", Off);
      ++Off;
      continue;
    }
    size_t Size = Short ? sizeof(decan_meta_record_short) : Header;
    if (Off + Size > Bytes.size())
      return createStringError(".decan.meta: truncated record at offset %zu",
                               Off);
    decan_meta_record R{};
    std::memcpy(&R, Bytes.data() + Off, Size);
    if (R.record_size < Size + R.strings_size ||
        Off + Size + R.strings_size > Bytes.size())
      return createStringError(".decan.meta: record at offset %zu has a bad "
                               "size",
                               Off);
    if (R.abi_version != DECAN_ABI_VERSION)
      return createStringError(".decan.meta: ABI version %u, this decan "
                               "reads %u: rebuild the program",
                               R.abi_version, DECAN_ABI_VERSION);
    StringRef Strings = Bytes.substr(Off + Size, R.strings_size);
    SmallVector<StringRef, 6> Parts;
    Strings.split(Parts, '\0', 6);
    MetaLoop L;
    L.Id = Parts.size() > 0 ? Parts[0].str() : "";
    L.Function = Parts.size() > 1 ? Parts[1].str() : "";
    L.File = Parts.size() > 2 ? Parts[2].str() : "";
    if (Parts.size() > 3)
      L.SkipReason = Parts[3].str();
    if (Parts.size() > 4)
      L.Source = Parts[4].str();
    if (Parts.size() > 5)
      Parts[5].split('\0').first.getAsInteger(10, L.IterationStep);
    L.Line = R.line;
    L.Column = R.column;
    L.VariantMask = R.variant_mask;
    L.MInfo = R.minfo;
    Out.push_back(std::move(L));
    Off += R.record_size;
  }
  return Out;
}

Expected<std::optional<std::vector<MetaLoop>>> readLoopTable(StringRef Path) {
  auto Obj = object::ObjectFile::createObjectFile(Path);
  if (!Obj)
    return createStringError("'%s' is not an object file: %s",
                             Path.str().c_str(),
                             toString(Obj.takeError()).c_str());
  for (const object::SectionRef &S : Obj->getBinary()->sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name != ".decan.meta")
      continue;
    Expected<StringRef> Bytes = S.getContents();
    if (!Bytes)
      return Bytes.takeError();
    auto Loops = parseLoopTable(*Bytes);
    if (!Loops)
      return createStringError("'%s': %s", Path.str().c_str(),
                               toString(Loops.takeError()).c_str());
    return std::optional<std::vector<MetaLoop>>(std::move(*Loops));
  }
  return std::optional<std::vector<MetaLoop>>();
}
std::string demangleSymbol(StringRef Sym) { return llvm::demangle(Sym); }

} // namespace decan::tool
