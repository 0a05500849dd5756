// A multi-word add whose loop carries CF from one iteration to the next and
// from before the loop into its header (clc; adc ...; dec keeps CF): the
// dispatch stub must not clobber EFLAGS.
#include <stdio.h>

void addn(unsigned long *r, const unsigned long *a, long n);
__asm__(".text\n"
        ".globl addn\n"
        ".type addn,@function\n"
        "addn:\n"
        "  mov %rdx, %rcx\n"
        "  stc\n" // a carry into the first word
        "1:\n"
        "  mov (%rsi), %rax\n"
        "  adc %rax, (%rdi)\n"
        "  lea 8(%rsi), %rsi\n"
        "  lea 8(%rdi), %rdi\n"
        "  dec %rcx\n"
        "  jnz 1b\n"
        "  ret\n"
        ".size addn, .-addn\n");

int main(void) {
  unsigned long r[64], a[64];
  for (int i = 0; i < 64; ++i) {
    r[i] = ~0ul - (unsigned long)i;
    a[i] = (unsigned long)i * 0x9e3779b97f4a7c15ul;
  }
  for (int k = 0; k < 100; ++k)
    addn(r, a, 64);
  unsigned long h = 0;
  for (int i = 0; i < 64; ++i)
    h = h * 31 + r[i];
  printf("%lx\n", h);
  return 0;
}
