//===- Runtime.cpp - decan runtime entry points ---------------------------===//
#include "decan/runtime.h"

extern "C" __attribute__((visibility("default"))) const char *
decan_version(void) {
  return DECAN_VERSION;
}
