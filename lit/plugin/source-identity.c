// Each loop's source identity (abi.h, decan_loop_desc::source): origin
// function, file:line:col, enclosing loops, inlined-at chain; and its
// iteration step (source iterations per iteration). docs/pgo.md.
// RUN: %clang_decan -O2 -gline-tables-only -fno-unroll-loops -fno-vectorize -S -emit-llvm %s -o - | FileCheck %s

static inline void add(float *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] += 1;
}

// Inlined twice: the same origin and position, two inlined-at chains.
void f(float *a, int n) { add(a, n); }
void g(float *a, int n) { add(a, n); }

// Nested: the inner loop names the outer one's line:col.
void h(float *a, int n) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i += 2)
      a[i] *= j;
}

// CHECK-DAG: c"f:L0\00f\00{{[^"]*}}source-identity.c\00\00add|{{[^"]*}}source-identity.c:7:3||f@{{[^"]*}}source-identity.c:12:27\001\00
// CHECK-DAG: c"g:L0\00g\00{{[^"]*}}source-identity.c\00\00add|{{[^"]*}}source-identity.c:7:3||g@{{[^"]*}}source-identity.c:13:27\001\00
// CHECK-DAG: c"h:L0\00h\00{{[^"]*}}source-identity.c\00\00h|{{[^"]*}}source-identity.c:18:5|17:3|\002\00
