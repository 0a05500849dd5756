// A 4-iteration loop called millions of times: calls far shorter than what
// timing one costs, so decan times them at an accounting stride.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long four(const long *A, long N) {
  long S = 0;
  for (long I = 0; I < N; ++I)
    S += A[I] * A[I] + I;
  return S;
}

static volatile long Trips = 4;

int main(int argc, char **argv) {
  long Calls = argc > 1 ? atol(argv[1]) : 3000000;
  long A[64];
  for (int I = 0; I < 64; ++I)
    A[I] = I;
  long S = 0;
  for (long R = 0; R < Calls; ++R)
    S += four(A + (R & 31), Trips);
  printf("sum=%ld\n", S);
  return 0;
}
