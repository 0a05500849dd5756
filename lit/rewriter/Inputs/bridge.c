// Kernels for lit/rewriter/bridge.test (bridges, DL1 lookup chains).
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) double divcopy(const double *a, long n, double y, double x) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    double t = x / y;
    x = t + a[i];
    s += t;
  }
  return s + x;
}
__attribute__((noinline)) unsigned crc(const unsigned char *p, long n, const unsigned *t, unsigned c) {
  for (long i = 0; i < n; ++i)
    c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c;
}
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  double *a = calloc(n, sizeof(double));
  unsigned char *p = calloc(n, 1);
  static unsigned t[256];
  printf("%f %u\n", divcopy(a, n, 1.5, 1.0), crc(p, n, t, 0));
  return 0;
}
