// DL1: every memory operand goes to the loop's scratch area, RIP-relative.
// Operands of one array (same base/index registers) keep their relative
// offsets (a[i] and a[i+4]: scratch+0 and scratch+32); each array starts on
// its own 64-byte line; the stores of an array whose address moves get
// lines no load touches (d[i] is loaded from +192 and stored to +256), so
// iteration i's store never forwards to iteration i+1's load, a memory
// dependence REF does not have.
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t.ll
// RUN: %mkvariants %t.ll dl1 > %tv.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan %tv.ll -o - 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REM < %t.err

typedef double vd __attribute__((vector_size(32), aligned(8)));
void dl1(const double *a, const double *b, double *c, double *d, long n) {
  for (long i = 0; i < n; i += 4) {
    vd x = *(const vd *)&a[i] + *(const vd *)&a[i + 4] * *(const vd *)&b[i];
    *(vd *)&c[i] = x;
    *(vd *)&d[i] = *(vd *)&d[i] * x;
  }
}

// The growth is the RIP-relative displacements (3 bytes per operand).
// REM: variant DL1 of dl1:L0: {{[0-9]+}} bytes (REF {{[0-9]+}}); loop grew by 17 bytes

// CHECK-LABEL: dl1.decan.L0.REF:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovupd 32(%rdi,%rax,8), %ymm0
// CHECK-NEXT: vmovupd (%rsi,%rax,8), %ymm1
// CHECK-NEXT: vfmadd213pd (%rdi,%rax,8), %ymm0, %ymm1
// CHECK-NEXT: vmovupd %ymm1, (%rdx,%rax,8)
// CHECK-NEXT: vmulpd (%rcx,%rax,8), %ymm1, %ymm0
// CHECK-NEXT: vmovupd %ymm0, (%rcx,%rax,8)
// CHECK-LABEL: dl1.decan.L0.DL1:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovupd dl1.decan.L0.scratch+32(%rip), %ymm0
// CHECK-NEXT: vmovupd dl1.decan.L0.scratch+64(%rip), %ymm1
// CHECK-NEXT: vfmadd213pd dl1.decan.L0.scratch(%rip), %ymm0, %ymm1
// CHECK-NEXT: vmovupd %ymm1, dl1.decan.L0.scratch+128(%rip)
// CHECK-NEXT: vmulpd dl1.decan.L0.scratch+192(%rip), %ymm1, %ymm0
// CHECK-NEXT: vmovupd %ymm0, dl1.decan.L0.scratch+256(%rip)
// CHECK-NEXT: addq $4, %rax
