static inline void add(float *a, int n, float x) {
  for (int i = 0; i < n; i++) // line 2
    a[i] += x;
}

// One source loop, two instances: add inlined into hot and into cold.
void hot(float *a, int n) { add(a, n, 1); }
void cold(float *a, int n) { add(a, n, 2); }

// -decan-loops by instance (`decan flags --hot`): the loop of the report,
// FUNCTION:LINDEX, checked against its start; only that instance is
// instrumented, not every inlined copy of its source loop.
// RUN: %clang_decan -O2 -gline-tables-only -fno-vectorize -fno-unroll-loops \
// RUN:   -c %s -o %t.inst.o -mllvm -decan-loops=hot:L0@hot-instances.c:2:3
// RUN: llvm-nm %t.inst.o | FileCheck --check-prefix=INST %s
// INST-NOT: cold.decan.L0.REF
// INST: hot.decan.L0.REF
// INST-NOT: cold.decan.L0.REF

// By position, every instance (what -decan-loops=FILE:LINE:COL means, and
// what `decan flags --tune` selects).
// RUN: %clang_decan -O2 -gline-tables-only -fno-vectorize -fno-unroll-loops \
// RUN:   -c %s -o %t.pos.o -mllvm -decan-loops=hot-instances.c:2:3
// RUN: llvm-nm %t.pos.o | FileCheck --check-prefix=BOTH %s
// BOTH-DAG: hot.decan.L0.REF
// BOTH-DAG: cold.decan.L0.REF

// Another build than the one measured (hot has no L3, or its L0 does not
// start at 9:3): the loops of hot at that position stand in, with a
// warning; cold stays plain.
// RUN: %clang_decan -O2 -gline-tables-only -fno-vectorize -fno-unroll-loops \
// RUN:   -c %s -o %t.moved.o -mllvm -decan-loops=hot:L3@hot-instances.c:2:3 \
// RUN:   2>&1 | FileCheck --check-prefix=MOVED %s
// MOVED: warning: decan: -decan-loops: hot:L3 does not start at hot-instances.c:2:3 in this build (not the build that was measured?): instrumenting the loops of its function starting there
// RUN: llvm-nm %t.moved.o | FileCheck --check-prefix=INST %s
// RUN: %clang_decan -O2 -gline-tables-only -fno-vectorize -fno-unroll-loops \
// RUN:   -c %s -o %t.none.o -mllvm -decan-loops=hot:L0@hot-instances.c:9:3 \
// RUN:   2>&1 | FileCheck --check-prefix=NONE-WARN %s
// NONE-WARN: warning: decan: -decan-loops: hot:L0 does not start at hot-instances.c:9:3
// RUN: llvm-nm %t.none.o | FileCheck --check-prefix=NONE %s
// NONE-NOT: .REF

// The loop table says why cold's instance is plain.
// RUN: %clang_decan -O2 -gline-tables-only -fno-vectorize -fno-unroll-loops \
// RUN:   -S -emit-llvm %s -o - -mllvm -decan-loops=hot:L0@hot-instances.c:2:3 \
// RUN:   | FileCheck --check-prefix=WHY %s
// WHY: c"cold:L0\00cold\00{{[^"]*}}cold: not among the hot loops of -decan-loops (decan flags --hot)\00

// An instance must name a position.
// RUN: not %clang_decan -O2 -c %s -o /dev/null -mllvm -decan-loops=hot:L0@nowhere 2>&1 \
// RUN:   | FileCheck --check-prefix=BAD %s
// BAD: error: decan: bad -decan-loops entry 'hot:L0@nowhere': expected FUNCTION:LINDEX[@FILE:LINE:COL] or FILE:LINE[:COL]
