// The copies of a loop that share their IR share their machine code
// (MachineCopyFromRef.h): REF and the uncapped copies, the capped copies
// among themselves. The first of each group is compiled; the others' IR is
// emptied before instruction selection and the kept machine function is
// installed before the variant rules. The object is the same, byte for
// byte (debug information included), as when every copy is compiled from
// its IR; each copy's code is its own function's in the line table.
//
// RUN: %clang_decan -O2 -g -c %s -o %t.on.o -mllvm -print-after=decan-variant-body-from-ref -mllvm -filter-print-funcs=axpy.decan.L0.REF,axpy.decan.L0.LS,scan.decan.L0.LS,scan.decan.L0.FP 2> %t.ir
// RUN: FileCheck %s --check-prefix=IR < %t.ir
// RUN: %clang_decan -O2 -g -c %s -o %t.off.o -mllvm -decan-copies-from-ref=false
// RUN: cmp %t.on.o %t.off.o
// RUN: llvm-objdump -d -l --no-show-raw-insn %t.on.o | FileCheck %s --check-prefix=LINES
// A frame pointer: the emptied copy's prologue left CFI entries in its
// table, which the installed CFI instructions index past.
// RUN: %clang_decan -O1 -g -fno-omit-frame-pointer -c %s -o %t.fp-on.o
// RUN: %clang_decan -O1 -g -fno-omit-frame-pointer -c %s -o %t.fp-off.o -mllvm -decan-copies-from-ref=false
// RUN: cmp %t.fp-on.o %t.fp-off.o

// REF is compiled; LS gets its machine code.
// IR: define internal void @axpy.decan.L0.REF(
// IR-NEXT: call i64 asm sideeffect
// IR: define internal void @axpy.decan.L0.LS(
// IR-NEXT: unreachable
// IR-NEXT: }
void axpy(double *y, const double *x, double a, int n) {
  for (int i = 0; i < n; ++i)
    y[i] += a * x[i] + 1.5;
}
// LINES: <axpy.decan.L0.LS>:
// LINES-NEXT: ; axpy.decan.L0.LS():
// LINES-NEXT: copies-from-ref.c:[[#@LINE-6]]

// The exit reads what the loop may store: every copy but REF is capped;
// LS, the first, is compiled and FP gets its machine code.
// IR: define internal void @scan.decan.L0.LS(
// IR-NEXT: load volatile i64
// IR: define internal void @scan.decan.L0.FP(
// IR-NEXT: unreachable
int scan(const int *p, int *q) {
  int i = 0;
  while (p[i] != 0) {
    q[i] = p[i] * 2;
    ++i;
  }
  return i;
}

// A jump table, copied with the function (the variants then become jumps
// to REF: the rules refuse an indirect branch).
int classify(const unsigned char *s, int n) {
  int c = 0;
  for (int i = 0; i < n; ++i)
    switch (s[i] & 7) {
    case 0: c += 3; break;
    case 1: c ^= 5; break;
    case 2: c *= 7; break;
    case 3: c -= 11; break;
    case 4: c += s[i]; break;
    case 5: c >>= 1; break;
    default: c++;
    }
  return c;
}

// Calls in the loop, a value kept across them in a callee-saved register
// (saved in the prologue: its CFI).
extern double g(double, int);
double calls(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += g(x[i] * 2, i);
  return s;
}
