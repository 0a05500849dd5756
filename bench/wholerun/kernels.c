// Kernels whose verdict needs the whole run (bench/wholerun/run.py).
//
// usage: kernels NAME [SKIP]
//   moving   the working set of each call is L1-resident for the first 5%
//            of the calls, then walks through 256 MiB (memory)
//   triangle a lower-triangular matrix-vector product: the inner loop's trip
//            count is the row index (every call does different work)
//   divide   element-wise division over L1-resident arrays
//   stream   a triad over 3 x 32 MiB arrays, 4 MiB windows per call
//   tiny     a 4-iteration loop called millions of times (calls of a few
//            cycles: shorter than the probes themselves)
//   short    the same loop at 32 iterations (calls of about 80 cycles, the
//            range of an interpreter's loops)
// With SKIP = 1 the kernel's loop does nothing (its calls are skipped), so
// timing the two plain builds gives the loop's share of the program's time.
// Each prints a checksum so that results can be compared.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Skip;

__attribute__((noinline)) static double sumRange(const double *A, long N) {
  // Eight independent sums: from L1 the adds bound the loop, from memory
  // the loads do.
  double S[8] = {0};
  for (long I = 0; I < N; I += 8)
    for (int K = 0; K < 8; ++K)
      S[K] += A[I + K];
  return S[0] + S[1] + S[2] + S[3] + S[4] + S[5] + S[6] + S[7];
}

static double moving(void) {
  const long Total = 32l << 20, Chunk = 2048; // 256 MiB, 16 KiB per call
  double *A = malloc(Total * sizeof *A);
  for (long I = 0; I < Total; ++I)
    A[I] = (double)(I & 1023);
  double S = 0;
  const long Calls = 400000;
  for (long C = 0; C < Calls; ++C) {
    long Off = C < Calls / 20 ? 0 : (C * Chunk) % (Total - Chunk);
    if (!Skip)
      S += sumRange(A + Off, Chunk);
  }
  free(A);
  return S;
}

__attribute__((noinline)) static void rowDot(const double *Row, const double *X,
                                             double *Y, long N) {
  double S = 0;
  for (long J = 0; J < N; ++J)
    S += Row[J] * X[J];
  *Y = S;
}

static double triangle(void) {
  const long N = 3000;
  double *M = malloc(N * N * sizeof *M), *X = malloc(N * sizeof *X),
         *Y = malloc(N * sizeof *Y);
  for (long I = 0; I < N * N; ++I)
    M[I] = (double)(I % 7) * 0.5;
  for (long I = 0; I < N; ++I)
    X[I] = 1.0 / (double)(I + 1);
  double S = 0;
  for (int R = 0; R < 30; ++R)
    for (long I = 0; I < N; ++I) {
      Y[I] = 0;
      if (!Skip)
        rowDot(M + I * N, X, &Y[I], I);
      S += Y[I];
    }
  free(M);
  free(X);
  free(Y);
  return S;
}

__attribute__((noinline)) static void divide1(double *A, const double *B,
                                              const double *C, long N) {
  for (long I = 0; I < N; ++I)
    A[I] = B[I] / C[I];
}

static double divide(void) {
  const long N = 1024;
  double *A = malloc(N * sizeof *A), *B = malloc(N * sizeof *B),
         *C = malloc(N * sizeof *C);
  for (long I = 0; I < N; ++I) {
    B[I] = (double)I;
    C[I] = 1.0 + (double)(I % 13);
  }
  double S = 0;
  for (int R = 0; R < 300000; ++R) {
    if (!Skip)
      divide1(A, B, C, N);
    S += A[R % N];
  }
  free(A);
  free(B);
  free(C);
  return S;
}

__attribute__((noinline)) static void triad(double *A, const double *B,
                                            const double *C, double K, long N) {
  for (long I = 0; I < N; ++I)
    A[I] = B[I] + K * C[I];
}

static double stream(void) {
  // 3 x 32 MiB, each call on the next 4 MiB window of each array: the data
  // always come from memory, and there are enough calls to sample.
  const long N = 4l << 20, W = 512l << 10;
  double *A = malloc(N * sizeof *A), *B = malloc(N * sizeof *B),
         *C = malloc(N * sizeof *C);
  for (long I = 0; I < N; ++I) {
    A[I] = 0;
    B[I] = (double)(I & 255);
    C[I] = 0.5;
  }
  double S = 0;
  for (int R = 0; R < 480; ++R) {
    long Off = (R * W) % N;
    if (!Skip)
      triad(A + Off, B + Off, C + Off, 1.5, W);
    S += A[Off];
  }
  free(A);
  free(B);
  free(C);
  return S;
}

__attribute__((noinline)) static double four(const double *A, long N) {
  double S = 0;
  for (long I = 0; I < N; ++I)
    S += A[I] * A[I];
  return S;
}

// Not constants: the short loops must stay loops.
static volatile long TinyTrips = 4, ShortTrips = 32;

/// \p Calls calls of four() over \p Trips elements each.
static double shortCalls(long Calls, volatile long *Trips) {
  double A[64];
  for (int I = 0; I < 64; ++I)
    A[I] = I * 0.25;
  double S = 0;
  for (long R = 0; R < Calls; ++R)
    if (!Skip)
      S += four(A + (R & 31), *Trips);
  return S;
}

static double tiny(void) { return shortCalls(50000000, &TinyTrips); }
static double shortish(void) { return shortCalls(6250000, &ShortTrips); }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: kernels moving|triangle|divide|stream|tiny|short [SKIP]\n");
    return 2;
  }
  Skip = argc > 2 && atoi(argv[2]);
  double S = 0;
  if (!strcmp(argv[1], "moving"))
    S = moving();
  else if (!strcmp(argv[1], "triangle"))
    S = triangle();
  else if (!strcmp(argv[1], "divide"))
    S = divide();
  else if (!strcmp(argv[1], "stream"))
    S = stream();
  else if (!strcmp(argv[1], "tiny"))
    S = tiny();
  else if (!strcmp(argv[1], "short"))
    S = shortish();
  else
    return 2;
  printf("%s %.6e\n", argv[1], S);
  return 0;
}
