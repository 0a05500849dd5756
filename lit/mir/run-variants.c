// The variants run (SSE, AVX2 and, where the CPU has it, AVX-512): no
// crash, REF computes the loop, and no other variant writes program memory
// (stores became loads, were deleted, or went to the scratch area). The
// machine verifier checks the rewritten functions.
//
// RUN: %clang %kflags -march=x86-64-v2 -DVB=16 %S/div-reduction.c -o %t2.ll
// RUN: %mkvariants %t2.ll divred > %t2v.ll
// RUN: llc -O2 -verify-machineinstrs -load=%decan_plugin -filetype=obj %t2v.ll -o %t2.o
// RUN: %clang -O1 -march=x86-64-v2 -DVB=16 %S/Inputs/run-divred.c %t2.o -o %t2.exe
// RUN: %t2.exe | FileCheck %s
// RUN: %clang %kflags -march=x86-64-v3 -DVB=32 %S/div-reduction.c -o %t3.ll
// RUN: %mkvariants %t3.ll divred > %t3v.ll
// RUN: llc -O2 -verify-machineinstrs -load=%decan_plugin -filetype=obj %t3v.ll -o %t3.o
// RUN: %clang -O1 -march=x86-64-v3 -DVB=32 %S/Inputs/run-divred.c %t3.o -o %t3.exe
// RUN: %t3.exe | FileCheck %s
// RUN: %clang %kflags -march=x86-64-v4 -mprefer-vector-width=512 -DVB=64 %S/div-reduction.c -o %t4.ll
// RUN: %mkvariants %t4.ll divred > %t4v.ll
// RUN: llc -O2 -verify-machineinstrs -load=%decan_plugin -filetype=obj %t4v.ll -o %t4.o
// RUN: %clang -O1 -march=x86-64-v4 -DVB=64 %S/Inputs/run-divred.c %t4.o -o %t4.exe
// RUN: %if cpu-avx512f %{ %t4.exe | FileCheck %s %}
// REQUIRES: cpu-avx2

// CHECK:      REF computes
// CHECK-NEXT: LS clean
// CHECK-NEXT: FP clean
// CHECK-NEXT: NO_DIV clean
// CHECK-NEXT: DL1 clean
// CHECK-NEXT: CTRL clean
