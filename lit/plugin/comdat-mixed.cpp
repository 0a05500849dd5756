// A template instantiated in two translation units, instrumented in one and
// skipped (not selected) or built without the plugin in the other: whichever
// copy of the comdat group the linker keeps, everything decan emitted for it
// (copies, tables, descriptors, the constructor and its .init_array entry)
// is kept or dropped with it, so the program links in either object order,
// with the system linker (ld.bfd) and with lld, and runs as a plain build.
// RUN: rm -rf %t && mkdir %t
// RUN: %clang_decan -O2 -fno-inline-functions -c %s -o %t/inst.o
// RUN: %clang_decan -O2 -fno-inline-functions -mllvm -decan-functions=main -c %S/Inputs/comdat-mixed-main.cpp -o %t/skip.o
// RUN: %clang -O2 -fno-inline-functions -c %S/Inputs/comdat-mixed-main.cpp -o %t/plain.o
// RUN: %clang -O2 %t/inst.o %t/plain.o -o %t/ref -lstdc++
// RUN: %t/ref > %t/ref.out

// RUN: %clang %t/inst.o %t/skip.o %decan_link -o %t/bfd-inst-skip
// RUN: %clang %t/skip.o %t/inst.o %decan_link -o %t/bfd-skip-inst
// RUN: %clang %t/inst.o %t/plain.o %decan_link -o %t/bfd-inst-plain
// RUN: %clang %t/plain.o %t/inst.o %decan_link -o %t/bfd-plain-inst
// RUN: %clang -fuse-ld=lld %t/inst.o %t/skip.o %decan_link -o %t/lld-inst-skip
// RUN: %clang -fuse-ld=lld %t/skip.o %t/inst.o %decan_link -o %t/lld-skip-inst
// RUN: %clang -fuse-ld=lld %t/inst.o %t/plain.o %decan_link -o %t/lld-inst-plain
// RUN: %clang -fuse-ld=lld %t/plain.o %t/inst.o %decan_link -o %t/lld-plain-inst

// The linker keeps the first object's group: the instrumented copy's loop is
// registered and measured, the skipped or plain copy's never registered.
// RUN: rm -rf %t/r1 && mkdir %t/r1 && env DECAN_LOOPS=all DECAN_OUTPUT=%t/r1 %t/bfd-inst-skip | diff %t/ref.out -
// RUN: %python %S/Inputs/report.py summary %t/r1 | FileCheck --check-prefix=INST %s
// RUN: rm -rf %t/r2 && mkdir %t/r2 && env DECAN_LOOPS=all DECAN_OUTPUT=%t/r2 %t/lld-skip-inst | diff %t/ref.out -
// RUN: %python %S/Inputs/report.py summary %t/r2 | FileCheck --check-prefix=SKIP %s
// RUN: rm -rf %t/r3 && mkdir %t/r3 && env DECAN_LOOPS=all DECAN_OUTPUT=%t/r3 %t/lld-inst-plain | diff %t/ref.out -
// RUN: %python %S/Inputs/report.py summary %t/r3 | FileCheck --check-prefix=INST %s
// RUN: rm -rf %t/r4 && mkdir %t/r4 && env DECAN_LOOPS=all DECAN_OUTPUT=%t/r4 %t/bfd-plain-inst | diff %t/ref.out -
// RUN: %python %S/Inputs/report.py summary %t/r4 | FileCheck --check-prefix=PLAIN %s
// RUN: %t/bfd-skip-inst | diff %t/ref.out -
// RUN: %t/bfd-inst-plain | diff %t/ref.out -
// RUN: %t/lld-inst-skip | diff %t/ref.out -
// RUN: %t/lld-plain-inst | diff %t/ref.out -

// INST: loop _Z5sumsqIdET_PKS0_i:L{{[0-9]}} measured REF,LS,FP

// SKIP-NOT: _Z5sumsqIdET_PKS0_i
// SKIP: loop main:L0 measured REF
// SKIP-NOT: _Z5sumsqIdET_PKS0_i

// PLAIN-NOT: _Z5sumsqIdET_PKS0_i
#include "Inputs/comdat-mixed.h"

double side(const double *a, int n) { return sumsq(a, n) + 1; }
