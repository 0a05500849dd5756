// Loops that call (issue 13): kernels calling sqrt (errno kept), exp,
// memcpy and a function of this file; built by lit/plugin/calls.test and
// rewritten by lit/rewriter/calls.test.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 2048
double a[N], b[N];
char src[64][128], dst[64][128];
static double acc;

__attribute__((noinline)) double opaque(double x) {
  acc += x;
  return acc * 0.5;
}

__attribute__((noinline)) void ksqrt(int n) {
  for (int i = 0; i < n; i++)
    a[i] = sqrt(b[i]);
}

__attribute__((noinline)) void kexp(int n) {
  for (int i = 0; i < n; i++)
    a[i] = exp(b[i] * 1e-3);
}

__attribute__((noinline)) void kcpy(int n, int len) {
  for (int i = 0; i < n; i++)
    memcpy(dst[i], src[(i * 7) & 63], len);
}

__attribute__((noinline)) void kopaque(int n) {
  for (int i = 0; i < n; i++)
    a[i] = opaque(b[i]);
}

__attribute__((noinline)) double kplain(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

// A loop calling a function with loops: those are measured, not this one.
static double dsum;
__attribute__((noinline)) double driver(int n) {
  for (int r = 0; r < n; r++)
    dsum += kplain(N - r);
  return dsum;
}

int main(void) {
  for (int i = 0; i < N; i++)
    b[i] = i % 17 - 3; // some negative: sqrt's errno path runs in REF
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 128; j++)
      src[i][j] = (char)(i * 3 + j);
  double s = 0;
  long c = 0;
  for (int r = 0; r < 200; r++) {
    errno = 0;
    ksqrt(N);
    int e = errno;
    for (int i = 0; i < N; i += 97)
      s += isnan(a[i]) ? 1 : a[i];
    kexp(N);
    s += a[5] + a[N - 1] + e;
    kcpy(64, 100 + r % 28);
    for (int i = 0; i < 64; i++)
      c += dst[i][r % 128] + dst[i][99];
    kopaque(N / 4);
    s += a[3] + acc;
    s += kplain(N);
  }
  s += driver(3);
  printf("%.6e %ld %.6e\n", s, c, acc);
  return 0;
}
