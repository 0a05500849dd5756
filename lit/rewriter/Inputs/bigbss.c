// A program whose .bss (256 MiB) ends far past its file: the new segments
// go after it, the copy is written sparse.
#include <stdio.h>
static double Big[32 << 20];
int main(void) {
  double S = 0;
  for (long I = 0; I < (32 << 20); I += 512)
    Big[I] = (double)I;
  for (long I = 0; I < (32 << 20); I += 512)
    S += Big[I];
  printf("%.1f\n", S);
  return 0;
}
