/*===- xcheck.c - Kernels for the variant cross-checks ---------*- C -*-===*\
|* Part of decan's validation suite (bench/run --crosscheck, see            *|
|* docs/validation.md). One program, one kernel per run:                    *|
|*   xcheck KERNEL N CALLS                                                  *|
|* Built with -DSRC_NODIV, the divisions are removed from the source: the   *|
|* ground truth NO_DIV is compared with, the way the thesis validates.      *|
\*===----------------------------------------------------------------------===*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#ifdef SRC_NODIV
#define DIV(x, y) (x)
#else
#define DIV(x, y) ((x) / (y))
#endif

/* A recurrence through a division, in registers. */
NOINLINE double divrec(const double *a, long n, double y, double x) {
  for (long i = 0; i < n; ++i)
    x = DIV(x, y) + a[i];
  return x;
}

/* The same recurrence through memory: a[i] from a[i - 1]. The store to c
   keeps the compiler from forwarding a[i - 1] in a register: main passes
   c = a + 1, so its run-time check sends every call to the loop that
   reloads a[i - 1] from memory. */
NOINLINE void divmem(double *a, double *c, long n, double y) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (long i = 1; i < n; ++i) {
    a[i] = DIV(a[i - 1], y) + 1.0;
    c[i] = 0.5;
  }
}

/* a[i] from a[i - d], d = 1 at run time: only the IR sees that the loop
   may carry a dependence through memory (LoopAccessAnalysis), the machine
   level cannot pair the accesses: variants that drop stores are bounds. */
NOINLINE void divmemd(double *a, long n, long d, double y) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (long i = d; i < n; ++i)
    a[i] = DIV(a[i - d], y) + 1.0;
}

/* A CRC-style lookup chain: each load's address depends on the previous
   result; table and data are L1-resident. */
NOINLINE uint32_t crc(const unsigned char *p, long n, const uint32_t *t,
                      uint32_t c) {
  for (long i = 0; i < n; ++i)
    c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c;
}

/* A 5-point stencil whose rows are 32 KiB apart. */
#define ROW 4096
NOINLINE void stencil(const double *restrict a, double *restrict b, long n) {
  for (long i = ROW; i < n - ROW; ++i)
    b[i] = 0.2 * (a[i - ROW] + a[i - 1] + a[i] + a[i + 1] + a[i + ROW]);
}

/* Random lookups into a large table (b[idx[i]], idx loaded): DL1 masks the
   index into the scratch window, keeping the idx -> b chain. */
NOINLINE double gsum(const double *restrict b, const int *restrict idx,
                     long n) {
  double s = 0;
#pragma clang loop vectorize(disable)
  for (long i = 0; i < n; ++i)
    s += b[idx[i]];
  return s;
}

/* Division-bound: measured through the plugin and through the rewriter. */
NOINLINE double divbound(const double *restrict a, const double *restrict b,
                         long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += DIV(a[i], b[i]);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr,
            "usage: xcheck divrec|divmem|divmemd|crc|stencil|gsum|divbound "
            "N CALLS [D]\n");
    return 2;
  }
  const char *k = argv[1];
  long n = atol(argv[2]), calls = atol(argv[3]);
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  unsigned char *p = malloc(n);
  int *idx = malloc(n * sizeof(int));
  long m = 1l << 22; /* gsum's table: 32 MiB */
  double *g = !strcmp(k, "gsum") ? malloc(m * sizeof(double)) : NULL;
  for (long i = 0; g && i < m; ++i)
    g[i] = i & 7;
  for (long i = 0; i < n; ++i)
    idx[i] = (int)((i * 2654435761u) % (unsigned long)m);
  static uint32_t t[256];
  for (long i = 0; i < n; ++i)
    a[i] = 1.0 + (i % 7), b[i] = 1.5 + (i % 3), p[i] = (unsigned char)(i * 13);
  for (int i = 0; i < 256; ++i)
    t[i] = i * 2654435761u;
  double s = 0;
  uint32_t c = 0;
  long d = argc > 4 ? atol(argv[4]) : 1;
  for (long r = 0; r < calls; ++r) {
    if (!strcmp(k, "divrec"))
      s += divrec(a, n, 1.5, s * 1e-9 + 1.0);
    else if (!strcmp(k, "divmem")) {
      a[0] = 1.0 + r;
      divmem(a, a + 1, n - 1, 1.5);
      s += a[n - 2];
    } else if (!strcmp(k, "divmemd")) {
      a[0] = 1.0 + r;
      divmemd(a, n, d, 1.5);
      s += a[n - 1];
    } else if (!strcmp(k, "crc"))
      c = crc(p, n, t, c);
    else if (!strcmp(k, "stencil")) {
      stencil(a, b, n);
      s += b[n / 2];
    } else if (!strcmp(k, "gsum")) {
      g[r % m] += 1;
      s += gsum(g, idx, n);
    } else if (!strcmp(k, "divbound"))
      s += divbound(a, b, n);
  }
  printf("%s %.6g %u\n", k, s, c);
  return 0;
}
