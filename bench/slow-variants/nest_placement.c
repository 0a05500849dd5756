// A nest's DL1 copy against REF's, by where the inner loop starts
// (issue 26, item 2). fdtd-2d's main:N1 (MEDIUM: 199 rows of 240 doubles)
// read Sat(DL1) 1.12-1.45 in 5 of 8 `decan run`s while its REF's inner
// loop sat at offset 16 of a 64-byte line and DL1's, longer by its
// RIP-relative operands, at 32 (3 lines instead of 2). The exact bytes of
// both (nest_placement.S), called in turn 101 times each; prints the
// median TSC cycles per call. ref_l1_16 is REF's bytes on rows that stay
// L1-resident: what DL1 stands for.
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

typedef void Nest(double *, double *, long);
Nest ref16, ref_l1_16, dl1_0, dl1_16, dl1_32, dl1_48;

enum { Rows = 200, Cols = 240, Reps = 101 };
static double Ey[Rows * Cols + 16], Hz[Rows * Cols + 16];

static int less(const void *A, const void *B) {
  unsigned long X = *(const unsigned long *)A, Y = *(const unsigned long *)B;
  return X < Y ? -1 : X > Y;
}

int main(void) {
  Nest *Fs[] = {ref16, ref_l1_16, dl1_0, dl1_16, dl1_32, dl1_48};
  const char *Names[] = {"REF@16", "REF@16 L1-rows", "DL1@0",
                         "DL1@16", "DL1@32",         "DL1@48"};
  enum { N = sizeof(Fs) / sizeof(Fs[0]) };
  static unsigned long T[N][Reps];
  for (int I = 0; I < Rows * Cols; I++) {
    Ey[I] = I;
    Hz[I] = I * 0.5;
  }
  for (int R = 0; R < Reps; R++)
    for (int K = 0; K < N; K++) {
      unsigned Aux;
      unsigned long Start = __rdtscp(&Aux);
      // The copy's registers point one row and one element in (hz[i-1]).
      Fs[K](Ey + Cols + 1, Hz + Cols + 1, Rows - 1);
      T[K][R] = __rdtscp(&Aux) - Start;
    }
  printf("nest_placement (cycles per call, median of %d):", Reps);
  for (int K = 0; K < N; K++) {
    qsort(T[K], Reps, sizeof(T[K][0]), less);
    printf("  %s %lu", Names[K], T[K][Reps / 2]);
  }
  printf("\n");
  return 0;
}
