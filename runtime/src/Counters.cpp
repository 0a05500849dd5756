//===- Counters.cpp - perf_event counters named through libpfm4 -----------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "Counters.h"

#include <perfmon/pfmlib_perf_event.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace decan::rt {

static int PfmStatus = PFM_ERR_NOINIT;
static pthread_once_t PfmOnce = PTHREAD_ONCE_INIT;

bool encodeEvent(const char *Name, perf_event_attr &Attr, char *Err,
                 size_t ErrCap) {
  pthread_once(&PfmOnce, [] { PfmStatus = pfm_initialize(); });
  if (PfmStatus != PFM_SUCCESS) {
    snprintf(Err, ErrCap, "event '%s': libpfm4 initialization failed: %s", Name,
             pfm_strerror(PfmStatus));
    return false;
  }
  memset(&Attr, 0, sizeof(Attr));
  pfm_perf_encode_arg_t Arg;
  memset(&Arg, 0, sizeof(Arg));
  Arg.attr = &Attr;
  Arg.size = sizeof(Arg);
  int R =
      pfm_get_os_event_encoding(Name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &Arg);
  if (R != PFM_SUCCESS) {
    snprintf(Err, ErrCap, "unknown event '%s': %s", Name, pfm_strerror(R));
    return false;
  }
  Attr.size = sizeof(Attr);
  Attr.disabled = 0;
  Attr.exclude_kernel = 1;
  Attr.exclude_hv = 1;
  Attr.inherit = 0;
  Attr.read_format = 0;
  return true;
}

PerfCounter &PerfCounter::operator=(PerfCounter &&O) noexcept {
  if (this != &O) {
    close();
    Fd = O.Fd;
    Page = O.Page;
    O.Fd = -1;
    O.Page = nullptr;
  }
  return *this;
}

bool PerfCounter::open(const perf_event_attr &A, const char *Name, char *Err,
                       size_t ErrCap) {
  close();
  perf_event_attr Attr = A;
  int F = (int)syscall(SYS_perf_event_open, &Attr, 0 /*this thread*/,
                       -1 /*any cpu*/, -1, PERF_FLAG_FD_CLOEXEC);
  if (F < 0) {
    int E = errno;
    snprintf(Err, ErrCap, "perf_event_open(%s): %s%s", Name, strerror(E),
             E == ENOENT || E == EOPNOTSUPP ? " (no hardware PMU here?)" : "");
    return false;
  }
  Fd = F;
  // The first page tells whether rdpmc may be used; failing to map it only
  // means reads go through read(2).
  void *P = mmap(nullptr, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
                 Fd, 0);
  Page = P == MAP_FAILED ? nullptr : P;
  return true;
}

void PerfCounter::close() {
  if (Page)
    munmap(Page, (size_t)sysconf(_SC_PAGESIZE));
  if (Fd >= 0)
    ::close(Fd);
  Page = nullptr;
  Fd = -1;
}

bool PerfCounter::usesRdpmc() const {
  if (!Page)
    return false;
  auto *PC = static_cast<const volatile perf_event_mmap_page *>(Page);
  return PC->cap_user_rdpmc && PC->index;
}

static inline uint64_t rdpmc(uint32_t C) {
  uint32_t Lo, Hi;
  __asm__ __volatile__("rdpmc" : "=a"(Lo), "=d"(Hi) : "c"(C));
  return ((uint64_t)Hi << 32) | Lo;
}

bool PerfCounter::read(uint64_t &Value) const {
  if (Fd < 0)
    return false;
  if (Page) {
    // The kernel's seqlock protocol (include/uapi/linux/perf_event.h).
    auto *PC = static_cast<const volatile perf_event_mmap_page *>(Page);
    uint32_t Seq, Idx;
    uint64_t Count;
    bool Ok;
    do {
      Seq = PC->lock;
      __asm__ __volatile__("" ::: "memory");
      Idx = PC->index;
      Count = PC->offset;
      Ok = PC->cap_user_rdpmc && Idx;
      if (Ok) {
        uint16_t Width = PC->pmc_width;
        int64_t Pmc = (int64_t)rdpmc(Idx - 1);
        Pmc <<= 64 - Width;
        Pmc >>= 64 - Width;
        Count += (uint64_t)Pmc;
      }
      __asm__ __volatile__("" ::: "memory");
    } while (PC->lock != Seq);
    if (Ok) {
      Value = Count;
      return true;
    }
  }
  uint64_t V = 0;
  if (::read(Fd, &V, sizeof(V)) != (ssize_t)sizeof(V))
    return false;
  Value = V;
  return true;
}

bool probeEvent(const char *Name, perf_event_attr &Attr, char *Err,
                size_t ErrCap) {
  if (!encodeEvent(Name, Attr, Err, ErrCap))
    return false;
  PerfCounter C;
  return C.open(Attr, Name, Err, ErrCap);
}

} // namespace decan::rt
