// An integer loop. Scalar integer work is "other" (not FP): LS deletes it,
// FP keeps it (FP keeps every register-only instruction), CTRL keeps only
// the induction variable, compare and branch. A deleted GPR load whose
// value is still read becomes `xorl %reg, %reg` where the flags are dead
// (else `movl $0, %reg`: no input, no flags); a
// store turned into a load writes a register that is dead at that point.
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t.ll
// RUN: %mkvariants %t.ll integer > %tv.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan %tv.ll -o - 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REM < %t.err
// RUN: %clang %kflags -march=x86-64-v2 %s -o %t2.ll
// RUN: %mkvariants %t2.ll integer > %t2v.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan %t2v.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=REM

void integer(const int *a, const int *b, int *c, long n, int *out) {
  int s = 0;
  for (long i = 0; i < n; ++i) {
    int x = a[i] * 3 + b[i];
    c[i] = x ^ (x >> 2);
    s += x;
  }
  *out = s;
}

// REM: variant LS of integer:L0: [[B:[0-9]+]] bytes (REF [[B]])
// REM: variant FP of integer:L0: [[B]] bytes (REF [[B]])
// REM: variant CTRL of integer:L0: [[B]] bytes (REF [[B]])

// CHECK-LABEL: integer.decan.L0.REF:
// CHECK:      Inner Loop Header
// CHECK-NEXT: movl (%rdi,%r9,4), %r10d
// CHECK-NEXT: leal (%r10,%r10,2), %r10d
// CHECK-NEXT: addl (%rsi,%r9,4), %r10d
// CHECK-LABEL: integer.decan.L0.LS:
// CHECK:      Inner Loop Header
// CHECK-NEXT: movl (%rdi,%r9,4), %r10d
// CHECK-NEXT: nopl
// CHECK-NEXT: movl (%rsi,%r9,4), %r10d
// CHECK-NOT:  {{lea|sar|xor|add}}l
// CHECK:      movl (%rdx,%r9,4), %r11d
// CHECK-NEXT: nopl
// CHECK-NEXT: incq %r9
// CHECK-LABEL: integer.decan.L0.FP:
// CHECK:      Inner Loop Header
// CHECK-NEXT: xorl %r10d, %r10d
// CHECK-NEXT: nop
// CHECK-NEXT: leal (%r10,%r10,2), %r10d
// CHECK-NEXT: addl %r10d, %r10d
// CHECK-NOT:  (%r{{[sd]}}
// CHECK:      incq %r9
// CHECK-LABEL: integer.decan.L0.CTRL:
// CHECK:      Inner Loop Header
// CHECK-NOT:  {{mov|lea|add|sar|xor}}l
// CHECK:      incq %r9
// CHECK-NEXT: cmpq %r9, %rcx
// CHECK-NEXT: jne
