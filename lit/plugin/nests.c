// Loop nests as one loop (-decan-nests, `decan flags --nests`): a 2-level
// nest whose inner loops are instrumented is outlined per variant like an
// innermost loop (id F:N<k>), the probes at the nest's entry and exits only,
// the variant's rules applied to the inner loops' bodies and to the outer
// level's own instructions. Without the option nothing changes.
//
// RUN: %clang_decan -O2 -S %s -o %t.off.s
// RUN: FileCheck --check-prefix=OFF %s < %t.off.s
// OFF-NOT: .decan.N0
//
// RUN: %clang_decan -O2 -S -mllvm -decan-nests -Rpass=decan \
// RUN:   -Rpass-missed=decan %s -o %t.s 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: FileCheck --check-prefix=FP %s < %t.s
// RUN: FileCheck --check-prefix=LS %s < %t.s
// RUN: FileCheck --check-prefix=ORIG %s < %t.s
//
// Every loop test of a nest is judged for the machine rules as an
// innermost loop's exit is: none reads memory here, so a load the machine
// code adds to one (a spilled bound, a stack argument) is no program
// store's.
// RUN: %clang_decan -O2 -S -emit-llvm -mllvm -decan-nests %s -o - \
// RUN:   | FileCheck --check-prefix=IR %s
// IR: define internal void @gemm.decan.N0.FP({{.*}}) #[[ATTRS:[0-9]+]]
//
// RUN: %clang_decan -O2 -S -mllvm -decan-nests -mllvm -decan-iteration-caps=0 \
// RUN:   -Rpass-missed=decan %s -o /dev/null 2>&1 \
// RUN:   | FileCheck --check-prefix=NOCAP %s

#define N 64
double A[N][N], B[N][N], C[N][N];
int len[N];

void gemm(int n) {
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      C[1][j] += A[1][k] * B[k][j];
}
// REMARK-DAG: nests.c:[[@LINE-4]]:{{[0-9]+}}: remark: loop gemm:N0 outlined into 6 variants
// REMARK-DAG: remark: variant FP of gemm:N0:
// REMARK-DAG: remark: variant LS of gemm:N0:
// REMARK-DAG: remark: variant CTRL of gemm:N0:

// A nest that calls is measured as an innermost loop that calls: the call
// kept in every variant, NO_CALL without it.
double ext(double);
void calls(int n) {
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      C[k][j] = ext(A[k][j]);
}
// REMARK-DAG: remark: loop calls:N0 outlined into 7 variants
// REMARK-DAG: remark: variant NO_CALL of calls:N0:
// REMARK-DAG: remark: variant LS of calls:N0: {{.*}}NO_CALL is its reference

// A loop test that reads memory: every variant copy counts each loop's
// iterations down from the descriptor's cap (field 17), starting over at
// each entry, and its trip count (the outer loop's) is not the nest's
// work: the copies carry decan-trips-unknown. Without caps, no nest.
void ragged(int n) {
  for (int k = 0; k < n; k++)
    for (int j = 0; j < len[k]; j++)
      C[k][j] += A[k][j];
}
// REMARK-DAG: remark: loop ragged:N0 outlined into 6 variants
// REMARK-DAG: remark: variant LS of ragged:N0:
// NOCAP: remark: nest ragged:N0 not instrumented: a loop test of the nest reads memory
// IR: define internal void @ragged.decan.N0.FP({{.*}}) #[[CAPPED:[0-9]+]]
// IR: [[CAP:%[0-9]+]] = load volatile i64, ptr getelementptr inbounds nuw (%decan.loop_desc, ptr @ragged.decan.N0.desc, i32 0, i32 17)
// IR: phi i64 [ [[CAP]], %{{[0-9]+}} ], [ %{{[0-9]+}}, %{{[0-9]+}} ]
// IR: phi i64 [ [[CAP]], %{{[0-9]+}} ], [ %{{[0-9]+}}, %{{[0-9]+}} ]
// IR: phi i64 [ [[CAP]], %{{[0-9]+}} ], [ %{{[0-9]+}}, %{{[0-9]+}} ]
// IR: {{^}}define
// IR-DAG: attributes #[[ATTRS]] = {{{.*}}"decan-exit-alias"="no"
// IR-DAG: attributes #[[CAPPED]] = {{{.*}}"decan-capped"{{.*}}"decan-trips-unknown"

// The FP copy: one start probe, the outer loop with its inner loops, whose
// loads are gone (arithmetic kept), one end probe.
// FP-LABEL: gemm.decan.N0.FP:
// FP: lfence
// FP-NEXT: rdtsc
// FP-NOT: rdtsc
// FP: This Loop Header: Depth=1
// FP-NOT: rdtsc
// FP: This Inner Loop Header: Depth=2
// FP-NOT: {{^[[:space:]]+mov.*\(}}
// FP: mulpd
// FP: addpd
// FP-NOT: {{^[[:space:]]+mov.*\(}}
// FP: jne
// FP-NOT: rdtsc
// FP: rdtscp
// FP-NEXT: lfence
// FP-NOT: rdtsc
// FP: .Lfunc_end
//
// The LS copy: memory kept (stores as loads), arithmetic gone.
// LS-LABEL: gemm.decan.N0.LS:
// LS: rdtsc
// LS: This Inner Loop Header: Depth=2
// LS-NOT: {{mulpd|addpd|movupd.*, .*\(}}
// LS: jne
// LS: rdtscp
//
// The program's own nest keeps its inner loop's stub and gains its own;
// the copies have no stub: an inner loop is not measured inside a nest
// call.
// ORIG-LABEL: gemm:
// ORIG: gemm.decan.N0.desc
// ORIG: gemm.decan.L0.desc
// ORIG-LABEL: gemm.decan.N0.REF:
// ORIG-NOT: call
// ORIG: rdtscp
