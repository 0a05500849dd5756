// An inline function with a loop, emitted (linkonce_odr, in a comdat) by two
// translation units: the linker keeps one copy of the function and of all
// that describes its loops (copies, tables, descriptors, constructor), so
// each loop id is registered, measured and listed once.
// RUN: %clang_decan -O2 -fno-inline-functions -I%S/Inputs %s %S/Inputs/comdat-a.cpp %decan_link -o %t
// RUN: %clang -O2 -fno-inline-functions -I%S/Inputs %s %S/Inputs/comdat-a.cpp -o %t.plain
// RUN: llvm-nm %t | FileCheck --check-prefix=NM %s
// RUN: %t.plain > %t.plain.out
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: env DECAN_LOOPS=all DECAN_OUTPUT=%t.dir %t > %t.out
// RUN: diff %t.plain.out %t.out
// RUN: %python %S/Inputs/report.py summary %t.dir | FileCheck --check-prefix=REPORT %s
#include "comdat.h"
#include <cstdio>

double f1(const double *a, int n);

__attribute__((noinline)) double f2(const double *a, int n) {
  return hsum(a, n) * 2;
}

int main() {
  static double a[500];
  for (int i = 0; i < 500; ++i)
    a[i] = i;
  double t = 0;
  for (int r = 0; r < 300; ++r)
    t += f1(a, 500 - r % 4) + f2(a, 500);
  std::printf("%.1f\n", t);
}

// NM-COUNT-1: t _Z4hsumPKdi.decan.L0.REF
// NM-NOT: t _Z4hsumPKdi.decan.L0.REF
// NM: d _Z4hsumPKdi.decan.descs
// NM-NOT: d _Z4hsumPKdi.decan.descs

// REPORT: loop _Z4hsumPKdi:L0 measured REF
// REPORT-NOT: loop _Z4hsumPKdi:L0
