// DL1 and the C library's memory work (issue 13): memcpy, memmove and
// memset calls in a loop are memory accesses DL1 makes L1 hits, as it does
// the loop's own. Their destination (and source) point into the second
// half of the loop's scratch area, their length is clamped to a quarter of
// it (2048 bytes), and the call stays: R11 and the flags, which the call
// clobbers and does not read, hold the clamp. Every other variant but REF
// deletes the call (variants never write program memory). Run with REF and
// DL1 only, the program prints what its plain build prints; `decan list`
// and the remark say what DL1 did to the calls.
//
// RUN: %clang -O2 %s -o %t.plain && %t.plain > %t.want
// RUN: %clang_decan -O2 -S %s -o - -Rpass=decan 2> %t.rem | FileCheck %s --check-prefix=ASM
// RUN: FileCheck %s --check-prefix=REM < %t.rem
// RUN: %clang_decan -O2 %s %decan_link -o %t
// RUN: rm -rf %t.d && mkdir %t.d
// RUN: env DECAN_LOOPS=all DECAN_VARIANTS=REF,DL1 DECAN_REPS=5 DECAN_OUTPUT=%t.d %t > %t.out
// RUN: diff %t.want %t.out
// RUN: cat %t.d/*.json | sed 's/{"id":/\n{"id":/g' | FileCheck %s --check-prefix=JSON
// RUN: %decan list --verbose %t | FileCheck %s --check-prefix=LIST
// RUN: %decan run --reps 5 -- %t > %t.run.out 2> %t.run.err
// RUN: diff %t.want %t.run.out
// RUN: FileCheck %s --check-prefix=TOOL < %t.run.err
#include <stdio.h>
#include <string.h>

char src[64][4096], dst[64][4096];

__attribute__((noinline)) void kcpy(int n, int len) {
  for (int i = 0; i < n; i++)
    memcpy(dst[i], src[(i * 7) & 63], len);
}

__attribute__((noinline)) void kmove(int n, int len) {
  for (int i = 0; i < n; i++)
    memmove(dst[i] + 1, dst[i], len);
}

__attribute__((noinline)) void kset(int n, int len) {
  for (int i = 0; i < n; i++)
    memset(dst[i], i, len);
}

int main(void) {
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 4096; j++)
      src[i][j] = (char)(i * 31 + j);
  unsigned long sum = 0;
  for (int r = 0; r < 200; r++) {
    // Lengths below and above the clamp: REF runs them all.
    int len = r % 2 ? 100 : 3000;
    kcpy(64, len);
    kmove(64, len);
    for (int i = 0; i < 64; i++)
      sum += (unsigned char)dst[i][r % 4096] + (unsigned char)dst[i][len];
    kset(64, len / 3);
    for (int i = 0; i < 64; i++)
      sum += (unsigned char)dst[i][r % 1000];
  }
  printf("%lu\n", sum);
  return 0;
}

// ASM-LABEL: kcpy.decan.L0.DL1:
// ASM:      leaq kcpy.decan.L0.scratch+4096(%rip), %rdi
// ASM-NEXT: leaq kcpy.decan.L0.scratch+6144(%rip), %rsi
// ASM-NEXT: movl $2048, %r11d
// ASM-NEXT: cmpq %r11, %rdx
// ASM-NEXT: cmovaq %r11, %rdx
// ASM-NEXT: callq memcpy@PLT
// ASM-LABEL: kmove.decan.L0.DL1:
// ASM:      leaq kmove.decan.L0.scratch+4096(%rip), %rdi
// ASM-NEXT: leaq kmove.decan.L0.scratch+6144(%rip), %rsi
// ASM-NEXT: movl $2048, %r11d
// ASM-NEXT: cmpq %r11, %rdx
// ASM-NEXT: cmovaq %r11, %rdx
// ASM-NEXT: callq memmove@PLT
// ASM-LABEL: kset.decan.L0.DL1:
// ASM:      leaq kset.decan.L0.scratch+4096(%rip), %rdi
// ASM-NEXT: movl $2048, %r11d
// ASM-NEXT: cmpq %r11, %rdx
// ASM-NEXT: cmovaq %r11, %rdx
// ASM-NEXT: callq memset@PLT

// REM-DAG: variant DL1 of kcpy:L0: {{[0-9]+}} bytes (REF {{[0-9]+}}); {{[0-9]+}} memcpy/memset/memmove call(s) redirected to the scratch area, lengths above 2048 bytes clamped to 2048
// REM-DAG: variant DL1 of kmove:L0: {{.*}}; {{[0-9]+}} memcpy/memset/memmove call(s) redirected
// REM-DAG: variant DL1 of kset:L0: {{.*}}; {{[0-9]+}} memcpy/memset/memmove call(s) redirected
// REM-DAG: variant LS of kcpy:L0: {{.*}}; calls deleted

// JSON: "id":"kcpy:L0"{{.*}}"dl1_memory_call_bytes":2048{{.*}}"DL1":{"calls":{{[1-9][0-9]*}}
// (kmove's and kset's loops come in two versions; one of each runs.)
// JSON: "id":"kmove:L{{[0-9]}}"{{.*}}"dl1_memory_call_bytes":2048{{.*}}"DL1":{"calls":{{[1-9][0-9]*}}
// JSON: "id":"kset:L{{[0-9]}}"{{.*}}"dl1_memory_call_bytes":2048{{.*}}"DL1":{"calls":{{[1-9][0-9]*}}

// LIST: kcpy:L0 {{.*}} REF,LS,FP,DL1,CTRL,NO_CALL
// LIST: calls: 1; deleted in LS, FP, CTRL
// LIST-NEXT: DL1: memcpy/memset/memmove redirected to the scratch area (destination and source), lengths above 2048 bytes clamped to 2048

// TOOL: diagnosis: DL1 redirected the loop's memcpy/memset/memmove to its scratch area, lengths above 2048 bytes clamped to 2048: where a call moves more, DL1 did less of its work than REF
