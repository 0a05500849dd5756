//===- JsonOut.h - Async-signal-safe JSON writer ---------------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writes JSON straight to a file descriptor through a fixed buffer: no
/// malloc, no stdio, no locale, only write(2). This is what lets the report
/// be written from a SIGSEGV handler with the same code as at exit. Numbers
/// are formatted by hand (integers exactly; doubles with 6 fractional
/// digits, or 10 significant digits in exponent form outside [1e-6, 1e18)).
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_JSONOUT_H
#define DECAN_RUNTIME_JSONOUT_H

#include <stddef.h>
#include <stdint.h>

namespace decan::rt {

class JsonOut {
public:
  /// Fd < 0 collects into the buffer only (tests); see text().
  explicit JsonOut(int Fd) : Fd(Fd) {}

  void beginObject();
  void endObject();
  void beginArray();
  void endArray();
  /// Object key; the next value belongs to it.
  void key(const char *K);

  void str(const char *S);
  /// String from `N` bytes (may contain NULs, escaped).
  void strN(const char *S, size_t N);
  void u64(uint64_t V);
  void i64(int64_t V);
  void dbl(double V);
  void boolean(bool B);
  void null();

  /// Writes out what is buffered. False if any write failed so far.
  bool flush();
  bool failed() const { return Failed; }
  /// With Fd < 0: the text collected so far (NUL-terminated, truncated at
  /// the buffer size).
  const char *text();

  /// Formats V into Out (at least 32 bytes); returns the length.
  static size_t formatDouble(double V, char *Out);
  static size_t formatU64(uint64_t V, char *Out);

private:
  void put(char C);
  void put(const char *S, size_t N);
  void valuePrefix();
  void escaped(const char *S, size_t N);

  static constexpr size_t kBufSize = 16384;
  static constexpr int kMaxDepth = 32;
  int Fd;
  bool Failed = false;
  bool AfterKey = false;
  int Depth = 0;
  bool NeedComma[kMaxDepth + 1] = {};
  size_t Len = 0;
  char Buf[kBufSize + 1];
};

} // namespace decan::rt

#endif // DECAN_RUNTIME_JSONOUT_H
