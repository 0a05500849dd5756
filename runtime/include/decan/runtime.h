//===- decan/runtime.h - Public C API of the decan runtime ---------------===//
//
// Part of decan. Usable from C and C++. Programs may call these whether or
// not they run under `decan run`; outside it (DECAN_LOOPS unset) every call
// is a cheap no-op that prints nothing and writes no file.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Hand-placed probes, in the spirit of likwid's marker API:
/// \code
///   #include <decan/runtime.h>
///   decan_region_begin("solve");
///   solve();                       // timed with decan/tsc.h's sequence
///   decan_region_end();
/// \endcode
/// A region shows up in the report as a loop with id "region:<name>" and
/// only the REF variant. Regions nest (up to 16 deep per thread); end closes
/// the innermost open region of the calling thread.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_H
#define DECAN_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// "MAJOR.MINOR.PATCH" of the runtime linked into the program.
const char *decan_version(void);

/// Writes the report now (atomically, status "flushed"); the final report is
/// still written at exit. Returns 0 on success or when inert, -1 on error.
int decan_flush(void);

/// Opens the region `name` on the calling thread (the name is copied the
/// first time it is seen). Measured when DECAN_LOOPS is `all` or lists
/// "region:<name>".
void decan_region_begin(const char *name);

/// Closes the innermost open region of the calling thread and records it.
void decan_region_end(void);

/// Nonzero when the runtime measures this run (DECAN_LOOPS is set).
int decan_active(void);

#ifdef __cplusplus
}
#endif

#endif // DECAN_RUNTIME_H
