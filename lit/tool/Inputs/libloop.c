// A shared library with a hot loop, and (with -DMAIN) a plain program that
// links to it: `decan run --lib` measures the library's loop.
#include <stdio.h>
#ifndef MAIN
double lib_scale_sum(const double *a, long n, double f) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * f + 1.0;
  return s;
}
#else
double lib_scale_sum(const double *a, long n, double f);
int main(void) {
  static double a[2048];
  double t = 0;
  for (int r = 0; r < 64; ++r) {
    // Refilled each round: a loop of the program's own, called often
    // enough to be measured when the program is plugin-built.
    for (int i = 0; i < 2048; ++i)
      a[i] = (i % 7) * 0.25 + r;
    t += lib_scale_sum(a, 2048 - r, 0.5);
  }
  printf("total=%.6f\n", t);
  return 0;
}
#endif
