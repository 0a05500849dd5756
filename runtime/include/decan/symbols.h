//===- decan/symbols.h - Names of a loop's per-loop symbols -----*- C++ -*-===//
//
// Part of decan. The ONE place that spells the per-loop symbol scheme:
// `<function>.decan.<tag>.<suffix>`, the tag `L<index>` for a loop (id
// "function:L<index>"), `R<index>` for an outer-loop region, `RF` for a
// function region; the suffix a variant's name (decan/abi_names.h) or a
// table's ("meta", "scratch", "desc"). The plugin names its copies and
// tables so; `decan report --html` finds a loop's copies in the binary by
// these names. C++ only, free of LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_SYMBOLS_H
#define DECAN_SYMBOLS_H

#include <string>
#include <string_view>

namespace decan {

/// What every per-loop symbol's name contains.
inline constexpr std::string_view LoopSymbolInfix = ".decan.";

/// The tag of a loop's symbols: "L<index>", "R<index>" (an outer-loop
/// region) or "RF" (a function region).
inline std::string loopSymbolTag(unsigned Index, bool Region = false,
                                 bool WholeFunction = false) {
  if (!Region)
    return "L" + std::to_string(Index);
  return WholeFunction ? std::string("RF") : "R" + std::to_string(Index);
}

/// `<function>.decan.<tag>`: what every symbol of the loop starts with.
inline std::string loopSymbolStem(std::string_view Function,
                                  std::string_view Tag) {
  std::string Out(Function);
  Out.append(LoopSymbolInfix).append(Tag);
  return Out;
}

/// `<function>.decan.<tag>.<suffix>`.
inline std::string loopSymbol(std::string_view Function, std::string_view Tag,
                              std::string_view Suffix) {
  return loopSymbolStem(Function, Tag).append(".").append(Suffix);
}

/// The stem of loop \p LoopId's ("function:L<index>") symbols: "f:L0" ->
/// "f.decan.L0"; "" when the id has no ':'.
inline std::string loopSymbolStemOfId(std::string_view LoopId) {
  size_t Colon = LoopId.rfind(':');
  if (Colon == std::string_view::npos)
    return "";
  return loopSymbolStem(LoopId.substr(0, Colon), LoopId.substr(Colon + 1));
}

/// Loop \p LoopId's \p Suffix symbol: "f:L0", "NO_DIV" ->
/// "f.decan.L0.NO_DIV"; "" when the id has no ':'.
inline std::string loopSymbolOfId(std::string_view LoopId,
                                  std::string_view Suffix) {
  std::string Stem = loopSymbolStemOfId(LoopId);
  return Stem.empty() ? Stem : Stem.append(".").append(Suffix);
}

} // namespace decan

#endif // DECAN_SYMBOLS_H
