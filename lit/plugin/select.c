#include <stdio.h>

__attribute__((noinline)) void first(int *a, int n) {
  for (int i = 0; i < n; ++i) // line 4
    a[i] = a[i] * 3 + 1;
}

void second(int *a, int n) {
  for (int i = 0; i < n; ++i) // line 9
    a[i] ^= i;
}

void chatty(int *a, int n) {
  for (int i = 0; i < n; ++i) // line 14
    first(a, i);
}

// Loop selection through -mllvm options (parsed because %clang_decan also
// loads the plugin with -Xclang -load), and remarks with file:line for both
// instrumented and skipped loops. The code is at the top of the file so
// that its line numbers stay put.
//
// RUN: %clang_decan -O2 -c %s -o %t.all.o -Rpass=decan -Rpass-missed=decan \
// RUN:   2>&1 | FileCheck --check-prefix=REMARKS %s
// RUN: llvm-nm %t.all.o | FileCheck --check-prefix=ALL %s
// RUN: %clang_decan -O2 -c %s -o %t.fn.o -mllvm -decan-functions=second
// RUN: llvm-nm %t.fn.o | FileCheck --check-prefix=FN %s
// RUN: %clang_decan -O2 -gline-tables-only -c %s -o %t.lines.o \
// RUN:   -mllvm -decan-lines=select.c:8-10
// RUN: llvm-nm %t.lines.o | FileCheck --check-prefix=FN %s
// RUN: %clang_decan -O2 -g -c %s -o %t.none.o -mllvm -decan-lines=other.c:1-100
// RUN: llvm-nm %t.none.o | FileCheck --check-prefix=NONE %s
// Without line information (no -g, no remarks) no loop matches, and the
// loop table says why.
// RUN: %clang_decan -O2 -S -emit-llvm %s -o - -mllvm -decan-lines=select.c:1-100 \
// RUN:   | FileCheck --check-prefix=NOLINE %s
// RUN: %clang_decan -O2 -c %s -o %t.yaml.o -fsave-optimization-record \
// RUN:   -foptimization-record-file=%t.yaml -mllvm -decan-functions=first
// RUN: FileCheck --check-prefix=YAML %s < %t.yaml

// REMARKS-DAG: select.c:4:3: remark: loop first:L0 outlined into 6 variants
// REMARKS-DAG: select.c:9:3: remark: loop second:L0 outlined into 6 variants
// A loop that calls a loop is instrumented too (the runtime measures the
// innermost loop; one that runs measured loops yields to them).
// REMARKS-DAG: select.c:14:3: remark: loop chatty:L0 outlined into 7 variants

// ALL-DAG: first.decan.L0.REF
// ALL-DAG: second.decan.L0.REF
// ALL-DAG: chatty.decan.L0.REF

// FN-NOT: first.decan.L{{[0-9]}}.REF
// FN: second.decan.L0.REF
// FN-NOT: first.decan.L{{[0-9]}}.REF

// NONE-NOT: .REF
// NONE: r first.decan.L0.meta
// NONE-NOT: .REF

// NOLINE: c"first:L0\00first\00\00not selected: no line information for -decan-lines (compile with -gline-tables-only or -g)\00

// YAML: Pass: decan
// YAML-NEXT: Name: LoopOutlined
// YAML-NEXT: DebugLoc: { File: '{{.*}}select.c', Line: 4, Column: 3 }
// YAML: --- !Missed
// YAML-NEXT: Pass: decan
// YAML-NEXT: Name: LoopSkipped
// YAML-NEXT: DebugLoc: { File: '{{.*}}select.c', Line: 9, Column: 3 }
// YAML: Reason: 'not selected (-decan-functions/-decan-lines)'
