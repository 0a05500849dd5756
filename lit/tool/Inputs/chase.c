// Loops whose work is their control: a pointer chase (each load gives the
// next address), a search (each load feeds the exit test), and a table
// lookup (gzip's CRC: all arithmetic feeds the next address, so LS would
// be REF itself, while FP and DL1 have loads to change).
#include <stdio.h>
#include <stdlib.h>

struct Node {
  struct Node *Next;
  long Value;
};

__attribute__((noinline)) long walk(struct Node *P) {
  long N = 0;
  while (P) {
    P = P->Next;
    N++;
  }
  return N;
}

__attribute__((noinline)) long find(const long *T, long N, long Key) {
  long I = 0;
  while (I < N && T[I] != Key)
    I++;
  return I;
}

static unsigned long Table[256];

__attribute__((noinline)) unsigned long crc(const unsigned char *P, long N,
                                            unsigned long C) {
  const unsigned char *E = P + N;
  while (P != E)
    C = Table[(C ^ *P++) & 0xff] ^ (C >> 8);
  return C;
}

int main(void) {
  enum { Nodes = 1 << 16 };
  struct Node *A = malloc(Nodes * sizeof *A);
  long *Order = malloc(Nodes * sizeof *Order);
  for (long I = 0; I < Nodes; I++)
    Order[I] = I;
  unsigned Seed = 1;
  for (long I = Nodes - 1; I > 0; I--) {
    Seed = Seed * 1103515245u + 12345u;
    long J = (Seed >> 8) % (I + 1), T = Order[I];
    Order[I] = Order[J];
    Order[J] = T;
  }
  for (long I = 0; I < Nodes; I++)
    A[Order[I]].Next = I + 1 < Nodes ? &A[Order[I + 1]] : 0;
  long S = 0;
  // Starting further along each time: the calls differ, none is hoisted.
  for (long R = 0; R < 40; R++)
    S += walk(&A[Order[R * 16]]);
  long *T = malloc(1024 * sizeof *T);
  for (long I = 0; I < 1024; I++)
    T[I] = I * 7;
  for (long R = 0; R < 4000; R++)
    S += find(T, 1024, (R * 7) % 7168);
  for (unsigned long I = 0; I < 256; I++)
    Table[I] = I * 0x9e3779b97f4a7c15ul;
  unsigned char *Bytes = malloc(8192);
  for (long I = 0; I < 8192; I++)
    Bytes[I] = (unsigned char)(I * 31);
  unsigned long C = 0;
  for (long R = 0; R < 3000; R++)
    C = crc(Bytes + (R & 63), 4096, C);
  printf("%ld %lu\n", S, C);
  return 0;
}
