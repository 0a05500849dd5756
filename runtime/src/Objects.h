//===- Objects.h - The objects a process loads, and --lib copies -*- C++
//-*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the runtime knows of the process's loaded objects (executable and
/// shared libraries, those loaded by dlopen included):
///
/// * rewritten objects carry a DECANRW1 header (abi.h) that must be fixed up
///   and registered: scanLoadedObjects() walks dl_iterate_phdr at startup
///   and again after every dlopen (DlopenHook.cpp), relocating each header
///   once;
/// * the report lists every loaded object's path ("objects"), so `decan run`
///   can say where a program's time likely is and whether the `--lib`
///   libraries were the ones loaded;
/// * `decan run --lib` rewrites libraries into copies; the dynamic loader
///   finds a copy by name (LD_LIBRARY_PATH), but a dlopen by full path
///   names the original file. DECAN_LIB_MAP names a file of lines
///   `<st_dev> <st_ino> <path of the copy>`: a dlopen of a file with that
///   identity (through any symlink or spelling) loads the copy instead.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_OBJECTS_H
#define DECAN_RUNTIME_OBJECTS_H

namespace decan::rt {

class JsonOut;

/// Reads the DECAN_LIB_MAP file \p Path ("" = none); replaces the previous
/// map. Returns false (and says why on stderr) when it cannot be read.
bool loadLibraryMap(const char *Path);

/// The copy to load instead of \p Path when \p Path (containing a '/') is
/// the file of a `--lib` library; \p Path itself otherwise.
const char *redirectLibrary(const char *Path);

/// Records the loaded objects and relocates and registers the rewritten
/// ones not seen before. Serialized; returns how many headers it relocated.
unsigned scanLoadedObjects();

/// Writes the "objects" array: paths of the loaded objects seen by the
/// last scan, in load order (async-signal-safe: no lock, no allocation).
void emitObjects(JsonOut &J);

/// The file name (no directory) of the shared library that holds
/// \p Addr, a copy to keep; "" for the executable or an address no object
/// maps. What a loop's "object" says in the report (a library's loops are
/// `libm.so.6!f:L0` in `decan report`). Not async-signal-safe.
const char *objectNameOf(const void *Addr);

/// Forgets the objects recorded (tests).
void resetObjectsForTesting();

} // namespace decan::rt

#endif // DECAN_RUNTIME_OBJECTS_H
