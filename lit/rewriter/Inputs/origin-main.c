// A program whose libraries are next to it ($ORIGIN/lib): its rewritten
// copy runs from decan's cache and must still find them, and see the
// argv[0] it was started with.
#include <stdio.h>
int origin_work(int);
int main(int argc, char **argv) {
  (void)argc;
  int s = 0;
  for (int r = 0; r < 2000; r++)
    s += origin_work(1000 + r % 5) + r % 3;
  // argv[0] as typed, though a copy from the cache runs.
  printf("%s: s=%d\n", argv[0], s);
  return 0;
}
