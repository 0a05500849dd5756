//===- LatePacks.cpp - Late variants: base copies and their packs ---------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LatePacks.h"
#include "decan/Tool/ElfFacts.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Output.h"
#include "decan/Tool/RunTarget.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cstring>

using namespace llvm;

namespace decan::tool {

/// Where the pack at \p Path ends in the late range.
static std::optional<uint64_t> rangeEnd(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf || (*Buf)->getBufferSize() < sizeof(decan_late_pack_header))
    return std::nullopt;
  decan_late_pack_header H;
  memcpy(&H, (*Buf)->getBufferStart(), sizeof(H));
  if (memcmp(H.magic, "DECANLP1", 8) || H.abi_version != DECAN_ABI_VERSION)
    return std::nullopt;
  return alignTo(H.scratch_offset + H.scratch_size, 4096);
}

static std::vector<std::string> readLines(StringRef Path) {
  std::vector<std::string> Out;
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return Out;
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (StringRef L : Lines)
    if (!L.trim().empty())
      Out.push_back(L.trim().str());
  return Out;
}

/// Files next to a cached copy appear whole (writeOutput): a run killed
/// while writing leaves the last complete one.
static void writeLines(StringRef Path, ArrayRef<std::string> Lines) {
  std::string Text;
  for (const std::string &L : Lines)
    Text += L + "\n";
  consumeError(writeOutput(Path, Text));
}

