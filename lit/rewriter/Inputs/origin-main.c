// A program whose libraries are next to it ($ORIGIN/lib): its rewritten
// copy runs from decan's cache and must still find them.
#include <stdio.h>
int origin_work(int);
int main(void) {
  int s = 0;
  for (int r = 0; r < 2000; r++)
    s += origin_work(1000 + r % 5) + r % 3;
  printf("s=%d\n", s);
  return 0;
}
