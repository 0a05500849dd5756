// An instruction no rule handles (x87 arithmetic for long double) leaves
// every variant but REF unavailable: status UNSUPPORTED (2) in the meta
// record, a remark naming the instruction, and the function body a jump to
// REF (the runtime never selects it: llvm-plugins/MachineUnusedCopy.h).
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t.ll
// RUN: %mkvariants %t.ll ldsum > %tv.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks-missed=decan %tv.ll -o %t.s 2>%t.err
// RUN: FileCheck %s --check-prefix=REM < %t.err
// RUN: FileCheck %s < %t.s

long double ldsum(const long double *a, long n) {
  long double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i];
  return s;
}

// REM: variant LS of ldsum:L0 unavailable (unsupported): unsupported instruction {{[A-Z_0-9]+}}F{{[A-Za-z0-9_]*}} in the loop
// REM: variant FP of ldsum:L0 unavailable (unsupported): unsupported instruction
// REM: variant NO_DIV of ldsum:L0 unavailable (unsupported)
// REM: variant DL1 of ldsum:L0 unavailable (unsupported)
// REM: variant CTRL of ldsum:L0 unavailable (unsupported)

// The unavailable variants jump to REF, which keeps its loop.
// CHECK-LABEL: ldsum.decan.L0.REF:
// CHECK:      Inner Loop Header
// CHECK-NEXT: fldt (%rdi)
// CHECK-LABEL: ldsum.decan.L0.CTRL:
// CHECK-NOT:  fldt
// CHECK:      jmp ldsum.decan.L0.REF # TAILCALL
// CHECK-NEXT: .Lfunc_end
// CHECK-LABEL: ldsum.decan.L0.meta:
// CHECK-NEXT: .ascii "DCN1"
// CHECK-COUNT-7: .long
// CHECK-NEXT: .long 1{{$| }}
// CHECK-COUNT-5: .long 2{{$| }}
