// Prints the variables decan run sets for the runtime and the loader, so
// tests can check what reaches the measured program.
#include <stdio.h>
#include <stdlib.h>
static void show(const char *Name) {
  const char *V = getenv(Name);
  printf("%s=%s\n", Name, V ? V : "(unset)");
}
int main(void) {
  show("DECAN_FP_ENV");
  show("LD_LIBRARY_PATH");
  show("LD_PRELOAD");
  return 0;
}
