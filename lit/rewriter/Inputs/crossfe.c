// Kernels the cross-front-end test builds with the plugin, then rewrites
// the plugin's REF copies with the MC rewriter: both front ends must give
// the rules the same loop and get the same variants back.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

// A recurrence through a division, in registers.
NOINLINE double divrec(const double *a, long n, double y) {
  double x = 1.0;
  for (long i = 0; i < n; ++i)
    x = x / y + a[i];
  return x;
}

// The same recurrence through memory (a[i] from a[i-1]).
NOINLINE void divmem(double *a, long n, double y) {
  for (long i = 1; i < n; ++i)
    a[i] = a[i - 1] / y + 1.0;
}

// A CRC-style lookup chain: each load's address depends on the last result.
NOINLINE uint32_t crc(const unsigned char *p, long n, const uint32_t *t,
                      uint32_t c) {
  for (long i = 0; i < n; ++i)
    c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c;
}

// A 5-point stencil whose rows are 32 KiB apart.
#define ROW 4096
NOINLINE void stencil(const double *restrict a, double *restrict b, long n) {
  for (long i = ROW; i < n - ROW; ++i)
    b[i] = 0.2 * (a[i - ROW] + a[i - 1] + a[i] + a[i + 1] + a[i + ROW]);
}

// Loops that call (issue 13): libm with errno (sqrt: a cold call), exp,
// and a function of this file that writes memory.
NOINLINE void callsqrt(double *b, const double *a, long n) {
  for (long i = 0; i < n; ++i)
    b[i] = sqrt(a[i]);
}
NOINLINE void callexp(double *b, const double *a, long n) {
  for (long i = 0; i < n; ++i)
    b[i] = exp(a[i]);
}
static double Acc;
NOINLINE double opaque(double x) {
  Acc += x;
  return Acc;
}
NOINLINE void callopaque(double *b, const double *a, long n) {
  for (long i = 0; i < n; ++i)
    b[i] = opaque(a[i]);
}

// Issue 16: a dot product (NO_RED deletes the accumulator's adds, an FMA
// keeps its multiply) and a scaled copy (S2L, NO_STORE, PREFETCH).
NOINLINE double dotred(const double *a, const double *b, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}
NOINLINE void scalecopy(double *restrict b, const double *restrict a, long n,
                        double k) {
  for (long i = 0; i < n; ++i)
    b[i] = a[i] * k;
}

// Issue 13: memcpy's destination and source into DL1's scratch area, the
// length clamped (the plugin knows memcpy by its symbol, the rewriter by
// its PLT entry).
NOINLINE void callcpy(char *d, const char *s, long n, long len) {
  for (long i = 0; i < n; ++i)
    memcpy(d + i * 64, s + ((i * 7) & 15) * 64, len);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 3 * ROW;
  double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
  unsigned char *p = calloc(n, 1);
  uint32_t t[256];
  for (long i = 0; i < n; ++i)
    a[i] = 1.0 + (i % 7), p[i] = (unsigned char)(i * 13);
  for (int i = 0; i < 256; ++i)
    t[i] = i * 2654435761u;
  double s = divrec(a, n, 1.5);
  callsqrt(b, a, n);
  callexp(b, a, 64);
  callopaque(b, a, 64);
  s += b[7];
  s += dotred(a, a, n);
  scalecopy(b, a, n, 0.5);
  stencil(a, b, n);
  divmem(a, n, 1.5);
  callcpy((char *)b, (const char *)a, 16, 40 + n % 7);
  printf("%.6f %.6f %u\n", s, a[n - 1] + b[n / 2], crc(p, n, t, 0));
  return 0;
}
