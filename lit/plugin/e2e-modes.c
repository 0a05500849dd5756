// End to end: a multi-loop program (store loop, reduction, data-dependent
// exit, in-place update, division, scan) built with the plugin and linked
// with the real runtime, run unmeasured and in each mode.
//
// Output comparison with the plugin-free build:
//  * unmeasured, rotate, instance (all loops), replace with REF: identical;
//  * instance on one loop: the runtime exits once its instances are
//    measured, so the output is a prefix of the plain one;
//  * replace with a non-REF variant: the program runs with the variant's
//    effects (old DECAN behaviour, state may be corrupted): the output may
//    differ and is not compared; the run must still end normally.
//
// RUN: %clang -O2 %S/Inputs/kernels.c -o %t.plain
// RUN: %clang_decan -O2 %S/Inputs/kernels.c %decan_link -o %t.decan
// RUN: %t.plain > %t.plain.out
// RUN: %t.decan > %t.unmeasured.out
// RUN: diff %t.plain.out %t.unmeasured.out
// The loop table in .decan.meta, as `decan list` reads it from the file.
// RUN: %decan list --verbose %t.decan | FileCheck --check-prefix=LIST %s
//
// RUN: rm -rf %t.rotate && mkdir %t.rotate
// RUN: env DECAN_LOOPS=all DECAN_MODE=rotate DECAN_OUTPUT=%t.rotate %t.decan > %t.rotate.out
// RUN: diff %t.plain.out %t.rotate.out
// RUN: %python %S/Inputs/report.py summary %t.rotate | FileCheck --check-prefix=ROTATE %s
//
// RUN: rm -rf %t.replace && mkdir %t.replace
// RUN: env DECAN_LOOPS=all DECAN_MODE=replace DECAN_VARIANTS=REF DECAN_OUTPUT=%t.replace %t.decan > %t.replace.out
// RUN: diff %t.plain.out %t.replace.out
// RUN: %python %S/Inputs/report.py summary %t.replace | FileCheck --check-prefix=REPLACE %s
//
// RUN: rm -rf %t.replace-ls && mkdir %t.replace-ls
// RUN: env DECAN_LOOPS=all DECAN_MODE=replace DECAN_VARIANTS=LS DECAN_OUTPUT=%t.replace-ls %t.decan > %t.replace-ls.out
// RUN: %python %S/Inputs/report.py summary %t.replace-ls | FileCheck --check-prefix=REPLACE-LS %s
//
// RUN: rm -rf %t.instance && mkdir %t.instance
// RUN: env DECAN_LOOPS=all DECAN_MODE=instance DECAN_INSTANCE=3 DECAN_OUTPUT=%t.instance %t.decan > %t.instance.out
// RUN: diff %t.plain.out %t.instance.out
// RUN: %python %S/Inputs/report.py summary %t.instance | FileCheck --check-prefix=INSTANCE %s
//
// RUN: rm -rf %t.instance1 && mkdir %t.instance1
// RUN: env DECAN_LOOPS=axpy:L0 DECAN_MODE=instance DECAN_INSTANCE=5 DECAN_OUTPUT=%t.instance1 %t.decan > %t.instance1.out
// RUN: %python %S/Inputs/report.py prefix %t.plain.out %t.instance1.out
// RUN: %python %S/Inputs/report.py summary %t.instance1 | FileCheck --check-prefix=INSTANCE1 %s

// Every eligible variant of each hot loop is measured in one rotate run,
// and every measured REF call has its trip count.
// ROTATE: status complete mode rotate
// ROTATE: loop axpy:L0 measured REF,{{.*}} all-eligible yes ref-trips nonzero
// ROTATE: loop divide:L0 measured REF,{{.*}}NO_DIV{{.*}} all-eligible yes ref-trips nonzero
// ROTATE: loop dot:L1 measured REF,{{.*}} all-eligible yes ref-trips nonzero
// ROTATE: loop find:L0 measured REF{{.*}} all-eligible yes ref-trips nonzero
// ROTATE: loop prefix:L1 measured REF,{{.*}} all-eligible yes ref-trips nonzero

// LIST-DAG: {{^}}dot:L1 dot {{.*}}REF
// LIST-DAG: {{^}}find:L0 find {{.*}}REF
// LIST-DAG: {{^}}axpy:L0 axpy {{.*}}REF
// LIST-DAG: {{^}}divide:L0 divide {{.*}}REF
// LIST-DAG: {{^}}prefix:L1 prefix {{.*}}REF
// main's loop calls the kernels: instrumented too (it yields to them at
// its first call that runs one, and is then not measured).
// LIST:     {{^}}main:L0 main {{.*}} REF
// LIST-NEXT: not available: LS: unsupported (an exit condition reads memory the loop may write: a bound or flag
// LIST:      calls: 6; kept in every variant but NO_CALL

// REPLACE: status complete mode replace
// REPLACE: loop axpy:L0 measured REF all-eligible {{.*}} ref-trips nonzero
// REPLACE: loop find:L0 measured REF all-eligible {{.*}} ref-trips nonzero

// REPLACE-LS: status complete mode replace
// REPLACE-LS: loop axpy:L0 measured LS all-eligible

// INSTANCE: status complete mode instance
// INSTANCE: loop axpy:L0 measured REF,{{.*}} all-eligible yes ref-trips nonzero
// INSTANCE: loop find:L0 measured REF{{.*}} ref-trips nonzero

// INSTANCE1: status complete mode instance
// INSTANCE1: loop axpy:L0 measured REF,{{.*}} all-eligible yes ref-trips nonzero
// INSTANCE1-NOT: loop dot:L1 measured REF