/// Copies \p From to \p To; true on failure, as sys::fs::copy_file.
static bool cacheCopy(StringRef From, StringRef To) {
  auto Buf = MemoryBuffer::getFile(From, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return true;
  if (Error E = writeOutput(To, (*Buf)->getBuffer())) {
    consumeError(std::move(E));
    return true;
  }
  return false;
}

void LatePacks::add(StringRef Input, StringRef Copy) {
  if (Input.empty() || Copy.empty())
    return;
  for (const Base &B : Bases)
    if (B.Copy == Copy)
      return;
  Base B;
  B.Input = Input.str();
  B.Copy = Copy.str();
  B.Name = sys::path::filename(Copy).str();
  Bases.push_back(std::move(B));
}

/// Before a run: the cached packs into the late directory (round 0).
Error LatePacks::stage() {
  sys::fs::remove_directories(Dir);
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError("cannot create '%s': %s", Dir.c_str(),
                             EC.message().c_str());
  for (Base &B : Bases)
    stageOne(B);
  Start = std::chrono::steady_clock::now();
  return Error::success();
}

/// While the program runs: a copy it opens with dlopen (DlopenCopies.h),
/// its cached pack staged before the program loads it.
void LatePacks::addDuringRun(StringRef Input, StringRef Copy) {
  size_t Before = Bases.size();
  add(Input, Copy);
  if (Bases.size() > Before)
    stageOne(Bases.back());
}

/// While the program runs: answers each request with a pack.
void LatePacks::poll() {
  for (Base &B : Bases)
    while (sys::fs::exists(round(B, "request", B.Round))) {
      unsigned K = B.Round++;
      std::vector<std::string> Ids = readLines(round(B, "request", K));
      // Loops no pack can hold (an earlier run's build left them out)
      // are not built again: nothing to wait for.
      llvm::erase_if(
          Ids, [&](const std::string &Id) { return is_contained(B.Left, Id); });
      double At = seconds();
      rewriter::LatePackOptions O = Opts;
      O.RangeOffset = B.NextOffset;
      if (Ids.empty()) {
        std::error_code EC;
        raw_fd_ostream(round(B, "nopack", K), EC);
        continue;
      }
      auto R = rewriter::buildLatePackFile(B.Input, B.Copy, Ids,
                                           round(B, "pack", K), O);
      if (!R) {
        Log << "decan: warning: " << B.Name
            << ": no late variants: " << toString(R.takeError()) << "\n";
        // A program waiting for this pack goes on.
        std::error_code EC;
        raw_fd_ostream(round(B, "nopack", K), EC);
        continue;
      }
      B.NextOffset = R->RangeEnd;
      append_range(B.Built, R->Built);
      Log << formatv("decan: {0}: variants of {1} loop(s) that ran built "
                     "{2:F1} s into the run, ready at {3:F1} s{4}\n",
                     B.Name, R->Built.size(), At, seconds(),
                     Wait ? " (the program waited for them: not its time)"
                          : "");
    }
}

/// After the run: every loop that ran goes into the pack of the next
/// run, built again in one piece unless the run's only pack is it.
void LatePacks::finish() {
  for (Base &B : Bases) {
    std::vector<std::string> Ids = B.Cached;
    auto Add = [&](ArrayRef<std::string> More) {
      for (const std::string &Id : More)
        if (!is_contained(Ids, Id))
          Ids.push_back(Id);
    };
    Add(B.Built);
    size_t BeforeRan = Ids.size();
    std::error_code EC;
    for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      if (sys::path::filename(It->path()).starts_with(B.Name + ".ran."))
        Add(readLines(It->path()));
    llvm::erase_if(
        Ids, [&](const std::string &Id) { return is_contained(B.Left, Id); });
    size_t Missed = Ids.size() - std::min(Ids.size(), BeforeRan);
    if (Ids.size() == B.Cached.size())
      continue;
    if (B.Cached.empty() && B.Round == 1 && !Missed &&
        sys::fs::exists(round(B, "pack", 0))) {
      // The run's one pack is at the range's start: it is the next run's.
      if (!cacheCopy(round(B, "pack", 0), B.Copy + ".pack"))
        keepLoops(B, B.Built);
      continue;
    }
    std::string Tmp = path(B, ".next.pack");
    auto R = rewriter::buildLatePackFile(B.Input, B.Copy, Ids, Tmp, Opts);
    if (!R) {
      Log << "decan: warning: " << B.Name
          << ": no late variants for the next run: " << toString(R.takeError())
          << "\n";
      continue;
    }
    if (cacheCopy(Tmp, B.Copy + ".pack"))
      continue;
    keepLoops(B, R->Built);
    // What no pack can hold, so that no later run waits for it.
    for (const auto &[Id, Why] : R->Left)
      B.Left.push_back(Id);
    writeLines(B.Copy + ".pack-left", B.Left);
    if (Missed)
      Log << formatv("decan: {0}: {1} loop(s) ran without variants (the "
                     "run ended before their pack, or they first ran "
                     "after the last request): the next run starts with "
                     "variants for {2} loop(s)\n",
                     B.Name, Missed, R->Built.size());
  }
}

/// Its cached pack into the late directory (round 0), if any.
void LatePacks::stageOne(Base &B) {
  B.Round = 0;
  B.NextOffset = 0;
  B.Cached = readLines(B.Copy + ".pack-loops");
  B.Left = readLines(B.Copy + ".pack-left");
  B.Built.clear();
  if (!B.Cached.empty() &&
      !sys::fs::copy_file(B.Copy + ".pack", round(B, "pack", 0))) {
    if (auto End = rangeEnd(round(B, "pack", 0))) {
      B.Round = 1;
      B.NextOffset = *End;
      Log << formatv("decan: {0}: the variants of {1} loop(s) from the "
                     "last run (cached)\n",
                     B.Name, B.Cached.size());
    }
  }
  if (!B.Round)
    B.Cached.clear();
}

std::string LatePacks::path(const Base &B, StringRef Suffix) const {
  return (Dir + "/" + B.Name + Suffix).str();
}

std::string LatePacks::round(const Base &B, StringRef Kind, unsigned K) const {
  return (Dir + "/" + B.Name + "." + Kind + "." + Twine(K)).str();
}

void LatePacks::keepLoops(Base &B, ArrayRef<std::string> Built) {
  writeLines(B.Copy + ".pack-loops", Built);
}

double LatePacks::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

std::optional<std::string> lateByDefault(StringRef Program, bool ProgramPlain,
                                         ArrayRef<std::string> Libs) {
  double MinMb = LateMinMegabytes;
  if (auto E = sys::Process::GetEnv("DECAN_LATE_MIN_MB")) {
    double V;
    if (!StringRef(*E).trim().getAsDouble(V) && V >= 0)
      MinMb = V;
  }
  uint64_t Bytes = 0;
  std::string Largest;
  uint64_t LargestBytes = 0;
  auto Count = [&](StringRef Path) {
    uint64_t Size;
    if (sys::fs::file_size(Path, Size) || !isELF(Path))
      return;
    auto Table = readLoopTable(Path);
    if (!Table) {
      consumeError(Table.takeError());
      return;
    }
    if (Table->has_value())
      return; // plugin-built: nothing to rewrite
    Bytes += Size;
    if (Size >= LargestBytes) {
      LargestBytes = Size;
      Largest = sys::path::filename(Path).str();
    }
  };
  if (!ProgramPlain && !isLauncher(Program))
    Count(Program);
  for (const std::string &L : Libs)
    Count(L);
  if (!Bytes || double(Bytes) < MinMb * 1e6)
    return std::nullopt;
  return formatv("{0} is {1:F1} MB", Largest, LargestBytes / 1e6).str();
}

} // namespace decan::tool
