// 3-level nests (-decan-nests): a 2-level nest whose calls are short by
// constant trip counts (fewer source iterations than
// -decan-nest-deepen-below, 8192) is timed at the loop around it, outlined
// with its variants as one nest (the probes around all three levels), and
// is not outlined itself. Not where a bound is unknown, nor at the top level
// of main (it runs once: nothing to rotate variants over).
//
// RUN: %clang_decan -O2 -S -mllvm -decan-nests -Rpass=decan \
// RUN:   -Rpass-missed=decan %s -o %t.s 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: FileCheck --check-prefix=NOT %s < %t.remarks
// RUN: FileCheck --check-prefix=FP %s < %t.s
//
// RUN: %clang_decan -O2 -S -mllvm -decan-nests \
// RUN:   -mllvm -decan-nest-deepen-below=0 -Rpass=decan %s -o /dev/null \
// RUN:   2>&1 | FileCheck --check-prefix=TWO %s

#define S 40
double H[S][S][3 * S], G[S][S][3 * S];

// j around k: 38 x 118 iterations a call.
void heat(void) {
  for (int i = 1; i < S - 1; i++)
    for (int j = 1; j < S - 1; j++)
      for (int k = 1; k < 3 * S - 1; k++)
        G[i][j][k] = H[i][j][k] * 0.5 + H[i][j][k - 1] * 0.25;
}
// REMARK-DAG: nests-deep.c:[[@LINE-5]]:{{[0-9]+}}: remark: loop heat:N0 outlined into 6 variants
// REMARK-DAG: remark: nest heat:N1 not instrumented: its calls are short: timed within the nest around it, heat:N0
// REMARK-DAG: remark: variant FP of heat:N0:
// REMARK-DAG: remark: variant LS of heat:N0:
// TWO: remark: loop heat:N0 outlined into 6 variants
// TWO-NOT: heat:N1

void unknown(int n) {
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      for (int k = 1; k < n; k++)
        G[i][j][k] = H[i][j][k] * 0.5 + H[i][j][k - 1] * 0.25;
}
// REMARK-DAG: remark: loop unknown:N0 outlined into 6 variants
// NOT-NOT: unknown:N1

int main(void) {
  for (int i = 1; i < S - 1; i++)
    for (int j = 1; j < S - 1; j++)
      for (int k = 1; k < 3 * S - 1; k++)
        G[i][j][k] = H[i][j][k] * 0.5;
  return 0;
}
// REMARK-DAG: nests-deep.c:[[@LINE-5]]:{{[0-9]+}}: remark: loop main:N0 outlined into 6 variants
// NOT-NOT: main:N1

// The FP copy: one start probe, the three levels, one end probe.
// FP-LABEL: heat.decan.N0.FP:
// FP: rdtsc
// FP-NOT: rdtsc
// FP: This Loop Header: Depth=1
// FP-NOT: rdtsc
// FP: This Loop Header: Depth=2
// FP-NOT: rdtsc
// FP: This Inner Loop Header: Depth=3
// FP-NOT: rdtsc
// FP: rdtscp
// FP-NOT: rdtsc
// FP: .Lfunc_end
