// -decan-check-all-loops builds (without applying) every variant of every
// innermost loop of an ordinary -O2 build: here the vectorized loop and its
// scalar remainder, at three ISA levels. No variant is refused.
//
// RUN: %clang_decan -O2 -march=x86-64-v2 -c -mllvm -decan-check-all-loops -Rpass-analysis=decan %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang_decan -O2 -march=x86-64-v3 -c -mllvm -decan-check-all-loops -Rpass-analysis=decan %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang_decan -O2 -march=x86-64-v4 -mprefer-vector-width=512 -c -mllvm -decan-check-all-loops -Rpass-analysis=decan %s -o /dev/null 2>&1 | FileCheck %s

void triad(double *a, const double *b, const double *c, double s, long n) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i] / a[i];
}

// CHECK-COUNT-2: check triad bb.{{[0-9]+}}: REF ok {{[0-9]+}}/{{[0-9]+}}; LS ok [[#]]/[[#]]; FP ok {{.*}}; NO_DIV ok {{.*}}; DL1 ok {{.*}}; CTRL ok [[#]]/[[#]]
// CHECK-NOT: rejected
// CHECK-NOT: unsupported
