/*===- stub_program.c - A program instrumented the way the plugin does -===*
 *
 * Part of decan's runtime tests, in C on purpose (the ABI and the public
 * API must be usable from C). Built twice: linked to libdecan_rt.so with
 * the dispatch stub, and with -DDECAN_PLAIN as the plain program whose
 * output an inert run must reproduce byte for byte.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <stdio.h>

#ifndef DECAN_PLAIN
#include <decan/abi.h>
#include <decan/runtime.h>
#include <decan/tsc.h>

static char Scratch[256] __attribute__((aligned(64)));
static struct decan_loop_desc Descs[1] = {{.abi_version = DECAN_ABI_VERSION,
                                           .variant_mask = 63,
                                           .line = 12,
                                           .id = "prog:L0",
                                           .function = "prog",
                                           .file = "prog.c",
                                           .scratch = Scratch,
                                           .scratch_size = sizeof(Scratch)}};
__attribute__((constructor)) static void registerLoops(void) {
  __decan_register_loops(Descs, 1);
}

/* The outlined copies: REF stores, the others only read (as the store
 * policy says), each timed by the same probes the plugin emits. */
static void variant(int V, const double *A, double *Out, uint64_t *Cycles,
                    uint64_t *Trips) {
  uint64_t T0 = decan_tsc_start();
  double S = 0;
  int I;
  for (I = 0; I < 512; ++I)
    S += A[I] * (V == DECAN_FP ? 1.0 : A[I]);
  uint64_t T1 = decan_tsc_stop();
  if (V == DECAN_REF)
    *Out = S;
  *Cycles = T1 - T0;
  *Trips = (uint64_t)I;
}
#endif

static double A[512];

int main(void) {
  double Total = 0;
  int C, I;
  for (I = 0; I < 512; ++I)
    A[I] = I * 0.5;
  for (C = 0; C < 200; ++C) {
    double S = 0;
#ifndef DECAN_PLAIN
    if (Descs[0].active &&
        (Descs[0].active != 2 || --Descs[0].countdown <= 0)) {
      int V = __decan_begin_call(&Descs[0]);
      if (V >= 0) {
        uint64_t Cycles, Trips;
        variant(V, A, &S, &Cycles, &Trips);
        if (!__decan_end_call(&Descs[0], V, Cycles, Trips))
          goto loop_exit;
        /* The program's loop after a variant, timed like every call. */
        variant(DECAN_REF, A, &S, &Cycles, &Trips);
        __decan_end_call(&Descs[0], V | DECAN_RERUN, Cycles, Trips);
        goto loop_exit;
      }
    }
#endif
    S = 0;
    for (I = 0; I < 512; ++I)
      S += A[I] * A[I];
#ifndef DECAN_PLAIN
  loop_exit:
#endif
    Total += S;
  }
#ifndef DECAN_PLAIN
  decan_region_begin("print");
#endif
  printf("total=%.3f\n", Total);
#ifndef DECAN_PLAIN
  decan_region_end();
#endif
  return 0;
}
