// The plugin loads into clang-22, its machine pass runs after register
// allocation, and it reports every innermost loop with its location.
// RUN: %clang_decan -O2 -c -Rpass=decan %s -o %t.o 2>&1 | FileCheck %s

double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}
// CHECK: loop-report.c:[[@LINE-4]]:{{[0-9]+}}: remark: innermost loop in 'dot' (header bb.{{[0-9]+}}, {{[0-9]+}} instructions) [-Rpass=decan]

void nest(float *m, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      m[i * n + j] *= 2.0f;
}
// CHECK: loop-report.c:[[@LINE-3]]:{{[0-9]+}}: remark: innermost loop in 'nest'
// The outer i-loop is not innermost and is never reported.
// CHECK-NOT: loop-report.c:[[@LINE-8]]:{{.*}}remark
