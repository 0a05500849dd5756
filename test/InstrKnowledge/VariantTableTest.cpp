//===- VariantTableTest.cpp - What decan/variants.def says ----------------===//
//
// Part of decan's instr-knowledge tests. The facts the table gives each of
// the first 19 variants are the ones the hand-written switches gave before
// it (what producers record, so the copies and the reports stay the same),
// and the lists and help texts come out of it.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Variants.h"
#include "decan/abi_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

using namespace decan;

namespace {

struct Facts {
  const char *Name;
  decan_store_policy Stores;
  bool KeepsPure, KeepsReadOnly;
  int Group;
};

constexpr decan_store_policy Kept = DECAN_STORE_KEPT,
                             AsLoad = DECAN_STORE_AS_LOAD,
                             Scratch = DECAN_STORE_TO_SCRATCH,
                             Deleted = DECAN_STORE_DELETED;

// Before the table: storePolicy's and keepsCall's switches, variantGroup's
// ranges.
const Facts Before[] = {
    {"REF", Kept, true, true, -1},         {"LS", AsLoad, false, true, -1},
    {"FP", Deleted, true, false, -1},      {"NO_DIV", AsLoad, true, true, -1},
    {"DL1", Scratch, true, false, -1},     {"CTRL", Deleted, false, false, -1},
    {"NO_CALL", AsLoad, false, false, -1}, {"S2L", AsLoad, true, true, -1},
    {"NO_STORE", Deleted, true, true, -1}, {"NO_RED", AsLoad, true, true, -1},
    {"PREFETCH", AsLoad, true, true, -1},  {"DL1_G0", AsLoad, true, true, 0},
    {"DL1_G1", AsLoad, true, true, 1},     {"DL1_G2", AsLoad, true, true, 2},
    {"DL1_G3", AsLoad, true, true, 3},     {"NO_G0", AsLoad, true, true, 0},
    {"NO_G1", AsLoad, true, true, 1},      {"NO_G2", AsLoad, true, true, 2},
    {"NO_G3", AsLoad, true, true, 3}};

} // namespace

TEST(VariantTable, GivesTheFactsTheSwitchesGave) {
  static_assert(std::size(Before) <= NumVariants);
  for (unsigned K = 0; K < std::size(Before); ++K) {
    Variant V = static_cast<Variant>(K);
    const Facts &F = Before[K];
    EXPECT_STREQ(variantName(V), F.Name);
    EXPECT_STREQ(decan_variant_name(K), F.Name);
    EXPECT_EQ(storePolicy(V), F.Stores) << F.Name;
    EXPECT_EQ(keepsCall(V, CallKind::Pure), F.KeepsPure) << F.Name;
    EXPECT_EQ(keepsCall(V, CallKind::ReadOnly), F.KeepsReadOnly) << F.Name;
    EXPECT_EQ(keepsCall(V, CallKind::MayWrite), V == Variant::REF) << F.Name;
    EXPECT_EQ(keepsCall(V, CallKind::Memory), V == Variant::REF) << F.Name;
    EXPECT_EQ(variantGroup(V), F.Group) << F.Name;
    EXPECT_EQ(isGroupDL1(V), F.Group >= 0 && F.Name[0] == 'D') << F.Name;
    EXPECT_EQ(isGroupRemoval(V), F.Group >= 0 && F.Name[0] == 'N') << F.Name;
  }
}

TEST(VariantTable, NoRedAndPrefetchAreReadAgainstS2L) {
  for (unsigned K = 1; K < NumVariants; ++K) {
    Variant V = static_cast<Variant>(K);
    bool StoresAsLoadsBeside = V == Variant::NO_RED || V == Variant::PREFETCH;
    EXPECT_EQ(referenceVariant(V),
              StoresAsLoadsBeside ? Variant::S2L : Variant::REF)
        << variantName(V);
  }
  EXPECT_EQ(referenceVariant(Variant::REF), Variant::REF);
}

TEST(VariantTable, ListsAndTheirHelpText) {
  auto Default = variantsIn<VariantSet::Default>();
  EXPECT_TRUE(std::equal(
      Default.begin(), Default.end(),
      std::begin({Variant::REF, Variant::LS, Variant::FP, Variant::NO_DIV,
                  Variant::DL1, Variant::CTRL, Variant::NO_CALL})));
  EXPECT_EQ(variantNamesIn(VariantSet::Default),
            "REF,LS,FP,NO_DIV,DL1,CTRL,NO_CALL");
  EXPECT_EQ(variantNamesIn(VariantSet::Extended),
            "S2L,NO_STORE,NO_RED,PREFETCH");
  EXPECT_EQ(variantNamesIn(VariantSet::Groups), "DL1_G0..DL1_G3,NO_G0..NO_G3");
  auto Groups = variantsIn<VariantSet::Groups, unsigned>();
  ASSERT_EQ(Groups.size(), 2u * DECAN_MAX_GROUPS);
  EXPECT_EQ(Groups.front(), unsigned(DECAN_DL1_G0));
  EXPECT_EQ(Groups.back(), unsigned(DECAN_NO_G0 + DECAN_MAX_GROUPS - 1));
}
