// Every selected innermost loop gets six readable variant symbols plus its
// descriptor, meta record and DL1 scratch; C++ names stay mangled (decan
// demangles for display), OpenMP outlined bodies are ordinary functions by
// the time the pass runs, and a vectorized loop with its scalar remainder
// is two loops (two ids). Debug info (-g) does not change what is emitted.
// RUN: %clang_decan -O2 -fopenmp -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s
// RUN: %clang_decan -O2 -g -fopenmp -c %s -o %t.g.o
// RUN: llvm-nm %t.g.o | FileCheck %s
// The outlined copies get their own subprograms: the DWARF stays valid.
// RUN: llvm-dwarfdump --verify %t.g.o | FileCheck --check-prefix=DWARF %s
// RUN: %clang -O2 -fopenmp -c %s -o %t.plain.o
// RUN: llvm-nm %t.plain.o | FileCheck --check-prefix=PLAIN %s

namespace ns {
void scale(float *m, int n, float f) {
  for (int i = 0; i < n; ++i)
    m[i] *= f;
}
} // namespace ns

template <typename T> T sum(const T *a, int n) {
  T s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i];
  return s;
}
int use(const int *a, int n) { return sum(a, n); }

void par(double *a, const double *b, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    a[i] = b[i] * 2.0 + 1.0;
}

// No NO_DIV copy: the loops divide nothing (llvm-plugins/IRVariantCopies.h).
// CHECK-DAG: T _ZN2ns5scaleEPfif{{$}}
// CHECK-DAG: t _ZN2ns5scaleEPfif.decan.L0.REF{{$}}
// CHECK-DAG: t _ZN2ns5scaleEPfif.decan.L0.LS{{$}}
// CHECK-DAG: t _ZN2ns5scaleEPfif.decan.L0.FP{{$}}
// CHECK-DAG: t _ZN2ns5scaleEPfif.decan.L0.DL1{{$}}
// CHECK-DAG: t _ZN2ns5scaleEPfif.decan.L0.CTRL{{$}}
// CHECK-DAG: d _ZN2ns5scaleEPfif.decan.L0.desc{{$}}
// CHECK-DAG: r _ZN2ns5scaleEPfif.decan.L0.meta{{$}}
// CHECK-DAG: b _ZN2ns5scaleEPfif.decan.L0.scratch{{$}}
// CHECK-DAG: t _ZN2ns5scaleEPfif.decan.L1.REF{{$}}
// CHECK-DAG: t _ZN2ns5scaleEPfif.decan.L1.CTRL{{$}}
// CHECK-DAG: d _ZN2ns5scaleEPfif.decan.L1.desc{{$}}
// CHECK-DAG: t _Z3usePKii.decan.L0.REF{{$}}
// CHECK-DAG: t _Z3usePKii.decan.L1.DL1{{$}}
// CHECK-DAG: t _Z3parPdPKdi.omp_outlined.decan.L0.REF{{$}}
// CHECK-DAG: t _Z3parPdPKdi.omp_outlined.decan.L0.FP{{$}}
// CHECK-DAG: d decan.descs{{$}}
// CHECK-DAG: t decan.module_ctor{{$}}
// CHECK-DAG: w __decan_begin_call{{$}}
// CHECK-DAG: w __decan_end_call{{$}}
// CHECK-DAG: w __decan_register_loops{{$}}
// The scalar function itself has no third innermost loop.
// CHECK-NOT: _ZN2ns5scaleEPfif.decan.L2

// PLAIN-NOT: decan

// DWARF: No errors.
