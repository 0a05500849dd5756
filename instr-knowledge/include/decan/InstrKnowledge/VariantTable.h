//===- VariantTable.h - decan's variants, from decan/variants.def -*- C++
//-*-===//
//
// Part of decan. The C++ face of decan/variants.def: `Variant` and what the
// table says of each (list, reference, stores, calls, group, colour), as
// constant expressions, and the lists `decan run` and `decan rewrite` take.
// Free of LLVM (lit/abi/add-variant.test compiles it with a longer table).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_VARIANTTABLE_H
#define DECAN_INSTRKNOWLEDGE_VARIANTTABLE_H

#include "decan/abi.h"

#include <array>
#include <cstddef>
#include <string>

namespace decan {

/// Variant indices, equal to enum decan_variant of decan/abi.h.
enum class Variant : unsigned {
#define DECAN_VARIANT(ID, NAME, SET, REFERENCE, STORES, CALLS, GROUP_KIND,     \
                      GROUP, COLOUR)                                           \
  NAME = ID,
#include "decan/variants.def"
};
constexpr unsigned NumVariants = DECAN_NUM_VARIANTS;

/// The list a variant belongs to (variants.def's SET): DEFAULT is what
/// `decan run` rotates unless asked otherwise, --extended and --groups add
/// the others.
enum class VariantSet : unsigned char { Default, Extended, Groups };
/// The calls outside the CTRL slice a variant keeps (CALLS).
enum class KeptCalls : unsigned char { All, None, Pure, ReadOnly, NoWrite };
/// GROUPING (GROUP_KIND): a group's accesses in L1, or removed.
enum class GroupKind : unsigned char { None, DL1, Removed };

/// One line of decan/variants.def.
struct VariantInfo {
  Variant V;
  const char *Name;
  VariantSet Set;
  /// The variant whose time this one's saturation divides.
  Variant Reference;
  decan_store_policy Stores;
  KeptCalls Calls;
  GroupKind Kind;
  int Group; ///< the memory group, or -1
  const char *Colour;
};

namespace variant_table {
// The table's tokens, as the macro below pastes them.
constexpr VariantSet SET_DEFAULT = VariantSet::Default;
constexpr VariantSet SET_EXTENDED = VariantSet::Extended;
constexpr VariantSet SET_GROUPS = VariantSet::Groups;
constexpr KeptCalls CALLS_ALL = KeptCalls::All;
constexpr KeptCalls CALLS_NONE = KeptCalls::None;
constexpr KeptCalls CALLS_PURE = KeptCalls::Pure;
constexpr KeptCalls CALLS_READ_ONLY = KeptCalls::ReadOnly;
constexpr KeptCalls CALLS_NO_WRITE = KeptCalls::NoWrite;
constexpr GroupKind GROUP_NONE = GroupKind::None;
constexpr GroupKind GROUP_DL1 = GroupKind::DL1;
constexpr GroupKind GROUP_REMOVED = GroupKind::Removed;
} // namespace variant_table

/// decan/variants.def, indexed by Variant.
inline constexpr VariantInfo VariantTable[] = {
#define DECAN_VARIANT(ID, NAME, SET, REFERENCE, STORES, CALLS, GROUP_KIND,     \
                      GROUP, COLOUR)                                           \
  {Variant::NAME,                                                              \
   #NAME,                                                                      \
   variant_table::SET_##SET,                                                   \
   Variant::REFERENCE,                                                         \
   DECAN_STORE_##STORES,                                                       \
   variant_table::CALLS_##CALLS,                                               \
   variant_table::GROUP_##GROUP_KIND,                                          \
   GROUP,                                                                      \
   COLOUR},
#include "decan/variants.def"
};

constexpr const VariantInfo &variantInfo(Variant V) {
  return VariantTable[static_cast<unsigned>(V)];
}

