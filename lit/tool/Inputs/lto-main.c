// Calls the C library loop of cmake-shapes (ckern.c) across an LTO link.
#include <stdio.h>

double ckern(double *y, const double *x, int n);
// Not inlined into main by full LTO: the loop keeps its name.
static double (*volatile Kernel)(double *, const double *, int) = ckern;

int main(void) {
  static double x[2048], y[2048];
  for (int i = 0; i < 2048; ++i)
    x[i] = (double)(i % 7);
  double t = 0;
  for (int r = 0; r < 300; ++r)
    t += Kernel(y, x, 2048);
  printf("done %d\n", t > 0);
  return 0;
}
