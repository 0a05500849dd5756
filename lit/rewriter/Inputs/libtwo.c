// A shared library with two loops of which the program (-DMAIN) calls
// one: `decan run --lib` builds variants for the loop that runs only.
#include <stdio.h>
#ifndef MAIN
double used_sum(const double *a, long n, double f) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * f + 1.0;
  return s;
}
double unused_max(const double *a, long n) {
  double m = a[0];
  for (long i = 1; i < n; ++i)
    m = a[i] > m ? a[i] : m;
  return m;
}
#else
double used_sum(const double *a, long n, double f);
int main(void) {
  static double a[2048];
  double t = 0;
  for (int r = 0; r < 64; ++r) {
    for (int i = 0; i < 2048; ++i)
      a[i] = (i % 7) * 0.25 + r;
    t += used_sum(a, 2048 - r, 0.5);
  }
  printf("total=%.6f\n", t);
  return 0;
}
#endif
