/*===- crc.c - Integer table lookup (CRC-32) ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* Byte-wise CRC-32 (gzip's updcrc, the BHive example): the table index of
   each iteration depends on the previous one through a load, so the loop is
   bound by load latency; the 1 KiB table is always L1-resident. */
#define CODELET_NAME "crc"
#include "codelet.h"

static unsigned char *P;
static uint32_t Table[256], Crc;
static long N, Len, Off;

CODELET_NOINLINE uint32_t crc_kernel(const unsigned char *restrict p, long n,
                                     const uint32_t *restrict table,
                                     uint32_t crc) {
  for (long i = 0; i < n; ++i)
    crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  P = (unsigned char *)codelet_alloc((size_t)n);
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    Table[i] = c;
  }
  for (long i = 0; i < n; ++i)
    P[i] = (unsigned char)codelet_rand();
}
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  Crc = crc_kernel(P + o, Len, Table, Crc);
}
static long codelet_loop_calls(void) { return 1; }
static double codelet_checksum(void) { return (double)Crc; }
