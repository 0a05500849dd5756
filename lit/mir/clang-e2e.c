// Through the whole plugin: clang-22 -O2 with decan outlines the loop
// (IR side) and the machine pass rewrites each variant. The induction
// variable the probes derive the trip count from survives in every variant,
// CTRL included; the meta record holds status and sizes.
//
// RUN: %clang_decan -O2 -march=x86-64-v3 -S -Rpass=decan %s -o %t.s 2>%t.err
// RUN: FileCheck %s < %t.s
// RUN: FileCheck %s --check-prefix=REM < %t.err

double divred(const double *a, const double *b, double *c, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    double q = a[i] / b[i];
    c[i] = q;
    s += q;
  }
  return s;
}

// REM: variant REF of divred:L[[L:[0-9]+]]: [[B:[0-9]+]] bytes (REF [[B]])
// REM: variant LS of divred:L[[L]]: [[B]] bytes
// REM: variant FP of divred:L[[L]]: [[B]] bytes
// REM: variant NO_DIV of divred:L[[L]]: [[B]] bytes
// REM: variant CTRL of divred:L[[L]]: [[B]] bytes

// CHECK: divred.decan.L[[L:[0-9]+]].REF:
// CHECK:      Inner Loop Header
// CHECK:      vdivsd ({{%r[a-z0-9]+}},%r[[IV:[a-z0-9]+]],8)
// CHECK:      incq %r[[IV]]
// CHECK: divred.decan.L[[L]].FP:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vpcmpeqd %xmm[[X:[0-9]+]], %xmm[[X]], %xmm[[X]]
// CHECK-NEXT: vpsrld $2, %xmm[[X]], %xmm[[X]]
// CHECK-NEXT: vdivsd %xmm[[X]], %xmm[[X]], %xmm[[X]]
// CHECK: divred.decan.L[[L]].CTRL:
// CHECK:      Inner Loop Header
// CHECK-NOT:  vdivsd
// CHECK:      incq %r[[IV]]
// CHECK:      jne
// CHECK: divred.decan.L[[L]].meta:
// CHECK-NEXT: .ascii "DCN1"
// CHECK-COUNT-7: .long
// CHECK-COUNT-6: .long 1{{$| }}