/// GROUPING: the group a DL1_Gk or NO_Gk variant targets, or -1.
constexpr int variantGroup(Variant V) { return variantInfo(V).Group; }
constexpr bool isGroupDL1(Variant V) {
  return variantInfo(V).Kind == GroupKind::DL1;
}
constexpr bool isGroupRemoval(Variant V) {
  return variantInfo(V).Kind == GroupKind::Removed;
}
/// What variant \p V does to the loop's stores (docs/design.md, "Stores in
/// variants"): what producers record in decan_machine_info::store_policy.
constexpr decan_store_policy storePolicy(Variant V) {
  return variantInfo(V).Stores;
}
/// The variant whose time \p V's saturation divides: REF, or S2L for the
/// variants that turn stores into loads beside what they measure.
constexpr Variant referenceVariant(Variant V) {
  return variantInfo(V).Reference;
}

/// How many variants \p S holds.
constexpr unsigned numVariantsIn(VariantSet S) {
  unsigned N = 0;
  for (const VariantInfo &I : VariantTable)
    N += I.Set == S;
  return N;
}
/// The variants of \p S as a mask of bits 1 << variant (variant_mask).
constexpr uint32_t variantMaskIn(VariantSet S) {
  uint32_t Mask = 0;
  for (const VariantInfo &I : VariantTable)
    if (I.Set == S)
      Mask |= 1u << static_cast<unsigned>(I.V);
  return Mask;
}
/// The variants of \p S in enum order, as Variant or as an index.
template <VariantSet S, typename T = Variant>
constexpr std::array<T, numVariantsIn(S)> variantsIn() {
  std::array<T, numVariantsIn(S)> Out{};
  unsigned N = 0;
  for (const VariantInfo &I : VariantTable)
    if (I.Set == S)
      Out[N++] = static_cast<T>(I.V);
  return Out;
}

/// The names of \p S's variants as help texts write them, comma-separated,
/// a run of one group kind shortened: "DL1_G0..DL1_G3,NO_G0..NO_G3".
inline std::string variantNamesIn(VariantSet S) {
  std::string Out;
  for (unsigned K = 0; K < NumVariants; ++K) {
    const VariantInfo &I = VariantTable[K];
    if (I.Set != S)
      continue;
    unsigned Last = K;
    while (I.Kind != GroupKind::None && Last + 1 < NumVariants &&
           VariantTable[Last + 1].Kind == I.Kind &&
           VariantTable[Last + 1].Set == S)
      ++Last;
    Out += (Out.empty() ? "" : ",") + std::string(I.Name);
    if (Last > K)
      Out += std::string("..") + VariantTable[Last].Name;
    K = Last;
  }
  return Out;
}

// What the table must say for its consumers to hold.
namespace variant_table {
constexpr bool wellFormed() {
  unsigned GroupsDL1 = 0, GroupsRemoved = 0;
  for (unsigned K = 0; K < NumVariants; ++K) {
    const VariantInfo &I = VariantTable[K];
    if (static_cast<unsigned>(I.V) != K)
      return false; // IDs in order, none left out: decan_variant_names
    const VariantInfo &R = VariantTable[static_cast<unsigned>(I.Reference)];
    if ((I.V == Variant::REF) != (I.Reference == I.V) ||
        R.Reference != Variant::REF)
      return false; // one step to REF at most
    if ((I.Kind == GroupKind::None) != (I.Group < 0) ||
        I.Group >= DECAN_MAX_GROUPS)
      return false;
    GroupsDL1 += I.Kind == GroupKind::DL1;
    GroupsRemoved += I.Kind == GroupKind::Removed;
  }
  return GroupsDL1 == DECAN_MAX_GROUPS && GroupsRemoved == DECAN_MAX_GROUPS;
}
} // namespace variant_table
static_assert(std::size(VariantTable) == NumVariants &&
                  variant_table::wellFormed(),
              "decan/variants.def: IDs 0..N-1 in order, references one step "
              "from REF, DECAN_MAX_GROUPS groups of each kind");
static_assert(NumVariants <= 32, "variant masks are 32-bit");
static_assert(VariantTable[0].V == Variant::REF &&
                  VariantTable[0].Set == VariantSet::Default,
              "REF is variant 0, in every rotation");

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_VARIANTTABLE_H
