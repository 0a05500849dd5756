// Loops that call (issue 13): each is instrumented, REF times it with its
// calls, NO_CALL without them, and the other variants keep or delete each
// call by what it may do (docs/variants.md, "Calls"). Run end to end, every
// loop and variant measured, the program prints what the plain build
// prints (variants never write program memory; a variant's errno is put
// back).
//
// RUN: %clang -O2 %s -lm -o %t.plain && %t.plain > %t.want
// RUN: %clang_decan -O2 %s -lm %decan_link -Rpass=decan -Rpass-missed=decan -o %t 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: not grep 'NO_CALL of kplain' %t.remarks
// RUN: rm -rf %t.d && mkdir %t.d && env DECAN_LOOPS=all DECAN_REPS=3 DECAN_OUTPUT=%t.d %t > %t.out
// RUN: diff %t.want %t.out
// RUN: cat %t.d/*.json | sed 's/{"id":/\n{"id":/g' | FileCheck %s --check-prefix=JSON
// RUN: %decan list %t | FileCheck %s --check-prefix=LIST
// decan run end to end: NO_CALL measured, the calls' cost in words, and
// the variants that lost the calls compared with NO_CALL.
// RUN: %decan run --reps 5 -- %t > %t.run.out 2> %t.run.err
// RUN: diff %t.want %t.run.out
// RUN: FileCheck %s --check-prefix=TOOL < %t.run.err

// Every loop is outlined; loops that call get a seventh copy, NO_CALL.
// REMARK-DAG: loop ksqrt:L0 outlined into 7 variants
// REMARK-DAG: loop kexp:L0 outlined into 7 variants
// REMARK-DAG: loop kcpy:L0 outlined into 7 variants
// REMARK-DAG: loop kopaque:L0 outlined into 7 variants
// REMARK-DAG: loop kplain:L0 outlined into 6 variants
// sqrt with errno (default flags): sqrtsd inline, the libm call on a cold
// path; libm writes no memory but errno, so FP keeps the call.
// REMARK-DAG: variant NO_CALL of ksqrt:L0: {{[0-9]+}} bytes
// REMARK-DAG: variant FP of ksqrt:L0: {{[0-9]+}} bytes (REF {{[0-9]+}}) [-Rpass=decan]
// REMARK-DAG: variant NO_CALL of kexp:L0: {{[0-9]+}} bytes
// REMARK-DAG: variant FP of kexp:L0: {{[0-9]+}} bytes (REF {{[0-9]+}}) [-Rpass=decan]
// REMARK-DAG: variant LS of kexp:L0: {{.*}}; calls deleted
// memcpy writes its destination: deleted in every variant but REF.
// REMARK-DAG: variant NO_CALL of kcpy:L0: {{[0-9]+}} bytes
// REMARK-DAG: variant LS of kcpy:L0: {{.*}}; calls deleted
// An opaque function of this file that writes a global: deleted too.
// REMARK-DAG: variant NO_CALL of kopaque:L0: {{[0-9]+}} bytes
// REMARK-DAG: variant FP of kopaque:L0: {{.*}}; calls deleted
// REMARK-DAG: variant DL1 of kcpy:L0 unavailable (unsupported): the loop's memory work is memcpy/memset/memmove

// JSON: "status":"complete"
// JSON-NOT: "NO_CALL":{"calls"
// One line per loop: the sed above.
// JSON: "id":"ksqrt:L0"{{.*}}"calls_deleted":["LS","CTRL","NO_CALL"]{{.*}}"NO_CALL":{"calls":{{[1-9][0-9]*}}
// JSON-NEXT: "id":"kexp:L0"{{.*}}"calls_deleted":["LS","CTRL","NO_CALL"]{{.*}}"FP":{"calls":{{[1-9][0-9]*}}{{.*}}"NO_CALL":{"calls":{{[1-9][0-9]*}}
// JSON-NEXT: "id":"kcpy:L0"{{.*}}"NO_CALL":{"calls":{{[1-9][0-9]*}}
// JSON-NEXT: "id":"kopaque:L0"{{.*}}"NO_CALL":{"calls":{{[1-9][0-9]*}}

// LIST: ksqrt:L0 {{.*}} REF,LS,FP,NO_DIV,DL1,CTRL,NO_CALL
// LIST-NEXT: calls: {{[1-9]}}; deleted in LS, CTRL (a call that may write memory, or is not that variant's work: they are compared with NO_CALL)
// LIST: kexp:L0 {{.*}} REF,LS,FP,DL1,CTRL,NO_CALL
// LIST: calls: 1; deleted in LS, CTRL
// LIST: kcpy:L0 {{.*}} REF,LS,FP,CTRL,NO_CALL
// LIST: calls: {{[1-9]}}; deleted in LS, FP, CTRL
// LIST: kopaque:L0 {{.*}} REF,LS,FP,DL1,CTRL,NO_CALL
// LIST: calls: 1; deleted in LS, FP, DL1, CTRL
// LIST: kplain:L0 {{.*}} REF,LS,FP,DL1,CTRL
// LIST-NOT: calls:
// LIST-NOT: NO_CALL

// TOOL-DAG: {{^}}  NO_CALL {{.*}} 0.{{[0-9]+}}
// TOOL-DAG: diagnosis: calls cost {{[0-9]+}}% of this loop (Sat(NO_CALL)=
// TOOL-DAG: diagnosis: calls deleted in LS: Sat={{[0-9.]+}} against NO_CALL, CTRL: Sat={{[0-9.]+}} against NO_CALL
// TOOL-DAG: diagnosis: calls deleted in LS: Sat={{[0-9.]+}} against NO_CALL, FP: Sat={{[0-9.]+}} against NO_CALL, DL1: Sat={{[0-9.]+}} against NO_CALL, CTRL:

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
  printf("%.6e %ld %.6e\n", s, c, acc);
  return 0;
}
