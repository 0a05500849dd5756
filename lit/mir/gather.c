// Gathers (AVX2 and AVX-512). The gather is a load: LS keeps it with the
// mask and index computations (they are its address slice); FP deletes
// it; DL1 is unavailable (a vector index cannot address the scratch area
// RIP-relative), with a remark.
//
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t3.ll
// RUN: %mkvariants %t3.ll gather > %t3v.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks-missed=decan %t3v.ll -o - 2>%t3.err | FileCheck %s --check-prefix=V3
// RUN: FileCheck %s --check-prefix=REM < %t3.err
// RUN: %clang %kflags -march=x86-64-v4 %s -o %t4.ll
// RUN: %mkvariants %t4.ll gather > %t4v.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks-missed=decan %t4v.ll -o - 2>%t4.err | FileCheck %s --check-prefix=V4
// RUN: FileCheck %s --check-prefix=REM < %t4.err

#include <immintrin.h>
#ifdef __AVX512F__
void gather(const double *a, const int *idx, long n, __m512d *out) {
  __m512d s = _mm512_setzero_pd();
  for (long i = 0; i < n; i += 8) {
    __m256i x = _mm256_loadu_si256((const __m256i *)&idx[i]);
    s = _mm512_add_pd(s, _mm512_i32gather_pd(x, a, 8));
  }
  *out = s;
}
#else
void gather(const double *a, const int *idx, long n, __m256d *out) {
  __m256d s = _mm256_setzero_pd();
  for (long i = 0; i < n; i += 4) {
    __m128i x = _mm_loadu_si128((const __m128i *)&idx[i]);
    s = _mm256_add_pd(s, _mm256_i32gather_pd(a, x, 8));
  }
  *out = s;
}
#endif

// REM: variant DL1 of gather:L0 unavailable (unsupported): gather/scatter VGATHERDPD{{Y|Z}}rm: a vector index cannot address the scratch area
// REM-NOT: variant {{LS|FP|CTRL}} of gather:L0 unavailable

// V3-LABEL: gather.decan.L0.LS:
// V3:      Inner Loop Header
// V3-NEXT: vmovupd (%rsi,%rax,4), %xmm[[I:[0-9]+]]
// V3-NEXT: vxorpd
// V3-NEXT: vpcmpeqd %ymm[[M:[0-9]+]], %ymm[[M]], %ymm[[M]]
// V3-NEXT: vgatherdpd %ymm[[M]], (%rdi,%xmm[[I]],8), %ymm
// V3-NEXT: nop
// V3-LABEL: gather.decan.L0.FP:
// V3:      Inner Loop Header
// V3-NOT:  vgatherdpd
// V3:      vaddpd
// V3-LABEL: gather.decan.L0.DL1:
// V3:      vgatherdpd %ymm{{[0-9]+}}, (%rdi,

// V4-LABEL: gather.decan.L0.LS:
// V4:      Inner Loop Header
// V4:      kxnorb %k0, %k0, %k[[K:[0-9]+]]
// V4-NEXT: vgatherdpd (%rdi,%ymm{{[0-9]+}},8), %zmm{{[0-9]+}} {%k[[K]]}
// V4-LABEL: gather.decan.L0.FP:
// V4:      Inner Loop Header
// V4-NOT:  vgatherdpd
// V4:      vaddpd
