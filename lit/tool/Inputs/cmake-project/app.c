// decan's CMake package test program: a loop worth measuring, and the
// runtime's public header (found through decan::runtime).
#include "decan/runtime.h"
#include <stdio.h>

__attribute__((noinline)) double axpy(double *y, const double *x, int n,
                                      double a) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    y[i] += a * x[i];
    s += y[i];
  }
  return s;
}

int main(void) {
  static double x[1024], y[1024];
  double t = 0;
  for (int i = 0; i < 1024; ++i)
    x[i] = i % 5;
  for (int r = 0; r < 100; ++r)
    t += axpy(y, x, 1024, 0.5);
  printf("t=%.1f active=%d\n", t, decan_active());
  return 0;
}
