// A program instrumented by hand the way the plugin does it (abi.h): a loop
// table in .decan.meta, descriptors registered with the real runtime, and
// dispatch stubs calling "variants". The variants report synthetic cycle
// counts (cost per iteration x trips, with a small deterministic jitter), so
// the tool's merging and analyses can be checked end to end on known inputs
// without asserting real timings.
//
// usage: synthetic CALLS [EXIT_STATUS]
//   SYNTH_THREADS=<n>      run the loops in n threads at once
//   SYNTH_CRASH=<variant>  raise SIGSEGV in that variant of divide:L0 (3rd
//   call) SYNTH_INTERRUPT=1 raise SIGINT at the end  SYNTH_STREAM_REF=<c>, SYNTH_STREAM_DL1=<c>  cycles per iteration of
//                          stream:L0's REF / DL1 (a "sweep" or a "rebuild")
#include "decan/abi.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct meta {
  struct decan_meta_record h;
  char s[48];
};

#define OK DECAN_VARIANT_OK
/* What the plugin records as the store policy of each variant. */
#define POLICY                                                                 \
  {DECAN_STORE_KEPT,    DECAN_STORE_AS_LOAD,    DECAN_STORE_DELETED,           \
   DECAN_STORE_AS_LOAD, DECAN_STORE_TO_SCRATCH, DECAN_STORE_DELETED}
#define HDR(MASK, LINE)                                                        \
  {'D', 'C', 'N', '1'}, sizeof(struct meta), DECAN_ABI_VERSION, MASK, LINE, 3, \
      48, 0

__attribute__((section(".decan.meta"), used,
               aligned(8))) static const struct meta Meta[3] = {
    {{HDR(55, 20),
      {{OK, OK, OK, DECAN_VARIANT_EMPTY, OK, OK},
       {64, 40, 30, 0, 64, 12},
       20,
       4,
       2,
       6,
       0,
       3,
       4,
       1,
       POLICY}},
     "stream:L0\0stream\0synthetic.c\0"},
    {{HDR(63, 30),
      {{OK, OK, OK, OK, OK, OK},
       {48, 20, 30, 40, 48, 12},
       12,
       2,
       1,
       5,
       1,
       3,
       2,
       0,
       POLICY}},
     "divide:L0\0divide\0synthetic.c\0"},
    {{HDR(0, 40), {{0}, {0}, 0, 0, 0, 0, 0, 0, 0, 0, POLICY}},
     "scalar:L0\0scalar\0synthetic.c\0call in loop"},
};

static char Scratch[2][4096] __attribute__((aligned(64)));

static struct decan_loop_desc Descs[2] = {
    {.abi_version = DECAN_ABI_VERSION, .variant_mask = 55, .line = 20,
     .id = "stream:L0", .function = "stream", .file = "synthetic.c",
     .scratch = Scratch[0], .scratch_size = 4096, .minfo = &Meta[0].h.minfo},
    {.abi_version = DECAN_ABI_VERSION, .variant_mask = 63, .line = 30,
     .id = "divide:L0", .function = "divide", .file = "synthetic.c",
     .scratch = Scratch[1], .scratch_size = 4096, .minfo = &Meta[1].h.minfo},
};

__attribute__((constructor)) static void registerLoops(void) {
  __decan_register_loops(Descs, 2);
}

// Cycles per iteration of each variant: REF LS FP NO_DIV DL1 CTRL.
static double Cost[2][6] = {
    {10, 9.5, 3, 0, 4, 1},  // stream: memory-bound, data far from L1
    {20, 2, 19, 5, 20, 1}}; // divide: FP-bound, divisions dominate

static _Thread_local unsigned Calls[2][6];
static const char *CrashVariant;
static const char *Names[6] = {"REF", "LS", "FP", "NO_DIV", "DL1", "CTRL"};

static void variant(int loop, int v, long n, uint64_t *cycles,
                    uint64_t *trips) {
  unsigned k = Calls[loop][v]++;
  if (loop == 1 && CrashVariant && !strcmp(CrashVariant, Names[v]) && k == 2)
    raise(SIGSEGV);
  *trips = (uint64_t)n;
  *cycles = (uint64_t)(Cost[loop][v] * n * (1.0 + 0.01 * (k % 5)));
}

static volatile _Thread_local double Sink;

static void loop(int l, long n) {
  struct decan_loop_desc *d = &Descs[l];
  if (d->active && (d->active != 2 || --d->countdown <= 0)) {
    int v = __decan_begin_call(d);
    if (v >= 0) {
      uint64_t c, t;
      variant(l, v, n, &c, &t);
      if (!__decan_end_call(d, v, c, t))
        return;
      // The original after a variant, timed like every call (abi.h).
      variant(l, DECAN_REF, n, &c, &t);
      __decan_end_call(d, v | DECAN_RERUN, c, t);
      return;
    }
  }
  for (long i = 0; i < n; ++i) // the "original" loop
    Sink += (double)i;
}

static long NCalls;

static void *worker(void *arg) {
  (void)arg;
  for (long c = 0; c < NCalls; ++c) {
    loop(0, 1000);
    loop(1, 500);
  }
  return 0;
}

int main(int argc, char **argv) {
  long calls = argc > 1 ? atol(argv[1]) : 100;
  NCalls = calls;
  CrashVariant = getenv("SYNTH_CRASH");
  if (getenv("SYNTH_STREAM_REF"))
    Cost[0][0] = atof(getenv("SYNTH_STREAM_REF"));
  if (getenv("SYNTH_STREAM_DL1"))
    Cost[0][4] = atof(getenv("SYNTH_STREAM_DL1"));
  int threads = getenv("SYNTH_THREADS") ? atoi(getenv("SYNTH_THREADS")) : 1;
  pthread_t t[16];
  for (int i = 1; i < threads && i < 16; ++i)
    pthread_create(&t[i], 0, worker, 0);
  worker(0);
  for (int i = 1; i < threads && i < 16; ++i)
    pthread_join(t[i], 0);
  if (getenv("SYNTH_INTERRUPT"))
    raise(SIGINT); // as Ctrl-C would
  return argc > 2 ? atoi(argv[2]) : 0;
}
