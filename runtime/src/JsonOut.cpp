//===- JsonOut.cpp - Async-signal-safe JSON writer ------------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "JsonOut.h"

#include <errno.h>
#include <math.h>
#include <unistd.h>

namespace decan::rt {

void JsonOut::put(char C) {
  if (Len == kBufSize && !flush())
    return;
  Buf[Len++] = C;
}

void JsonOut::put(const char *S, size_t N) {
  for (size_t I = 0; I < N; ++I)
    put(S[I]);
}

bool JsonOut::flush() {
  if (Fd < 0) {
    if (Len == kBufSize)
      Failed = true; // the collected text is truncated
    return !Failed && Len < kBufSize;
  }
  size_t Off = 0;
  while (Off < Len) {
    ssize_t W = ::write(Fd, Buf + Off, Len - Off);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0) {
      Failed = true;
      break;
    }
    Off += (size_t)W;
  }
  Len = 0;
  return !Failed;
}

const char *JsonOut::text() {
  Buf[Len] = 0;
  return Buf;
}

void JsonOut::valuePrefix() {
  if (AfterKey) {
    AfterKey = false;
    return;
  }
  if (NeedComma[Depth])
    put(',');
  NeedComma[Depth] = true;
}

void JsonOut::beginObject() {
  valuePrefix();
  put('{');
  if (Depth < kMaxDepth)
    ++Depth;
  NeedComma[Depth] = false;
}

void JsonOut::endObject() {
  put('}');
  if (Depth > 0)
    --Depth;
}

void JsonOut::beginArray() {
  valuePrefix();
  put('[');
  if (Depth < kMaxDepth)
    ++Depth;
  NeedComma[Depth] = false;
}

void JsonOut::endArray() {
  put(']');
  if (Depth > 0)
    --Depth;
}

void JsonOut::key(const char *K) {
  if (NeedComma[Depth])
    put(',');
  NeedComma[Depth] = true;
  size_t N = 0;
  while (K[N])
    ++N;
  escaped(K, N);
  put(':');
  AfterKey = true;
}

void JsonOut::strN(const char *S, size_t N) {
  valuePrefix();
  escaped(S, N);
}

void JsonOut::escaped(const char *S, size_t N) {
  static const char Hex[] = "0123456789abcdef";
  put('"');
  for (size_t I = 0; I < N; ++I) {
    unsigned char C = (unsigned char)S[I];
    switch (C) {
    case '"':
      put("\\\"", 2);
      break;
    case '\\':
      put("\\\\", 2);
      break;
    case '\n':
      put("\\n", 2);
      break;
    case '\t':
      put("\\t", 2);
      break;
    case '\r':
      put("\\r", 2);
      break;
    default:
      if (C < 0x20 || C == 0x7f) {
        char E[6] = {'\\', 'u', '0', '0', Hex[C >> 4], Hex[C & 15]};
        put(E, 6);
      } else {
        put((char)C);
      }
    }
  }
  put('"');
}

void JsonOut::str(const char *S) {
  if (!S) {
    null();
    return;
  }
  size_t N = 0;
  while (S[N])
    ++N;
  strN(S, N);
}

size_t JsonOut::formatU64(uint64_t V, char *Out) {
  char Tmp[24];
  size_t N = 0;
  do {
    Tmp[N++] = (char)('0' + V % 10);
    V /= 10;
  } while (V);
  for (size_t I = 0; I < N; ++I)
    Out[I] = Tmp[N - 1 - I];
  Out[N] = 0;
  return N;
}

void JsonOut::u64(uint64_t V) {
  valuePrefix();
  char B[24];
  put(B, formatU64(V, B));
}

void JsonOut::i64(int64_t V) {
  valuePrefix();
  char B[24];
  size_t N = 0;
  uint64_t U = (uint64_t)V;
  if (V < 0) {
    B[N++] = '-';
    U = 0 - U;
  }
  N += formatU64(U, B + N);
  put(B, N);
}

size_t JsonOut::formatDouble(double V, char *Out) {
  size_t N = 0;
  if (!isfinite(V)) {
    Out[0] = 'n', Out[1] = 'u', Out[2] = 'l', Out[3] = 'l', Out[4] = 0;
    return 4;
  }
  if (V < 0) {
    Out[N++] = '-';
    V = -V;
  }
  if (V != 0 && (V < 1e-6 || V >= 1e18)) {
    int E = (int)floor(log10(V));
    double M = V / pow(10.0, E);
    if (M >= 10) {
      M /= 10;
      ++E;
    }
    uint64_t Scaled = (uint64_t)(M * 1e9 + 0.5); // 10 significant digits
    if (Scaled >= 10000000000ull) {
      Scaled /= 10;
      ++E;
    }
    char D[24];
    size_t L = formatU64(Scaled, D);
    Out[N++] = D[0];
    Out[N++] = '.';
    for (size_t I = 1; I < L; ++I)
      Out[N++] = D[I];
    Out[N++] = 'e';
    if (E < 0) {
      Out[N++] = '-';
      E = -E;
    }
    N += formatU64((uint64_t)E, Out + N);
    return N;
  }
  uint64_t Scaled = (uint64_t)(V * 1e6 + 0.5);
  N += formatU64(Scaled / 1000000, Out + N);
  uint64_t Frac = Scaled % 1000000;
  if (Frac) {
    char F[7];
    for (int I = 5; I >= 0; --I) {
      F[I] = (char)('0' + Frac % 10);
      Frac /= 10;
    }
    int Last = 5;
    while (F[Last] == '0')
      --Last;
    Out[N++] = '.';
    for (int I = 0; I <= Last; ++I)
      Out[N++] = F[I];
  }
  Out[N] = 0;
  return N;
}

void JsonOut::dbl(double V) {
  valuePrefix();
  char B[40];
  put(B, formatDouble(V, B));
}

void JsonOut::boolean(bool B) {
  valuePrefix();
  if (B)
    put("true", 4);
  else
    put("false", 5);
}

void JsonOut::null() {
  valuePrefix();
  put("null", 4);
}

} // namespace decan::rt
