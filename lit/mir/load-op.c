// Load-op heavy loop (SSE scalar, AVX2 FMA, AVX-512 FMA). LS: a load-op
// becomes a pure load of the same address and width into its destination.
// FP: it keeps the arithmetic with a register source -- the other source,
// never the destination (thesis Table 6.1) -- and deleted loads leave
// dependency-free zero idioms.
//
// RUN: %clang %kflags -march=x86-64-v2 -DVB=8 %s -o %t2.ll
// RUN: %mkvariants %t2.ll loadop > %t2v.ll
// RUN: llc -O2 -load=%decan_plugin %t2v.ll -o - | FileCheck %s --check-prefix=V2
// RUN: %clang %kflags -march=x86-64-v3 -DVB=32 %s -o %t3.ll
// RUN: %mkvariants %t3.ll loadop > %t3v.ll
// RUN: llc -O2 -load=%decan_plugin %t3v.ll -o - | FileCheck %s --check-prefix=V3
// RUN: %clang %kflags -march=x86-64-v4 -mprefer-vector-width=512 -DVB=64 %s -o %t4.ll
// RUN: %mkvariants %t4.ll loadop > %t4v.ll
// RUN: llc -O2 -load=%decan_plugin %t4v.ll -o - | FileCheck %s --check-prefix=V4

typedef double vd __attribute__((vector_size(VB), aligned(8)));
void loadop(const double *a, const double *b, const double *c, long n,
            vd *out) {
  vd s = {0}, t = {0};
  for (long i = 0; i < n; i += VB / 8) {
    vd x = *(const vd *)&a[i];
    s += x * *(const vd *)&b[i];
    t = t * *(const vd *)&c[i] + *(const vd *)&b[i];
  }
  out[0] = s;
  out[1] = t;
}

// V2-LABEL: loadop.decan.L0.REF:
// V2:      mulsd (%rdx,%rax,8), %xmm[[T:[0-9]+]]
// V2-LABEL: loadop.decan.L0.LS:
// V2:      Inner Loop Header
// V2-NEXT: movsd (%rsi,%rax,8), %xmm
// V2-NEXT: movsd (%rdi,%rax,8), %xmm
// V2-NEXT: nopl
// V2-NEXT: movsd (%rdx,%rax,8), %xmm[[T]]
// V2-NOT:  {{(mul|add)sd}}
// V2:      jne
// V2-LABEL: loadop.decan.L0.FP:
// V2:      Inner Loop Header
// V2-NEXT: xorps %xmm[[B:[0-9]+]], %xmm[[B]]
// V2:      mulsd %xmm[[T]], %xmm[[T]]
// V2-NOT:  (%r{{[sd]}}
// V2:      jne

// V3-LABEL: loadop.decan.L0.LS:
// V3:      Inner Loop Header
// V3-NEXT: vmovupd (%rsi,%rax,8), %ymm[[X:[0-9]+]]
// V3-NEXT: vmovups (%rdi,%rax,8), %ymm[[S:[0-9]+]]
// V3-NEXT: nop
// V3-NEXT: vmovups (%rdx,%rax,8), %ymm[[T:[0-9]+]]
// V3-NEXT: nop
// V3-NEXT: addq
// V3-LABEL: loadop.decan.L0.FP:
// V3:      Inner Loop Header
// V3-NEXT: vxorps %ymm[[X]], %ymm[[X]], %ymm[[X]]
// V3-NEXT: nop
// V3-NEXT: vfmadd231pd %ymm[[X]], %ymm[[X]], %ymm[[S]]
// V3-NEXT: nop
// V3-NEXT: vfmadd132pd %ymm[[X]], %ymm[[X]], %ymm[[T]]
// V3-NEXT: nop
// V3-NEXT: addq

// V4-LABEL: loadop.decan.L0.LS:
// V4:      Inner Loop Header
// V4-NEXT: vmovupd (%rsi,%rax,8), %zmm[[X:[0-9]+]]
// V4-NEXT: vmovups (%rdi,%rax,8), %zmm[[S:[0-9]+]]
// V4-NEXT: vmovups (%rdx,%rax,8), %zmm[[T:[0-9]+]]
// V4-NEXT: addq
// V4-LABEL: loadop.decan.L0.FP:
// V4:      Inner Loop Header
// V4-NEXT: vpxord %zmm[[X]], %zmm[[X]], %zmm[[X]]
// V4-NEXT: nop
// V4-NEXT: vfmadd231pd %zmm[[X]], %zmm[[X]], %zmm[[S]]
// V4-NEXT: nop
// V4-NEXT: vfmadd132pd %zmm[[X]], %zmm[[X]], %zmm[[T]]
// V4-NEXT: nop
// V4-NEXT: addq
