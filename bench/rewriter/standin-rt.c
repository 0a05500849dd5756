// A stand-in for libdecan_rt in the rewriter benchmark: finds every
// decan_rewritten_header (dl_iterate_phdr), activates every descriptor and
// cycles each loop's calls through all of its variants (REF's results stand,
// every other variant is followed by the original loop, as in rotate mode).
// It prints how many loops ran each variant. It exists so the rewriter's
// coverage can be measured independently of the runtime's selection logic.
#define _GNU_SOURCE
#include "decan/abi.h"
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD (1 << 17)
static struct decan_loop_desc *Descs[MAXD];
static _Atomic unsigned long Calls[MAXD][DECAN_NUM_VARIANTS];
static _Atomic unsigned long LastTrips[MAXD][DECAN_NUM_VARIANTS];
static int NDescs;

static int beginCall(struct decan_loop_desc *d, void *fault, uint64_t quick) {
  (void)fault;
  // The dispatcher's first, quick call (abi.h, DECAN_QUICK_CALL): every
  // call here is decided by the full one that follows.
  if (quick == DECAN_QUICK_CALL)
    return 1;
  // runtime_state: the loop's index (high half), its call counter (low).
  unsigned long k =
      atomic_fetch_add((_Atomic unsigned long *)&d->runtime_state, 1) &
      0xffffffffu;
  for (int t = 0; t < DECAN_NUM_VARIANTS; ++t) {
    int v = (k + t) % DECAN_NUM_VARIANTS;
    if (d->variant_mask & (1u << v)) {
      // A copy whose exit reads memory counts down from this (abi.h,
      // iteration_cap; 0 would cap nothing): one that cannot end leaves
      // after 2^24 iterations, reports DECAN_TRIPS_CAPPED and is followed by
      // the original loop, as any variant here.
      d->iteration_cap = 1u << 24;
      return v;
    }
  }
  return -1;
}

static int endCall(struct decan_loop_desc *d, int v, uint64_t c, uint64_t t) {
  (void)c;
  if (v >= 0 && (v & DECAN_RERUN))
    return 0; // the original loop ran after a variant: its results stand
  int i = (int)((uintptr_t)d->runtime_state >> 32); // set at registration
  atomic_fetch_add(&Calls[i][v], 1);
  atomic_store(&LastTrips[i][v], t);
  return v != DECAN_REF;
}

static int scan(struct dl_phdr_info *info, size_t sz, void *data) {
  (void)sz, (void)data;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_W))
      continue;
    struct decan_rewritten_header *h = (void *)(info->dlpi_addr + p->p_vaddr);
    if (memcmp(h->magic, "DECANRW1", 8) || h->relocated)
      continue;
    struct decan_loop_desc *d = (void *)((char *)h + h->descs_offset);
    h->begin_call = (int (*)(struct decan_loop_desc *))beginCall;
    h->end_call = endCall;
    h->relocated = 1;
    for (unsigned k = 0; k < h->count && NDescs < MAXD; ++k) {
      d[k].id = (char *)h + (uintptr_t)d[k].id;
      d[k].runtime_state = (void *)((uintptr_t)NDescs << 32);
      Descs[NDescs++] = &d[k];
      d[k].active = 1;
    }
  }
  return 0;
}

__attribute__((constructor)) static void init(void) {
  dl_iterate_phdr(scan, 0);
}

__attribute__((destructor)) static void fini(void) {
  int Ran = 0, AllVariants = 0;
  unsigned long VariantRuns = 0;
  for (int i = 0; i < NDescs; ++i) {
    int any = 0, all = 1;
    for (int v = 0; v < DECAN_NUM_VARIANTS; ++v) {
      if (!(Descs[i]->variant_mask & (1u << v)))
        continue;
      any |= Calls[i][v] > 0;
      all &= Calls[i][v] > 0;
      VariantRuns += Calls[i][v];
    }
    Ran += any;
    AllVariants += any && all;
  }
  const char *Out = getenv("DECAN_STANDIN_OUT");
  FILE *F = Out ? fopen(Out, "w") : stderr;
  if (!F)
    return;
  fprintf(F,
          "standin: %d rewritten loops, %d executed, %d ran every built "
          "variant, %lu timed calls\n",
          NDescs, Ran, AllVariants, VariantRuns);
  // DECAN_STANDIN_TRIPS=1: the trip count of each loop's last call per
  // variant, as the rewritten code passed it to end_call.
  const char *Trips = getenv("DECAN_STANDIN_TRIPS");
  for (int i = 0; Trips && *Trips == '1' && i < NDescs; ++i)
    for (int v = 0; v < DECAN_NUM_VARIANTS; ++v)
      if (Calls[i][v])
        fprintf(F, "trips %s %d %lu\n", Descs[i]->id, v,
                (unsigned long)LastTrips[i][v]);
  if (F != stderr)
    fclose(F);
}
