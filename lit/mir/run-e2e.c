// Built by the whole plugin and run by the runtime with every loop and
// every variant measured (rotate mode): the program prints what the plain
// build prints, at each ISA level (variants never corrupt program state).
//
// RUN: %clang -O2 -march=x86-64-v2 %s -o %t.plain && %t.plain > %t.want
// RUN: %clang_decan -O2 -march=x86-64-v2 %s %decan_link -o %t2
// RUN: rm -rf %t.d2 && mkdir %t.d2 && env DECAN_LOOPS=all DECAN_REPS=3 DECAN_OUTPUT=%t.d2 %t2 > %t2.out
// RUN: diff %t.want %t2.out
// RUN: %clang_decan -O2 -march=x86-64-v3 %s %decan_link -o %t3
// RUN: rm -rf %t.d3 && mkdir %t.d3 && env DECAN_LOOPS=all DECAN_REPS=3 DECAN_OUTPUT=%t.d3 %t3 > %t3.out
// RUN: diff %t.want %t3.out
// RUN: cat %t.d3/*.json | FileCheck %s --check-prefix=JSON
// RUN: %clang_decan -O2 -march=x86-64-v4 -mprefer-vector-width=512 %s %decan_link -o %t4
// RUN: %if cpu-avx512f %{ rm -rf %t.d4 && mkdir %t.d4 && env DECAN_LOOPS=all DECAN_REPS=3 DECAN_OUTPUT=%t.d4 %t4 > %t4.out %}
// RUN: %if cpu-avx512f %{ diff %t.want %t4.out %}
// REQUIRES: cpu-avx2

// Every variant of the division loop and of the integer loop ran; the
// exit loop is all CTRL slice, so its variants are EMPTY and only REF runs.
// JSON: "status":"complete"
// JSON: "id":"divred:L{{[0-9]+}}"{{.*}}"REF":{"calls":{{[1-9][0-9]*}}{{.*}}"LS":{"calls":{{[1-9][0-9]*}}{{.*}}"FP":{"calls":{{[1-9][0-9]*}}{{.*}}"NO_DIV":{"calls":{{[1-9][0-9]*}}{{.*}}"DL1":{"calls":{{[1-9][0-9]*}}{{.*}}"CTRL":{"calls":{{[1-9][0-9]*}}

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double divred(const double *a, const double *b,
                                        double *c, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    double q = a[i] / b[i];
    c[i] = q;
    s += q;
  }
  return s;
}

__attribute__((noinline)) long exitk(const double *a, double t, long n) {
  long i = 0;
  for (; i < n; ++i)
    if (a[i] > t)
      break;
  return i;
}

__attribute__((noinline)) int isum(const int *a, const int *b, int *c,
                                   long n) {
  int s = 0;
  for (long i = 0; i < n; ++i) {
    int x = a[i] * 3 + b[i];
    c[i] = x ^ (x >> 2);
    s += x;
  }
  return s;
}

int main(void) {
  long n = 4000;
  double *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
  int *ia = malloc(n * 4), *ib = malloc(n * 4), *ic = malloc(n * 4);
  for (long i = 0; i < n; ++i) {
    a[i] = i + 1;
    b[i] = 2;
    ia[i] = (int)i;
    ib[i] = 1;
  }
  double s = 0;
  long e = 0, is = 0;
  for (int r = 0; r < 30; ++r) {
    s += divred(a, b, c, n);
    e += exitk(a, 1000.5, n);
    is += isum(ia, ib, ic, n);
    c[r] += 1;
    ic[r] += 1;
  }
  printf("%.1f %ld %ld %.1f %d %.1f %d\n", s, e, is, c[n - 1], ic[n - 1], c[3],
         ic[3]);
  return 0;
}
