// Deleting an instruction keeps its dependence (a bridge), at three ISA
// levels. NO_DIV deletes `t = x / y` in a recurrence: SSE's two-operand
// divsd reads x itself, so it simply goes and t keeps x's chain; AVX's
// three-operand vdivsd becomes a copy of its dividend (vmovaps), never a
// zero idiom. DL1 keeps a table lookup's address chain (a scratch base in
// the table's register + the loaded index); FP keeps the xor chain through
// crc with an idiom of a register it may take over.
//
// RUN: %clang %kflags -march=x86-64-v2 %s -o %t2.ll
// RUN: %mkvariants %t2.ll divcopy > %t2d.ll
// RUN: llc -O2 -load=%decan_plugin %t2d.ll -o - | FileCheck %s --check-prefixes=V2
// RUN: %mkvariants %t2.ll crc > %t2c.ll
// RUN: llc -O2 -load=%decan_plugin %t2c.ll -o - | FileCheck %s --check-prefixes=CRC
// RUN: %clang %kflags -march=x86-64-v3 %s -o %t3.ll
// RUN: %mkvariants %t3.ll divcopy > %t3d.ll
// RUN: llc -O2 -load=%decan_plugin %t3d.ll -o - | FileCheck %s --check-prefixes=VX
// RUN: %mkvariants %t3.ll crc > %t3c.ll
// RUN: llc -O2 -load=%decan_plugin %t3c.ll -o - | FileCheck %s --check-prefixes=CRC
// RUN: %clang %kflags -march=x86-64-v4 %s -o %t4.ll
// RUN: %mkvariants %t4.ll divcopy > %t4d.ll
// RUN: llc -O2 -load=%decan_plugin -pass-remarks-missed=decan %t4d.ll -o - 2>%t4.err | FileCheck %s --check-prefixes=VX
// RUN: FileCheck %s --check-prefix=REM < %t4.err --allow-empty
// RUN: %mkvariants %t4.ll crc > %t4c.ll
// RUN: llc -O2 -load=%decan_plugin %t4c.ll -o - | FileCheck %s --check-prefixes=CRC

double divcopy(const double *a, long n, double y, double x) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    double t = x / y;
    x = t + a[i];
    s += t;
  }
  return s + x;
}

unsigned crc(const unsigned char *p, long n, const unsigned *t, unsigned c) {
  for (long i = 0; i < n; ++i)
    c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c;
}

// REM-NOT: dependence verifier

// V2-LABEL: divcopy.decan.L0.NO_DIV:
// V2:      Inner Loop Header
// V2-NEXT: nopl 1(%rax)
// V2-NEXT: addsd %xmm[[X:[0-9]+]], %xmm{{[0-9]+}}
// V2-NEXT: addsd (%rdi,%rax,8), %xmm[[X]]

// VX-LABEL: divcopy.decan.L0.REF:
// VX:      Inner Loop Header
// VX-NEXT: vdivsd %xmm{{[0-9]+}}, %xmm[[X:[0-9]+]], %xmm[[T:[0-9]+]]
// VX-LABEL: divcopy.decan.L0.NO_DIV:
// VX:      Inner Loop Header
// VX-NEXT: vmovaps %xmm[[X]], %xmm[[T]]
// VX-NEXT: vaddsd (%rdi,%rax,8), %xmm[[T]], %xmm[[X]]
// VX-NOT:  xor
// VX:      jne

// CRC-LABEL: crc.decan.L0.FP:
// CRC:      Inner Loop Header
// CRC:      shrl $8, %eax
// CRC-NEXT: xorl %edx, %edx
// CRC-NEXT: xorl %edx, %eax
// CRC-LABEL: crc.decan.L0.DL1:
// CRC:      Inner Loop Header
// CRC-NEXT: movzbl crc.decan.L0.scratch(%rip), %r[[I:[0-9]+]]d
// CRC:      leaq crc.decan.L0.scratch+{{[0-9]+}}(%rip), %rdx
// CRC-NEXT: xorl (%rdx,%r[[I]],4), %eax
