//===- Records.cpp - Per-thread record buffers ----------------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "Records.h"

#include <stdlib.h>

namespace decan::rt {

bool RecordBuffer::init(unsigned S, uint64_t MaxRecords) {
  Stride = S;
  Max = MaxRecords;
  NumChunkSlots = (MaxRecords + kChunkRecords - 1) / kChunkRecords;
  if (NumChunkSlots == 0)
    return true;
  Chunks = static_cast<uint64_t **>(calloc(NumChunkSlots, sizeof(uint64_t *)));
  return Chunks != nullptr;
}

uint64_t *RecordBuffer::next() {
  if (Written >= Max || !Chunks)
    return nullptr;
  uint64_t C = Written / kChunkRecords;
  if (!Chunks[C]) {
    // Amortized: once per kChunkRecords calls, outside the timed region.
    void *P = calloc(kChunkRecords, Stride * sizeof(uint64_t));
    if (!P)
      return nullptr;
    Chunks[C] = static_cast<uint64_t *>(P);
  }
  return Chunks[C] + (Written % kChunkRecords) * Stride;
}

} // namespace decan::rt
