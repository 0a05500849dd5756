//===- Report.cpp - The data model's helpers; reading a report file -------===//
//
// Part of decan. Variant names, sample summaries, and a report file read
// whatever it holds (raw: merged, RawMerger.cpp; analysed: ReportJSON.cpp).
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Report.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace decan::tool {

std::optional<Variant> parseVariant(StringRef Name) {
  int V = decan_variant_parse(Name.data(), Name.size());
  return V < 0 ? std::nullopt : std::optional<Variant>(static_cast<Variant>(V));
}

Expected<std::vector<Variant>> parseVariantList(StringRef List) {
  std::vector<Variant> Out;
  if (List.trim() == "all")
    return std::vector<Variant>(AllVariants.begin(), AllVariants.end());
  SmallVector<StringRef, 8> Parts;
  List.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    P = P.trim();
    auto V = parseVariant(P);
    if (!V) {
      std::string Known;
      for (Variant K : AllVariants)
        Known += (Known.empty() ? "" : ", ") + std::string(variantName(K));
      return createStringError("unknown variant '%s' (known: %s)",
                               P.str().c_str(), Known.c_str());
    }
    if (!is_contained(Out, *V))
      Out.push_back(*V);
  }
  if (Out.empty())
    return createStringError("empty variant list");
  return Out;
}

double median(std::vector<double> &Values) {
  if (Values.empty())
    return 0;
  std::sort(Values.begin(), Values.end());
  size_t N = Values.size();
  return N % 2 ? Values[N / 2] : (Values[N / 2 - 1] + Values[N / 2]) / 2;
}

Summary summarize(std::vector<double> &Values) {
  Summary S;
  if (Values.empty())
    return S;
  S.Median = median(Values); // sorts
  S.Min = Values.front();
  S.Max = Values.back();
  return S;
}

double stability(const Summary &S) {
  return S.Min > 0 ? (S.Median - S.Min) / S.Min : 0;
}

std::string parallelRuntimeOf(ArrayRef<std::string> Objects) {
  if (Objects.empty())
    return "";
  for (StringRef O : Objects) {
    StringRef Name = sys::path::filename(O);
    if (Name.starts_with("libgomp.") || Name.starts_with("libomp.") ||
        Name.starts_with("libiomp5."))
      return "openmp";
  }
  return "none";
}

bool isOpenMPOutlined(StringRef Function) {
  return Function.contains("omp_outlined") || Function.contains("._omp_fn.");
}

const LoopReport *Report::findLoop(StringRef Id) const {
  for (const LoopReport &L : Loops)
    if (L.Id == Id)
      return &L;
  return nullptr;
}

Expected<json::Value> readJSONFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError("cannot read '%s': %s", Path.str().c_str(),
                             Buf.getError().message().c_str());
  auto V = json::parse((*Buf)->getBuffer());
  if (!V)
    return createStringError("'%s' is not valid JSON: %s", Path.str().c_str(),
                             toString(V.takeError()).c_str());
  return V;
}

Expected<Report> readReportFile(StringRef Path, bool &WasRaw) {
  WasRaw = false;
  auto V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  if (const json::Object *O = V->getAsObject())
    if (std::optional<StringRef> F = O->getString("format");
        F && F->starts_with("decan-raw-")) {
      WasRaw = true;
      RawMerger M;
      if (Error E = M.add(*V, Path))
        return std::move(E);
      return M.finish();
    }
  auto R = reportFromJSON(*V);
  if (!R)
    return createStringError("'%s': %s", Path.str().c_str(),
                             toString(R.takeError()).c_str());
  return R;
}

} // namespace decan::tool
