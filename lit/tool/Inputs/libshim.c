// A wrapper library, as Debian's libblas.so.3 is over OpenBLAS: it exports
// a kernel but forwards to libloop.so.1, where the loop is. With -DMAIN, a
// program that calls it.
#include <stdio.h>
double lib_scale_sum(const double *a, long n, double f);
#ifndef MAIN
double shim_scale_sum(const double *a, long n, double f) {
  return lib_scale_sum(a, n, f);
}
#else
double shim_scale_sum(const double *a, long n, double f);
int main(void) {
  static double a[2048];
  double t = 0;
  for (int r = 0; r < 64; ++r) {
    for (int i = 0; i < 2048; ++i)
      a[i] = (i % 7) * 0.25 + r;
    t += shim_scale_sum(a, 2048 - r, 0.5);
  }
  printf("total=%.6f\n", t);
  return 0;
}
#endif
