// A data-dependent exit: the a[i] load, the compare and both branches form
// the CTRL slice with the induction variable, and stay byte-identical in
// every variant, so trip counts and exits never change.
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t.ll
// RUN: %mkvariants %t.ll exitk > %tv.ll
// RUN: llc -O2 -load=%decan_plugin -decan-dump-subsets %tv.ll -o %t.s 2>%t.err
// RUN: FileCheck %s --check-prefix=SUB < %t.err
// RUN: FileCheck %s < %t.s
// RUN: %clang %kflags -march=x86-64-v2 %s -o %t2.ll
// RUN: %mkvariants %t2.ll exitk > %t2v.ll
// RUN: llc -O2 -load=%decan_plugin %t2v.ll -o - | FileCheck %s --check-prefix=SSE

long exitk(const double *a, const double *b, double t, long n, double *out) {
  double s = 0;
  long i = 0;
  for (; i < n; ++i) {
    if (a[i] > t)
      break;
    s += a[i] * b[i];
  }
  *out = s;
  return i;
}

// SUB-LABEL: decan subsets of exitk.decan.L0.REF:
// SUB-NEXT: VMOVSDrm{{(_alt)?}} {{.*}} L PUREMEM CTRL
// SUB-NEXT: VUCOMISDrr {{.*}} FP CTRL
// SUB-NEXT: JCC_1 {{.*}} BR CTRL
// SUB-NEXT: VFMADD231SDm {{.*}} L FP RED{{$}}
// SUB-NEXT: INC64r {{.*}} OTHER CTRL ADDR
// SUB-NEXT: CMP64rr {{.*}} OTHER CTRL
// SUB-NEXT: JCC_1 {{.*}} BR CTRL

// CHECK-LABEL: exitk.decan.L0.REF:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovsd (%rdi,%rax,8), %xmm[[X:[0-9]+]]
// CHECK-NEXT: vucomisd %xmm0, %xmm[[X]]
// CHECK-NEXT: ja
// CHECK-NEXT: # %bb.{{[0-9]+}}:
// CHECK-NEXT: vfmadd231sd (%rsi,%rax,8)
// CHECK-NEXT: incq %rax
// CHECK-NEXT: cmpq %rax, %rdx
// CHECK-NEXT: jne

// LS: the load-op becomes a pure load; CTRL instructions unchanged.
// CHECK-LABEL: exitk.decan.L0.LS:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovsd (%rdi,%rax,8), %xmm[[X]]
// CHECK-NEXT: vucomisd %xmm0, %xmm[[X]]
// CHECK-NEXT: ja
// CHECK-NEXT: # %bb.{{[0-9]+}}:
// CHECK-NEXT: vmovsd (%rsi,%rax,8), %xmm
// CHECK-NEXT: nop
// CHECK-NEXT: incq %rax
// CHECK-NEXT: cmpq %rax, %rdx
// CHECK-NEXT: jne

// FP: the exit's load stays (it is CTRL), the other load goes.
// CHECK-LABEL: exitk.decan.L0.FP:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovsd (%rdi,%rax,8), %xmm[[X]]
// CHECK-NEXT: vucomisd %xmm0, %xmm[[X]]
// CHECK-NEXT: ja
// CHECK-NEXT: # %bb.{{[0-9]+}}:
// CHECK-NEXT: vfmadd231sd %xmm[[X]], %xmm[[X]], %xmm
// CHECK-NEXT: nop
// CHECK-NEXT: incq %rax
// CHECK-NEXT: cmpq %rax, %rdx
// CHECK-NEXT: jne

// DL1: the exit still reads the real array.
// CHECK-LABEL: exitk.decan.L0.DL1:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovsd (%rdi,%rax,8), %xmm[[X]]
// CHECK-NEXT: vucomisd %xmm0, %xmm[[X]]
// CHECK-NEXT: ja
// CHECK-NEXT: # %bb.{{[0-9]+}}:
// CHECK-NEXT: vfmadd231sd exitk.decan.L0.scratch(%rip)
// CHECK-NEXT: incq %rax

// CHECK-LABEL: exitk.decan.L0.CTRL:
// CHECK:      Inner Loop Header
// CHECK-NEXT: vmovsd (%rdi,%rax,8), %xmm[[X]]
// CHECK-NEXT: vucomisd %xmm0, %xmm[[X]]
// CHECK-NEXT: ja
// CHECK-NEXT: # %bb.{{[0-9]+}}:
// CHECK-NEXT: nopw
// CHECK-NEXT: incq %rax
// CHECK-NEXT: cmpq %rax, %rdx
// CHECK-NEXT: jne

// SSE-LABEL: exitk.decan.L0.CTRL:
// SSE:      Inner Loop Header
// SSE-NEXT: movsd (%rdi,%rax,8), %xmm[[X:[0-9]+]]
// SSE-NEXT: ucomisd %xmm0, %xmm[[X]]
// SSE-NEXT: ja
// SSE-NOT:  {{(mul|add)sd}}
// SSE:      jne
