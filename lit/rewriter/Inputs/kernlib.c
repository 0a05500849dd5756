// A shared library with a loop, and (with -DMAIN) a program that uses it.
#include <stdio.h>
#ifndef MAIN
double lib_sumsq(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * a[i];
  return s;
}
#else
double lib_sumsq(const double *a, long n);
int main(void) {
  static double a[4096];
  for (int i = 0; i < 4096; ++i)
    a[i] = (i % 13) * 0.5;
  double t = 0;
  for (int r = 0; r < 50; ++r)
    t += lib_sumsq(a, 4096 - r);
  printf("t=%.6f\n", t);
  return 0;
}
#endif
