// Division + reduction kernel at three ISA levels (SSE, AVX2, AVX-512).
// FP keeps the divisions and feeds them normal numbers (never 0, denormal,
// NaN or Inf from deleted loads); NO_DIV deletes them; the meta record gets
// status, loop bytes and subset sizes.
//
// RUN: %clang %kflags -march=x86-64-v2 -DVB=16 %s -o %t2.ll
// RUN: %mkvariants %t2.ll divred > %t2v.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks=decan %t2v.ll -o - 2>%t2.err | FileCheck %s --check-prefixes=V2
// RUN: FileCheck %s --check-prefix=REM < %t2.err
// RUN: %clang %kflags -march=x86-64-v3 -DVB=32 %s -o %t3.ll
// RUN: %mkvariants %t3.ll divred > %t3v.ll
// RUN: llc -O2 -load=%decan_plugin %t3v.ll -o - | FileCheck %s --check-prefixes=V3
// RUN: %clang %kflags -march=x86-64-v4 -mprefer-vector-width=512 -DVB=64 %s -o %t4.ll
// RUN: %mkvariants %t4.ll divred > %t4v.ll
// RUN: llc -O2 -load=%decan_plugin %t4v.ll -o - | FileCheck %s --check-prefixes=V4

typedef double vd __attribute__((vector_size(VB), aligned(8)));
void divred(const double *a, const double *b, double *c, long n, vd *out) {
  vd s = {0};
  for (long i = 0; i < n; i += VB / 8) {
    vd q = *(const vd *)&a[i] / *(const vd *)&b[i];
    *(vd *)&c[i] = q;
    s += q;
  }
  *out = s;
}

// REM: variant REF of divred:L0: [[REF:[0-9]+]] bytes (REF [[REF]])
// REM: variant LS of divred:L0: [[REF]] bytes
// REM: variant NO_DIV of divred:L0: [[REF]] bytes
// REM: variant CTRL of divred:L0: [[REF]] bytes

// V2-LABEL: divred.decan.L0.FP:
// V2:      Inner Loop Header
// V2-NEXT: pcmpeqd %xmm[[A:[0-9]+]], %xmm[[A]]
// V2-NEXT: psrld $2, %xmm[[A]]
// V2-NEXT: pcmpeqd %xmm[[B:[0-9]+]], %xmm[[B]]
// V2-NEXT: psrld $2, %xmm[[B]]
// V2-NEXT: divpd %xmm[[B]], %xmm[[A]]
// V2-NOT:  (%r
// V2:      jl
// V2-LABEL: divred.decan.L0.NO_DIV:
// V2-NOT:  divpd
// V2:      retq

// V3-LABEL: divred.decan.L0.FP:
// V3:      Inner Loop Header
// V3-NEXT: vpcmpeqd %ymm[[A:[0-9]+]], %ymm[[A]], %ymm[[A]]
// V3-NEXT: vpsrld $2, %ymm[[A]], %ymm[[A]]
// V3-NEXT: vdivpd %ymm[[A]], %ymm[[A]], %ymm[[A]]
// V3-NOT:  (%r
// V3:      jl
// V3-LABEL: divred.decan.L0.NO_DIV:
// V3-NOT:  vdivpd
// V3:      retq

// V4-LABEL: divred.decan.L0.FP:
// V4:      Inner Loop Header
// V4-NEXT: vpxord %zmm[[A:[0-9]+]], %zmm[[A]], %zmm[[A]]
// V4-NEXT: vpternlogd $255, %zmm[[A]], %zmm[[A]], %zmm[[A]]
// V4-NEXT: vpsrld $2, %zmm[[A]], %zmm[[A]]
// V4-NEXT: vdivpd %zmm[[A]], %zmm[[A]], %zmm[[A]]
// V4-NOT:  (%r
// V4:      jl
// V4-LABEL: divred.decan.L0.NO_DIV:
// V4-NOT:  vdivpd
// V4:      retq
// The meta record: status OK for all six, NO_CALL not built (no call), OK
// for S2L, NO_STORE, NO_RED (s += q) and PREFETCH, for DL1_G0..2 and
// NO_G0..2 (a, b, c: three groups), empty for G3; loop bytes (LS, NO_DIV,
// CTRL, S2L, NO_STORE and NO_RED keep REF's size, PREFETCH grows), then
// n_instrs, L, S, FP, DIV, CTRL, address, other.
// V4-LABEL: divred.decan.L0.meta:
// V4-NEXT: .ascii "DCN1"
// V4-COUNT-7: .long
// V4-COUNT-6: .long 1{{$| }}
// V4-NEXT: .long 0{{$| }}
// V4-COUNT-4: .long 1{{$| }}
// V4-COUNT-3: .long 1{{$| }}
// V4-NEXT: .long 5{{$| }}
// V4-COUNT-3: .long 1{{$| }}
// V4-NEXT: .long 5{{$| }}
// V4-NEXT: .long [[REF:[0-9]+]]
// V4-NEXT: .long [[REF]]
// V4-NEXT: .long {{[0-9]+}}
// V4-NEXT: .long [[REF]]
// V4-NEXT: .long {{[0-9]+}}
// V4-NEXT: .long [[REF]]
// V4-NEXT: .long 0{{$| }}
// V4-NEXT: .long [[REF]]
// V4-NEXT: .long [[REF]]
// V4-NEXT: .long [[REF]]
// V4-NEXT: .long {{[0-9]+}}
// V4-COUNT-8: .long {{[0-9]+}}
// V4-NEXT: .long 7{{$| }}
// V4-NEXT: .long 2{{$| }}
// V4-NEXT: .long 1{{$| }}
// V4-NEXT: .long 2{{$| }}
// V4-NEXT: .long 1{{$| }}
// V4-NEXT: .long 3{{$| }}
// V4-NEXT: .long 1{{$| }}
// V4-NEXT: .long 0{{$| }}
