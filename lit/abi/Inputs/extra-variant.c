/* decan/abi.h and decan/abi_names.h, compiled as C with a table of one more
   variant, EXTRA (add-variant.test): the enum and the names have it. */
#include "decan/abi_names.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  if (DECAN_EXTRA != DECAN_NUM_VARIANTS - 1)
    return 1;
  if (strcmp(decan_variant_name(DECAN_EXTRA), "EXTRA") != 0)
    return 2;
  if (decan_variant_parse("EXTRA", 5) != DECAN_EXTRA)
    return 3;
  printf("C: %s is last\n", decan_variant_names[DECAN_NUM_VARIANTS - 1]);
  return 0;
}
