// A loop nest whose inner loop is short (a search of a few iterations, as
// xz's match finders have) while the outer loop around it holds the time:
// the outer loop is what a region times. `matches` walks a chain of
// candidates and, for each, compares bytes until they differ.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long matches(const unsigned char *Buf, long N,
                                       long Pos, const int *Chain,
                                       long Depth) {
  long Best = 0;
  long Cand = Chain[Pos];
  while (Depth-- > 0 && Cand >= 0) {
    long Len = 0;
    while (Pos + Len < N && Buf[Cand + Len] == Buf[Pos + Len])
      Len++;
    if (Len > Best)
      Best = Len;
    Cand = Chain[Cand];
  }
  return Best;
}

int main(int argc, char **argv) {
  long N = argc > 1 ? atol(argv[1]) : 20000;
  unsigned char *Buf = malloc(N + 64);
  int *Chain = malloc(N * sizeof *Chain);
  unsigned Seed = 7;
  for (long I = 0; I < N + 64; I++) {
    Seed = Seed * 1103515245u + 12345u;
    Buf[I] = "abcd"[(Seed >> 16) & 3];
  }
  int Last[4] = {-1, -1, -1, -1};
  for (long I = 0; I < N; I++) {
    Chain[I] = Last[Buf[I] - 'a'];
    Last[Buf[I] - 'a'] = (int)I;
  }
  long Sum = 0;
  for (long Pos = 0; Pos < N; Pos++)
    Sum += matches(Buf, N, Pos, Chain, 32);
  printf("%ld\n", Sum);
  free(Buf);
  free(Chain);
  return 0;
}
