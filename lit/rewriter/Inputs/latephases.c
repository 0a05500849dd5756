// A shared library with one loop per phase of the program (-DMAIN): the
// second phase's loop first runs long after the first's, so late variants
// reach it in a second round of the same run.
#include <stdio.h>
#ifndef MAIN
double phase_a(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * 0.5 + 1.0;
  return s;
}
double phase_b(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] / (a[i] + 2.0);
  return s;
}
#else
double phase_a(const double *a, long n);
double phase_b(const double *a, long n);
int main(void) {
  static double a[1024];
  for (int i = 0; i < 1024; ++i)
    a[i] = (i % 7) * 0.25;
  double t = 0;
  for (int r = 0; r < 40000; ++r)
    t += phase_a(a, 1024 - (r % 8));
  for (int r = 0; r < 20000; ++r)
    t += phase_b(a, 1024 - (r % 8));
  printf("total=%.6f\n", t);
  return 0;
}
#endif
