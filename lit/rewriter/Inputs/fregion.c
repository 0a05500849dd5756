// Functions whose loops have no loop around them: the function is what
// holds the time, so it is the region (`region:f`). `histogram` is called
// once per block and runs three loops in a row; `sum` halves its range
// recursively down to a loop over a short run (only its outermost
// activation is timed).
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long histogram(const unsigned char *Buf, long N,
                                         long *Hist) {
  for (int K = 0; K < 256; K++)
    Hist[K] = K & 1;
  for (long I = 0; I < N; I++)
    Hist[Buf[I]] += I & 3;
  long Max = 0;
  for (int K = 0; K < 256; K++)
    if (Hist[K] > Max)
      Max = Hist[K];
  return Max;
}

__attribute__((noinline)) long sum(const unsigned char *Buf, long Lo,
                                   long Hi) {
  if (Hi - Lo <= 48) {
    long S = 0;
    for (long I = Lo; I < Hi; I++)
      S += Buf[I] * (I & 7);
    return S;
  }
  long Mid = Lo + (Hi - Lo) / 3;
  return sum(Buf, Lo, Mid) ^ (sum(Buf, Mid, Hi) << 1);
}

int main(int argc, char **argv) {
  long Blocks = argc > 1 ? atol(argv[1]) : 1000;
  const long N = 4096;
  unsigned char *Buf = malloc(N);
  long Hist[256];
  unsigned Seed = 11;
  long Total = 0;
  for (long B = 0; B < Blocks; B++) {
    for (long I = 0; I < N; I++) {
      Seed = Seed * 1103515245u + 12345u;
      Buf[I] = (unsigned char)(Seed >> 16);
    }
    Total += histogram(Buf, N, Hist);
    Total ^= sum(Buf, 0, N);
  }
  printf("%ld\n", Total);
  free(Buf);
  return 0;
}
