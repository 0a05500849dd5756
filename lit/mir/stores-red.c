// S2L, NO_STORE, NO_RED, PREFETCH and GROUPING at three ISA levels (SSE, AVX2,
// AVX-512), on a kernel that stores (scale: c[i] = a[i] * k) and one that
// reduces (dot: s += a[i] * b[i]). S2L: the store becomes a load of the
// same address; NO_STORE: no store is left; NO_RED: the accumulator update
// is gone, the loads and the multiply stay; PREFETCH: a prefetcht0 follows
// each access; variants with nothing to change are "empty".
//
// RUN: %clang %kflags -march=x86-64-v2 -DVB=16 %s -o %t2.ll
// RUN: %mkvariants %t2.ll scale REF S2L NO_STORE NO_RED PREFETCH DL1_G0 NO_G0 NO_G1 > %t2s.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan -pass-remarks-missed=decan %t2s.ll -o - 2>%t2s.err | FileCheck %s --check-prefixes=SCALE,SCALE2
// RUN: FileCheck %s --check-prefix=REMS < %t2s.err
// RUN: %mkvariants %t2.ll dot REF S2L NO_RED PREFETCH > %t2d.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks-missed=decan %t2d.ll -o - 2>%t2d.err | FileCheck %s --check-prefixes=DOT,DOT2
// RUN: FileCheck %s --check-prefix=REMD < %t2d.err
// RUN: %clang %kflags -march=x86-64-v3 -DVB=32 %s -o %t3.ll
// RUN: %mkvariants %t3.ll scale REF S2L NO_STORE NO_RED PREFETCH DL1_G0 NO_G0 NO_G1 > %t3s.ll
// RUN: llc -O2 -load=%decan_plugin %t3s.ll -o - | FileCheck %s --check-prefixes=SCALE,SCALE3
// RUN: %mkvariants %t3.ll dot REF S2L NO_RED PREFETCH > %t3d.ll
// RUN: llc -O2 -load=%decan_plugin %t3d.ll -o - | FileCheck %s --check-prefixes=DOT,DOT3
// RUN: %clang %kflags -march=x86-64-v4 -mprefer-vector-width=512 -DVB=64 %s -o %t4.ll
// RUN: %mkvariants %t4.ll scale REF S2L NO_STORE NO_RED PREFETCH DL1_G0 NO_G0 NO_G1 > %t4s.ll
// RUN: llc -O2 -load=%decan_plugin %t4s.ll -o - | FileCheck %s --check-prefixes=SCALE,SCALE4
// RUN: %mkvariants %t4.ll dot REF S2L NO_RED PREFETCH > %t4d.ll
// RUN: llc -O2 -load=%decan_plugin %t4d.ll -o - | FileCheck %s --check-prefixes=DOT,DOT4

typedef double vd __attribute__((vector_size(VB), aligned(8)));
void scale(const double *a, double *c, long n, double k) {
  for (long i = 0; i < n; i += VB / 8)
    *(vd *)&c[i] = *(const vd *)&a[i] * k;
}
void dot(const double *a, const double *b, long n, vd *out) {
  vd s = {0};
  for (long i = 0; i < n; i += VB / 8)
    s += *(const vd *)&a[i] * *(const vd *)&b[i];
  *out = s;
}

// REMS: variant NO_RED of scale:L0 unavailable (empty): no reduction chain
// REMD: variant S2L of dot:L0 unavailable (empty): no store

// The store: REF writes c[i]; S2L reads it; NO_STORE and NO_RED write
// nothing; PREFETCH prefetches both a[i] and c[i].
// SCALE-LABEL: scale.decan.L0.REF:
// SCALE2:      movupd %xmm{{[0-9]+}}, (%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8)
// SCALE3:      vmovupd %ymm{{[0-9]+}}, (%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8)
// SCALE4:      vmovupd %zmm{{[0-9]+}}, (%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8)
// SCALE-LABEL: scale.decan.L0.S2L:
// SCALE:       Inner Loop Header
// SCALE2:      mulpd
// SCALE3:      vmulpd
// SCALE4:      vmulpd
// SCALE2-NEXT: movup{{[sd]}} (%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8), %xmm{{[0-9]+}}
// SCALE3-NEXT: vmovup{{[sd]}} (%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8), %ymm{{[0-9]+}}
// SCALE4-NEXT: vmovup{{[sd]}} (%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8), %zmm{{[0-9]+}}
// SCALE-NOT:   {{mov[a-z]*}} %{{[xyz]}}mm{{[0-9]+}}, {{.*}}(%r
// SCALE:       retq
// SCALE-LABEL: scale.decan.L0.NO_STORE:
// SCALE:       Inner Loop Header
// SCALE2:      mulpd
// SCALE3:      vmulpd
// SCALE4:      vmulpd
// SCALE-NOT:   {{mov[a-z]*}} %{{[xyz]}}mm{{[0-9]+}}, {{.*}}(%r
// SCALE-NOT:   {{mov[a-z]*}} {{.*}}(%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8), %{{[xyz]}}mm{{[0-9]+}}
// SCALE:       retq
// SCALE-LABEL: scale.decan.L0.PREFETCH:
// SCALE:       Inner Loop Header
// SCALE:       prefetcht0 (%r[[A:[a-z0-9]+]],%r[[I:[a-z0-9]+]],8)
// SCALE:       prefetcht0 (%r{{[a-z0-9]+}},%r[[I]],8)
// SCALE-NOT:   {{mov[a-z]*}} %{{[xyz]}}mm{{[0-9]+}}, {{.*}}(%r
// SCALE:       retq

// GROUPING: a is group 0, c group 1. DL1_G0 reads a from the scratch area
// and c's store becomes a load in place; NO_G0 removes a (the load an
// idiom, or the multiply in register form); NO_G1 removes the store.
// SCALE-LABEL: scale.decan.L0.DL1_G0:
// SCALE:       Inner Loop Header
// SCALE:       scale.decan.L0.scratch{{(\+[0-9]+)?}}(%rip)
// SCALE:       (%r{{[a-z0-9]+}},%r{{[a-z0-9]+}},8), %{{[xyz]}}mm
// SCALE:       retq
// SCALE-LABEL: scale.decan.L0.NO_G0:
// SCALE:       Inner Loop Header
// SCALE-NOT:   (%rdi
// SCALE:       (%rsi,%r{{[a-z0-9]+}},8), %{{[xyz]}}mm
// SCALE:       retq
// NO_G1 removes the store, all NO_STORE removes: NO_STORE's code, so a
// jump to it (llvm-plugins/MachineSharedCode.h).
// SCALE-LABEL: scale.decan.L0.NO_G1:
// SCALE-NEXT:  .cfi_startproc
// SCALE-NEXT:  # %bb.0:
// SCALE-NEXT:  jmp scale.decan.L0.NO_STORE # TAILCALL

// The reduction: NO_RED keeps both loads and the multiply, not the add (an
// FMA into the accumulator becomes its multiply, into a free register).
// DOT-LABEL: dot.decan.L0.REF:
// DOT2:        addpd
// DOT3:        vfmadd231pd
// DOT4:        vfmadd231pd
// DOT-LABEL:   dot.decan.L0.NO_RED:
// DOT:         Inner Loop Header
// DOT2:        mulpd
// DOT3:        vmulpd
// DOT4:        vmulpd
// DOT-NOT:     {{addpd|vfmadd}}
// DOT:         retq
// DOT-LABEL:   dot.decan.L0.PREFETCH:
// DOT:         Inner Loop Header
// DOT:         prefetcht0
// DOT:         prefetcht0
// DOT:         retq
