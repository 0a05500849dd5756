// Calls many Fortran BLAS routines (levels 1-3, s/d, unit and non-unit
// strides, both transposes) and prints a checksum of every result, so a
// rewritten libblas must print exactly what the original prints.
#include <stdio.h>
#include <stdlib.h>

typedef int I;
#define DECL1(T, p)                                                            \
  void p##axpy_(I *, T *, T *, I *, T *, I *);                                 \
  T p##dot_(I *, T *, I *, T *, I *);                                          \
  void p##scal_(I *, T *, T *, I *);                                           \
  void p##copy_(I *, T *, I *, T *, I *);                                      \
  void p##swap_(I *, T *, I *, T *, I *);                                      \
  T p##nrm2_(I *, T *, I *);                                                   \
  T p##asum_(I *, T *, I *);                                                   \
  I i##p##amax_(I *, T *, I *);                                                \
  void p##rot_(I *, T *, I *, T *, I *, T *, T *);                             \
  void p##gemv_(char *, I *, I *, T *, T *, I *, T *, I *, T *, T *, I *);     \
  void p##ger_(I *, I *, T *, T *, I *, T *, I *, T *, I *);                   \
  void p##symv_(char *, I *, T *, T *, I *, T *, I *, T *, T *, I *);          \
  void p##trmv_(char *, char *, char *, I *, T *, I *, T *, I *);              \
  void p##trsv_(char *, char *, char *, I *, T *, I *, T *, I *);              \
  void p##gemm_(char *, char *, I *, I *, I *, T *, T *, I *, T *, I *, T *,   \
                T *, I *);                                                     \
  void p##symm_(char *, char *, I *, I *, T *, T *, I *, T *, I *, T *, T *,   \
                I *);                                                          \
  void p##syrk_(char *, char *, I *, I *, T *, T *, I *, T *, T *, I *);       \
  void p##trmm_(char *, char *, char *, char *, I *, I *, T *, T *, I *, T *,  \
                I *);                                                          \
  void p##trsm_(char *, char *, char *, char *, I *, I *, T *, T *, I *, T *,  \
                I *);
DECL1(double, d)
DECL1(float, s)

#define RUN(T, p)                                                              \
  static double run_##p(int n) {                                               \
    T *x = malloc(2 * n * sizeof(T)), *y = malloc(2 * n * sizeof(T));          \
    T *A = malloc(n * n * sizeof(T)), *B = malloc(n * n * sizeof(T));          \
    T *C = malloc(n * n * sizeof(T));                                          \
    double sum = 0;                                                            \
    for (int i = 0; i < 2 * n; ++i) {                                          \
      x[i] = (T)((i % 7) - 3) / 4;                                             \
      y[i] = (T)((i % 5) + 1) / 8;                                             \
    }                                                                          \
    for (int i = 0; i < n * n; ++i) {                                          \
      A[i] = (T)((i % 11) + 1) / 16;                                           \
      B[i] = (T)((i % 13) - 6) / 16;                                           \
      C[i] = 0;                                                                \
    }                                                                          \
    for (int i = 0; i < n; ++i)                                                \
      A[i * n + i] += 4; /* well-conditioned triangles for trsv/trsm */        \
    T a = (T)0.5, b = (T)0.25, c = (T)0.8, s = (T)0.6;                         \
    for (int inc = 1; inc <= 2; ++inc) {                                       \
      int m = n;                                                               \
      p##axpy_(&m, &a, x, &inc, y, &inc);                                      \
      sum += p##dot_(&m, x, &inc, y, &inc);                                    \
      p##scal_(&m, &b, y, &inc);                                               \
      p##copy_(&m, y, &inc, x, &inc);                                          \
      p##swap_(&m, x, &inc, y, &inc);                                          \
      sum += p##nrm2_(&m, x, &inc) + p##asum_(&m, y, &inc);                    \
      sum += i##p##amax_(&m, x, &inc);                                         \
      p##rot_(&m, x, &inc, y, &inc, &c, &s);                                   \
      for (int t = 0; t < 2; ++t) {                                            \
        char tr = t ? 'T' : 'N', up = t ? 'U' : 'L';                           \
        char diag = 'N';                                                       \
        p##gemv_(&tr, &m, &m, &a, A, &m, x, &inc, &b, y, &inc);                \
        p##symv_(&up, &m, &a, A, &m, x, &inc, &b, y, &inc);                    \
        p##trmv_(&up, &tr, &diag, &m, A, &m, x, &inc);                         \
        p##trsv_(&up, &tr, &diag, &m, A, &m, x, &inc);                         \
        p##gemm_(&tr, &tr, &m, &m, &m, &a, A, &m, B, &m, &b, C, &m);           \
        char side = t ? 'R' : 'L';                                             \
        p##symm_(&side, &up, &m, &m, &a, A, &m, B, &m, &b, C, &m);             \
        p##syrk_(&up, &tr, &m, &m, &a, A, &m, &b, C, &m);                      \
        p##trmm_(&side, &up, &tr, &diag, &m, &m, &a, A, &m, B, &m);            \
        p##trsm_(&side, &up, &tr, &diag, &m, &m, &a, A, &m, B, &m);            \
      }                                                                        \
      p##ger_(&m, &m, &a, x, &inc, y, &inc, A, &m);                            \
      for (int i = 0; i < n; ++i)                                              \
        sum += (double)x[i] + (double)y[i];                                    \
      for (int i = 0; i < n * n; ++i)                                          \
        sum += ((double)C[i] + (double)B[i]) * 1e-3;                           \
    }                                                                          \
    free(x), free(y), free(A), free(B), free(C);                               \
    return sum;                                                                \
  }
RUN(double, d)
RUN(float, s)

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  for (int r = 0; r < reps; ++r)
    for (int n = 7; n <= 96; n = n * 2 + 1)
      printf("n=%d d=%.10e s=%.6e\n", n, run_d(n), run_s(n));
  return 0;
}
