// A multi-loop program for the end-to-end plugin tests: a store loop, a
// reduction, a data-dependent exit, an in-place update, a division loop and
// a loop-carried integer scan, each called many times so that rotate mode
// measures every variant. All values stay normal (no denormals: measured
// calls run with FTZ/DAZ) and the output is exact decimal text.
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static double a[N], b[N], c[N];
static int keys[N];
static long scan[N];

__attribute__((noinline)) void init(int n, double s) {
  for (int i = 0; i < n; ++i) {
    a[i] = (i % 17) * 0.25 + s;
    b[i] = (i % 5) + 1.0;
    keys[i] = (i * 7919) % 1009;
  }
}

__attribute__((noinline)) double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}

/// Data-dependent exit: the first index whose key equals \p key, or n.
__attribute__((noinline)) int find(const int *k, int n, int key) {
  int i;
  for (i = 0; i < n; ++i)
    if (k[i] == key)
      break;
  return i;
}

__attribute__((noinline)) void axpy(double al, const double *x, double *y,
                                    int n) {
  for (int i = 0; i < n; ++i)
    y[i] = al * x[i] + y[i];
}

__attribute__((noinline)) void divide(const double *x, const double *y,
                                      double *z, int n) {
  for (int i = 0; i < n; ++i)
    z[i] = x[i] / y[i];
}

__attribute__((noinline)) long prefix(const int *k, long *out, int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) {
    s += k[i];
    out[i] = s;
  }
  return s;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 300;
  unsigned long check = 0;
  init(N, 1.0);
  for (int r = 0; r < rounds; ++r) {
    double d = dot(a, b, N - r % 7);
    int f = find(keys, N, (r * 37) % 1100);
    axpy(0.5, b, c, N);
    divide(a, b, c, N - r % 3);
    long p = prefix(keys, scan, N - r % 5);
    check = check * 31 + (unsigned long)(d * 4) + (unsigned long)f +
            (unsigned long)p + (unsigned long)(c[r % N] * 8) +
            (unsigned long)scan[r % 11];
    if (r % 50 == 0)
      printf("round %d: dot %.2f find %d prefix %ld c %.4f\n", r, d, f, p,
             c[r % N]);
  }
  printf("checksum %lu\n", check);
  return 0;
}
