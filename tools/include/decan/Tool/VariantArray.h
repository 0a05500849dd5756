//===- decan/Tool/VariantArray.h - One value per variant ------------------===//
//
// Part of decan. The tool keeps one value per variant (statistics,
// saturations, intervals) in a VariantArray indexed by decan::Variant, the
// producers' enum (decan/InstrKnowledge/Variants.h): an index is a variant,
// never a bare number. AllVariants lists them in enum decan_variant order.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_VARIANTARRAY_H
#define DECAN_TOOL_VARIANTARRAY_H

#include "decan/InstrKnowledge/Variants.h"

#include <array>

namespace decan::tool {

// The producers' enum and names, also for code that uses decan::tool.
using decan::NumVariants;
using decan::Variant;
using decan::variantName;

/// Every variant, in enum decan_variant order (REF first).
inline constexpr std::array<Variant, NumVariants> AllVariants = [] {
  std::array<Variant, NumVariants> A{};
  for (unsigned I = 0; I < NumVariants; ++I)
    A[I] = static_cast<Variant>(I);
  return A;
}();

/// DL1_Gk and NO_Gk of group \p K (K < DECAN_MAX_GROUPS).
inline constexpr Variant groupInL1(unsigned K) {
  return static_cast<Variant>(static_cast<unsigned>(Variant::DL1_G0) + K);
}
inline constexpr Variant groupRemoved(unsigned K) {
  return static_cast<Variant>(static_cast<unsigned>(Variant::NO_G0) + K);
}

/// A \p T per variant. Iterating it visits the values in AllVariants order.
template <typename T> class VariantArray {
public:
  T &operator[](Variant V) { return Items[static_cast<unsigned>(V)]; }
  const T &operator[](Variant V) const {
    return Items[static_cast<unsigned>(V)];
  }
  auto begin() { return Items.begin(); }
  auto end() { return Items.end(); }
  auto begin() const { return Items.begin(); }
  auto end() const { return Items.end(); }
  bool operator==(const VariantArray &O) const = default;

private:
  std::array<T, NumVariants> Items{};
};

} // namespace decan::tool

#endif // DECAN_TOOL_VARIANTARRAY_H
