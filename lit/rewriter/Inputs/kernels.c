// Small kernels for the rewriter tests: a reduction, a store loop, a loop
// with a division, a loop with a call (measured since issue 13) and a
// driver whose output depends on every loop's results.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double dot(const double *a, const double *b,
                                     long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * b[i]; // DOT-BODY
  return s;
}

__attribute__((noinline)) void axpy(double *y, const double *x, double a,
                                    long n) {
  for (long i = 0; i < n; ++i)
    y[i] += a * x[i]; // AXPY-BODY
}

__attribute__((noinline)) double divsum(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += 1.0 / (a[i] + 1.0); // DIV-BODY
  return s;
}

__attribute__((noinline)) long calls(long n) {
  long s = 0;
  for (long i = 0; i < n; ++i)
    s += labs(rand() % 7 - 3); // CALL-BODY
  return s;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (long i = 0; i < n; ++i) {
    a[i] = (double)(i % 17) * 0.25;
    b[i] = 1.0 / (double)(i + 1);
  }
  double t = 0;
  for (int r = 0; r < 40; ++r) {
    axpy(a, b, 0.001, n);
    t += dot(a, b, n) + divsum(b, n);
  }
  srand(1);
  printf("t=%.9f calls=%ld\n", t, calls(100));
  return 0;
}
