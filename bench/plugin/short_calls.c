//===- short_calls.c - plugin overhead benchmark: many short loop calls ---===//
//
// Part of decan. The worst case for the unmeasured dispatch stub: small
// innermost loops called millions of times, so the one load + branch per
// call is as visible as it can be. Prints a checksum (same in every build).
//
//===----------------------------------------------------------------------===//

#include <stdio.h>

enum { N = 64, Calls = 4000000 };

static double a[N], b[N];
static int k[N];

__attribute__((noinline)) double dot(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) void axpy(double al, int n) {
  for (int i = 0; i < n; ++i)
    b[i] = al * a[i] + b[i] * 0.5;
}

__attribute__((noinline)) int find(int n, int key) {
  int i;
  for (i = 0; i < n; ++i)
    if (k[i] == key)
      break;
  return i;
}

int main(void) {
  for (int i = 0; i < N; ++i) {
    a[i] = i * 0.25;
    b[i] = 1.0;
    k[i] = (i * 37) % N;
  }
  double s = 0;
  long f = 0;
  for (int c = 0; c < Calls; ++c) {
    int n = N - (c & 7);
    s += dot(n);
    axpy(0.001, n);
    f += find(n, c % N);
  }
  printf("checksum %.6e %ld\n", s, f);
  return 0;
}
