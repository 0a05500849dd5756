// A program built without decan's plugin (or, with -DWITH_MAIN, a smoke test
// that $(decan flags) compiles and links a program).
double sum(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i];
  return s;
}

#ifdef WITH_MAIN
#include "decan/runtime.h"
#include <stdio.h>
int main(void) {
  double a[100];
  for (int i = 0; i < 100; ++i)
    a[i] = i;
  printf("sum %g\n", sum(a, 100));
  return 0;
}
#endif
