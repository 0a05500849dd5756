// Loops whose exit test reads memory, so that every variant copy carries an
// iteration cap (docs/variants.md, "Copies that could run forever"), for
// bench/plugin/cap_cost.py: what the count-down costs inside the timed loop.
#include <stdio.h>
#include <stdlib.h>

// A sentinel-terminated dot product: the exit loads a[i].
__attribute__((noinline)) double scan_dot(const int *restrict a,
                                          const double *restrict x,
                                          const double *restrict y) {
  double s = 0;
  for (long i = 0; a[i] >= 0; ++i)
    s += x[i] * y[i];
  return s;
}

// A sentinel-terminated transform with a store the exit cannot see.
__attribute__((noinline)) void scan_scale(const int *restrict a,
                                          float *restrict out,
                                          const float *restrict in) {
  for (long i = 0; a[i] >= 0; ++i)
    out[i] = in[i] * 3.0f + 1.0f;
}

int main(int argc, char **argv) {
  long n = 2048, reps = argc > 1 ? atol(argv[1]) : 20000;
  int *a = malloc((n + 1) * sizeof(int));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
  for (long i = 0; i < n; ++i) {
    a[i] = (int)i;
    x[i] = i * 0.5;
    y[i] = 1.0 / (i + 1);
    in[i] = (float)i;
  }
  a[n] = -1;
  double s = 0;
  for (long r = 0; r < reps; ++r) {
    s += scan_dot(a, x, y);
    scan_scale(a, out, in);
    s += out[r % n];
  }
  printf("%.6f\n", s);
  return 0;
}
