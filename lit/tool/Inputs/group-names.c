// Access groups named by their source array (lit/tool/group-names.test):
// `x + off` is advanced before the loop, no variable holds it; `y` is read
// at a masked index.
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) double kern(const double *x, const double *y, long off, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += (x + off)[i] * y[i & 255];
  return s;
}
int main(int argc, char **argv) {
  long n = 1 << 16;
  double *x = malloc(sizeof(double) * (n + 64)), *y = malloc(sizeof(double) * 256);
  for (long i = 0; i < n + 64; ++i) x[i] = i % 5;
  for (long i = 0; i < 256; ++i) y[i] = 0.5;
  double t = 0;
  for (int r = 0; r < 200; ++r) t += kern(x, y, r % 64, n);
  printf("%f\n", t);
  return 0;
}
