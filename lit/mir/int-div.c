// Integer division is in DIV (variable latency). It traps on a zero divisor,
// so FP (loads deleted) and DL1 (loads from the zero-filled scratch area)
// are unavailable when a division reads values loaded in the loop; LS,
// NO_DIV and CTRL delete the division and stay available.
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t.ll
// RUN: %mkvariants %t.ll idiv > %tv.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan -pass-remarks-missed=decan %tv.ll -o - 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REM < %t.err

int idiv(const int *a, const int *b, long n) {
  int s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] / b[i];
  return s;
}

// REM: variant LS of idiv:L0: [[B:[0-9]+]] bytes (REF [[B]])
// REM: variant FP of idiv:L0 unavailable (unsupported): integer division IDIV32m of values loaded in the loop: changed values could trap
// REM: variant NO_DIV of idiv:L0: [[B]] bytes (REF [[B]])
// REM: variant DL1 of idiv:L0 unavailable (unsupported): integer division
// REM: variant CTRL of idiv:L0: [[B]] bytes (REF [[B]])

// CHECK-LABEL: idiv.decan.L0.NO_DIV:
// CHECK:      Inner Loop Header
// CHECK-NOT:  idivl
// CHECK:      jne
