// A driver for {fmt} 9 (Debian libfmt-dev) in header-only mode: integer,
// floating-point (Dragonbox), string and padded formatting, and a
// checksum so the output shows any change in what was formatted.
#define FMT_HEADER_ONLY
#include <cstdio>
#include <cstdlib>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  int N = argc > 1 ? std::atoi(argv[1]) : 300000;
  unsigned long long Sum = 0;
  fmt::memory_buffer Buf;
  std::vector<int> V;
  for (int I = 0; I < 16; ++I)
    V.push_back(I * I);
  unsigned Seed = 12345;
  for (int I = 0; I < N; ++I) {
    Seed = Seed * 1103515245u + 12345u;
    Buf.clear();
    fmt::format_to(std::back_inserter(Buf), "{} {:x} {:>12} {:.6g} {:e}|", I,
                   Seed, -(long long)Seed * 7, Seed / 1234.5, I * 0.1);
    fmt::format_to(std::back_inserter(Buf), "{:*^20} {:08.3f} {}", "mid",
                   Seed * 1e-7, I % 97 == 0 ? fmt::format("{}", V) : "");
    for (char C : Buf)
      Sum = Sum * 131 + (unsigned char)C;
  }
  std::string Last(Buf.data(), Buf.size());
  fmt::print("{}\n{}\n", Last, Sum);
  return 0;
}
