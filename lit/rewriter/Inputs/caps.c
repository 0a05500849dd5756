// Loops whose exit test reads memory: every variant copy of them counts its
// iterations down from the descriptor's iteration cap (docs/rewriter.md,
// "Copies that could run forever").
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// Calls lgamma until Gamma turns negative: the exit reads signgam, which
// lgamma writes. The rules take a libm call for arithmetic that writes no
// memory, so LS, CTRL and NO_CALL delete it and nothing refuses them:
// without the call signgam stays 1, and only the cap ends such a copy.
__attribute__((noinline)) long steps_to_negative(double x0, double step) {
  long n = 0;
  signgam = 1;
  do {
    ++n;
    lgamma(x0 - step * (double)n);
  } while (signgam > 0);
  return n;
}

// Multi-word sums whose carry crosses the back edge (EFLAGS live into the
// header: stc; adc; dec keeps CF) and whose exit reads a sentinel array
// (dec of a loaded word). capsum leaves rcx free: the flags-free count-down
// (lea -1(%rcx),%rcx; jrcxz). capsum_rcx uses rcx: no register can count
// its cap, so its variants are refused.
unsigned long capsum(const unsigned long *a, const unsigned long *s);
unsigned long capsum_rcx(const unsigned long *a, const unsigned long *s);
__asm__(".text\n"
        ".globl capsum\n"
        ".type capsum,@function\n"
        "capsum:\n"
        "  xor %eax, %eax\n"
        "  stc\n"
        "1:\n"
        "  adc (%rdi), %rax\n"
        "  lea 8(%rdi), %rdi\n"
        "  mov (%rsi), %r8\n"
        "  lea 8(%rsi), %rsi\n"
        "  dec %r8\n"
        "  jnz 1b\n"
        "  ret\n"
        ".size capsum, .-capsum\n"
        ".globl capsum_rcx\n"
        ".type capsum_rcx,@function\n"
        "capsum_rcx:\n"
        "  xor %eax, %eax\n"
        "  stc\n"
        "1:\n"
        "  adc (%rdi), %rax\n"
        "  lea 8(%rdi), %rdi\n"
        "  mov (%rsi), %rcx\n"
        "  lea 8(%rsi), %rsi\n"
        "  dec %rcx\n"
        "  jnz 1b\n"
        "  ret\n"
        ".size capsum_rcx, .-capsum_rcx\n");

int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 300;
  long steps = 0;
  for (int k = 0; k < calls; ++k)
    steps += steps_to_negative(50.25 + (k % 4), 0.5);
  unsigned long a[200], s[200], h = 0;
  for (int i = 0; i < 200; ++i) {
    a[i] = (unsigned long)i * 0x9e3779b97f4a7c15ul;
    s[i] = i == 150 ? 1 : 7;
  }
  for (int k = 0; k < calls; ++k)
    h = h * 31 + capsum(a, s) + capsum_rcx(a, s);
  printf("%ld %lx\n", steps, h);
  return 0;
}
