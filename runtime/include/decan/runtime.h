//===- decan/runtime.h - Public C API of the decan runtime ---------------===//
//
// Part of decan. Usable from C and C++. Programs may call these whether or
// not they run under `decan run`; outside it every call is a cheap no-op.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_H
#define DECAN_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// "MAJOR.MINOR.PATCH" of the runtime linked into the program.
const char *decan_version(void);

#ifdef __cplusplus
}
#endif

#endif // DECAN_RUNTIME_H
