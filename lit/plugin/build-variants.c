#include <stdlib.h>

static double a[4096], b[4096];

__attribute__((noinline)) void kern(int n) {
  for (int i = 0; i < n; ++i) // line 6
    a[i] = a[i] * 1.5 + b[i];
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 300;
  for (int r = 0; r < reps; ++r)
    kern(4096);
  return a[17] > 1e300;
}

// The variants a plugin build outlines (issue 29): by default only what
// `decan run` rotates by default; `decan flags --extended`, --groups and
// --variants (-mllvm -decan-build-variants) build more. The loop table's
// variant_mask says which, `decan list` says once what was not built, and
// `decan run` asking for more says in one line which build it needs.
//
// RUN: rm -rf %t && mkdir %t
// RUN: %decan flags --cflags | FileCheck --check-prefix=FLAGS %s
// RUN: %decan flags --cflags --extended | FileCheck --check-prefix=FLAGS-EXT %s
// RUN: %decan flags --cflags --groups --extended | FileCheck --check-prefix=FLAGS-BOTH %s
// RUN: %decan flags --cflags --variants=all | FileCheck --check-prefix=FLAGS-ALL %s
// RUN: %decan flags --cflags --variants LS,S2L --groups | FileCheck --check-prefix=FLAGS-LIST %s
// RUN: not %decan flags --variants=LSX 2>&1 | FileCheck --check-prefix=FLAGS-BAD %s
// FLAGS: -fpass-plugin=
// FLAGS-NOT: decan-build-variants
// FLAGS-EXT: -fpass-plugin={{.*}} -Xclang -mllvm -Xclang -decan-build-variants=default,extended{{$}}
// FLAGS-BOTH: -Xclang -mllvm -Xclang -decan-build-variants=default,extended,groups{{$}}
// FLAGS-ALL: -Xclang -mllvm -Xclang -decan-build-variants=all{{$}}
// FLAGS-LIST: -Xclang -mllvm -Xclang -decan-build-variants=LS,S2L,groups{{$}}
// FLAGS-BAD: unknown variant 'LSX'
//
// The copies in the object: default, extended, every one. No NO_DIV copy:
// kern has no division, its NO_DIV is empty (llvm-plugins/IRVariantCopies.h).
// RUN: %clang -O2 $(%decan flags --cflags) -c %s -o %t/default.o
// RUN: llvm-nm %t/default.o | FileCheck --check-prefix=DEFAULT %s
// RUN: %clang -O2 $(%decan flags --cflags --extended) -c %s -o %t/extended.o
// RUN: llvm-nm %t/extended.o | FileCheck --check-prefix=EXTENDED %s
// RUN: %clang -O2 $(%decan flags --cflags --variants=all) -c %s -o %t/all.o
// RUN: llvm-nm %t/all.o | FileCheck --check-prefix=ALL %s
// DEFAULT-DAG: kern.decan.L0.REF
// DEFAULT-DAG: kern.decan.L0.LS
// DEFAULT-DAG: kern.decan.L0.FP
// DEFAULT-DAG: kern.decan.L0.DL1
// DEFAULT-DAG: kern.decan.L0.CTRL
// DEFAULT-NOT: kern.decan.L0.{{S2L|NO_STORE|NO_RED|PREFETCH|DL1_G|NO_G|NO_DIV}}
// EXTENDED-DAG: kern.decan.L0.CTRL
// EXTENDED-DAG: kern.decan.L0.S2L
// EXTENDED-DAG: kern.decan.L0.NO_STORE
// EXTENDED-DAG: kern.decan.L0.NO_RED
// EXTENDED-DAG: kern.decan.L0.PREFETCH
// EXTENDED-NOT: kern.decan.L0.{{DL1_G|NO_G}}
// ALL-DAG: kern.decan.L0.PREFETCH
// ALL-DAG: kern.decan.L0.DL1_G0
// ALL-DAG: kern.decan.L0.NO_G3
//
// A name the plugin does not know is an error.
// RUN: not %clang -O2 $(%decan flags --cflags) -mllvm -decan-build-variants=default,BOGUS -c %s -o %t/bad.o 2>&1 | FileCheck --check-prefix=BAD %s
// BAD: bad -decan-build-variants entry 'BOGUS'
//
// decan list: the built variants per loop, what was not built once.
// RUN: %clang -O2 $(%decan flags) %s -o %t/default
// RUN: %clang -O2 $(%decan flags --extended) %s -o %t/extended
// RUN: %decan list %t/default | FileCheck --check-prefix=LIST %s
// RUN: %decan list %t/extended | FileCheck --check-prefix=LIST-EXT %s
// LIST: kern:L0 {{.*}} REF,LS,FP,DL1,CTRL{{$}}
// LIST-NOT: not emitted
// LIST: not in this build: S2L, NO_STORE, NO_RED, PREFETCH (decan flags --extended, --groups or --variants build them)
// LIST-EXT: kern:L0 {{.*}} REF,LS,FP,DL1,CTRL,S2L,NO_STORE{{.*}}PREFETCH{{$}}
// LIST-EXT-NOT: not in this build
//
// decan run asking for variants the build lacks: one line, the flags that
// build them; the default ones are still measured.
// RUN: %decan run --extended -o %t/run-ext.txt -- %t/default 2> %t/run-ext.err
// RUN: FileCheck --check-prefix=RUN-EXT %s < %t/run-ext.err
// RUN: FileCheck --check-prefix=TABLE %s < %t/run-ext.txt
// RUN: %decan run --groups --variants LS -o %t/run-grp.txt -- %t/default 2>&1 | FileCheck --check-prefix=RUN-GRP %s
// RUN: %decan run --variants LS,S2L -o %t/run-list.txt -- %t/extended 2>&1 | FileCheck --allow-empty --check-prefix=RUN-NONE %s
// RUN: %decan run --variants=all -o %t/run-all.txt -- %t/extended 2>&1 | FileCheck --check-prefix=RUN-ALL %s
// RUN-EXT: decan: S2L,NO_STORE,NO_RED,PREFETCH not built in {{[0-9]+}} of {{[0-9]+}} loop(s): not measured; rebuild with $(decan flags --extended)
// TABLE: LS {{ *}}{{[1-9]}}
// TABLE-NOT: not-emitted
// RUN-GRP: decan: DL1_G0,{{.*}},NO_G3 not built in {{[0-9]+}} of {{[0-9]+}} loop(s): not measured; rebuild with $(decan flags --groups)
// RUN-NONE-NOT: not built
// RUN-ALL: decan: DL1_G0,{{.*}},NO_G3 not built in {{[0-9]+}} of {{[0-9]+}} loop(s): not measured; rebuild with $(decan flags --variants=all)
