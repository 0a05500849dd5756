// Layout: by default every deleted or replaced instruction keeps its REF
// byte length (multi-byte NOPs), so the loop's size equals REF's in LS, FP
// and CTRL (measured with llvm-objdump), and the size the pass records
// equals what the assembler emitted. -decan-layout=nop1 leaves one 1-byte
// NOP per deleted instruction, -decan-layout=unaware nothing.
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t.ll
// RUN: %mkvariants %t.ll lay > %tv.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan -filetype=obj %tv.ll -o %t.o 2>%t.err
// RUN: llvm-objdump -d %t.o | %loopbytes > %t.sizes
// RUN: cat %t.err %t.sizes | FileCheck %s
// RUN: llc -O2 -load=%decan_plugin -decan-layout=nop1 %tv.ll -o - | FileCheck %s --check-prefix=NOP1
// RUN: llc -O2 -load=%decan_plugin -decan-layout=unaware %tv.ll -o - | FileCheck %s --check-prefix=UNAWARE
// A misspelt mode is an error naming the valid ones, not a silent default.
// RUN: not llc -O2 -load=%decan_plugin -decan-layout=unawre %tv.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADLAYOUT
// BADLAYOUT: Cannot find option named 'unawre'!

typedef float vf __attribute__((vector_size(32), aligned(4)));
void lay(const float *a, const float *b, float *c, long n, vf *out) {
  vf s = {0};
  for (long i = 0; i < n; i += 8) {
    vf x = *(const vf *)&a[i] * *(const vf *)&b[i];
    *(vf *)&c[i] = x + *(vf *)&c[i];
    s += x;
  }
  *out = s;
}

// CHECK: variant REF of lay:L0: [[#REF:]] bytes
// CHECK: variant LS of lay:L0: [[#REF]] bytes (REF [[#REF]])
// CHECK: variant FP of lay:L0: [[#REF]] bytes (REF [[#REF]])
// CHECK: variant DL1 of lay:L0: [[#DL1:]] bytes
// CHECK: variant CTRL of lay:L0: [[#REF]] bytes (REF [[#REF]])
// CHECK-DAG: loop-bytes lay.decan.L0.REF [[#REF]] header-align 0
// CHECK-DAG: loop-bytes lay.decan.L0.LS [[#REF]] header-align 0
// CHECK-DAG: loop-bytes lay.decan.L0.FP [[#REF]] header-align 0
// CHECK-DAG: loop-bytes lay.decan.L0.DL1 [[#DL1]] header-align 0
// CHECK-DAG: loop-bytes lay.decan.L0.CTRL [[#REF]] header-align 0

// NOP1-LABEL: lay.decan.L0.CTRL:
// NOP1:      Inner Loop Header
// NOP1-NEXT: nop{{$}}
// NOP1-NEXT: nop{{$}}
// NOP1-NEXT: nop{{$}}
// NOP1-NEXT: nop{{$}}
// NOP1-NEXT: nop{{$}}
// NOP1-NEXT: addq $8

// UNAWARE-LABEL: lay.decan.L0.FP:
// UNAWARE:      Inner Loop Header
// UNAWARE-NEXT: vxorps
// UNAWARE-NEXT: vmulps
// UNAWARE-LABEL: lay.decan.L0.CTRL:
// UNAWARE:      Inner Loop Header
// UNAWARE-NEXT: addq $8
