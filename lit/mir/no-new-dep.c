// No new dependence, none lost (thesis 6.5.2, Table 6.1). In FP the loads
// go. vmovhpd merges into the register it writes, so deleting it bridges
// its readers to that register's previous value: the vmovsd's, a pure load
// that passes nothing on and becomes a zero idiom of its destination --
// never `vxorps %dst, %src, %dst` at the vmovhpd (Table 6.1's V1, which the
// verifier rejects: test/InstrKnowledge/VerifierTest.cpp). Every variant
// passes the dependence verifier (a failure would be a remark).
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t.ll
// RUN: %mkvariants %t.ll polaris > %tv.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan -pass-remarks-missed=decan %tv.ll -o - 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REM < %t.err

#include <immintrin.h>
void polaris(const double *p, long n, __m128d *out) {
  __m128d s = _mm_setzero_pd(), t = _mm_setzero_pd();
  for (long i = 0; i < n; ++i) {
    const double *q = p + 8 * i;
    __m128d x = _mm_load_sd(q);
    __m128d y = _mm_load_sd(q + 1);
    __m128d z = _mm_loadh_pd(y, q + 3);
    x = _mm_loadh_pd(x, q + 2);
    s = _mm_add_pd(s, _mm_mul_pd(x, z));
    t = _mm_add_pd(t, z);
  }
  out[0] = s;
  out[1] = t;
}

// REM-NOT: rejected by the dependence verifier
// REM: variant LS of polaris:L0: [[B:[0-9]+]] bytes (REF [[B]])
// REM: variant FP of polaris:L0: [[B]] bytes (REF [[B]])
// REM: variant CTRL of polaris:L0: [[B]] bytes (REF [[B]])

// CHECK-LABEL: polaris.decan.L0.REF:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovsd -16(%rdi), %xmm[[X:[0-9]+]]
// CHECK-NEXT: vmovhpd (%rdi), %xmm[[X]], %xmm[[X]]
// CHECK-NEXT: vmovsd -24(%rdi), %xmm[[Z:[0-9]+]]
// CHECK-NEXT: vmovhpd -8(%rdi), %xmm[[Z]], %xmm[[Z]]
// CHECK-LABEL: polaris.decan.L0.FP:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vxorps %xmm[[X]], %xmm[[X]], %xmm[[X]]
// CHECK-NEXT: nop
// CHECK-NEXT: nopl
// CHECK-NEXT: vxorps %xmm[[Z]], %xmm[[Z]], %xmm[[Z]]
// CHECK-NEXT: nop
// CHECK-NEXT: nopl
// CHECK-NEXT: vmulpd %xmm[[Z]], %xmm[[X]], %xmm[[Z]]
