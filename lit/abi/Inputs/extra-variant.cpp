//===- extra-variant.cpp - Consumers of a table of one more variant -------===//
//
// Part of decan's lit tests (add-variant.test): decan::Variant, its facts,
// the lists of `decan run` and their help text, and the names, compiled
// with a copy of decan/variants.def that has one more line, EXTRA.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/VariantTable.h"
#include "decan/abi_names.h"

#include <cstdio>
#include <cstring>

using namespace decan;

static_assert(NumVariants == DECAN_NUM_VARIANTS &&
              static_cast<unsigned>(Variant::EXTRA) == DECAN_EXTRA &&
              DECAN_EXTRA == NumVariants - 1);
static_assert(std::size(decan_variant_names) == NumVariants);
// The others keep their numbers (the ABI).
static_assert(static_cast<unsigned>(Variant::PREFETCH) == 10 &&
              DECAN_DL1_G0 == 11 && DECAN_NO_G3 == 18);
static_assert(variantInfo(Variant::EXTRA).Set == VariantSet::Extended &&
              referenceVariant(Variant::EXTRA) == Variant::S2L &&
              storePolicy(Variant::EXTRA) == DECAN_STORE_AS_LOAD &&
              variantInfo(Variant::EXTRA).Calls == KeptCalls::NoWrite &&
              variantGroup(Variant::EXTRA) == -1);
static_assert(variantsIn<VariantSet::Extended>().back() == Variant::EXTRA &&
              variantsIn<VariantSet::Extended, unsigned>().back() ==
                  DECAN_EXTRA);
static_assert(numVariantsIn(VariantSet::Default) +
                  numVariantsIn(VariantSet::Extended) +
                  numVariantsIn(VariantSet::Groups) ==
              NumVariants);

int main() {
  // name -> enum -> name, for every variant.
  for (unsigned V = 0; V < NumVariants; ++V) {
    const char *Name = VariantTable[V].Name;
    if (decan_variant_parse(Name, std::strlen(Name)) != static_cast<int>(V) ||
        std::strcmp(decan_variant_name(V), Name) != 0)
      return 1;
  }
  std::printf("C++: default %s\n",
              variantNamesIn(VariantSet::Default).c_str());
  std::printf("C++: extended %s\n",
              variantNamesIn(VariantSet::Extended).c_str());
  std::printf("C++: groups %s\n", variantNamesIn(VariantSet::Groups).c_str());
  std::printf("C++: colour %s\n", variantInfo(Variant::EXTRA).Colour);
  return 0;
}
