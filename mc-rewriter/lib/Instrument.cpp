//===- Instrument.cpp - Make any program measurable by decan --------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/Instrument.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/NestFinder.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <unistd.h>

using namespace llvm;
using namespace decan::rewriter;

static void writeCopyMap(const RewriteResult &R, StringRef Copy);

std::string decan::rewriter::rewrittenPath(StringRef Input, StringRef OutDir) {
  if (OutDir.empty())
    return (Input + ".decan").str();
  SmallString<256> P(OutDir);
  sys::path::append(P, sys::path::filename(Input));
  return std::string(P);
}

/// The host CPU's instruction knowledge and the input file.
static Expected<std::pair<std::unique_ptr<decan::X86Knowledge>,
                          std::unique_ptr<BinaryImage>>>
openInput(StringRef Input) {
  auto X86 = decan::X86Knowledge::createForHost();
  if (!X86)
    return X86.takeError();
  auto Bin = BinaryImage::open(Input);
  if (!Bin)
    return Bin.takeError();
  return std::make_pair(std::move(*X86), std::move(*Bin));
}

Expected<RewrittenFile> decan::rewriter::rewriteFile(StringRef Input,
                                                     StringRef Output,
                                                     const RewriteOptions &RW) {
  auto In = openInput(Input);
  if (!In)
    return In.takeError();
  auto &[X86, Bin] = *In;
  if (Bin->hasDecanMeta())
    return createStringError(inconvertibleErrorCode(),
                             "'%s' already carries decan metadata (built "
                             "with the plugin or already rewritten)",
                             Input.str().c_str());
  RewrittenFile F;
  auto Loops = findLoops(*Bin, *X86, nullptr, /*WithLines=*/true, RW.Threads);
  if (!Loops)
    return Loops.takeError();
  F.Loops = std::move(*Loops);
  if (RW.Regions)
    F.Regions = findRegions(*Bin, *X86, F.Loops);
  if (RW.Nests)
    for (LoopCandidate &N : findNests(*Bin, *X86, F.Loops))
      F.Loops.push_back(std::move(N));
  auto R = rewriteBinary(*Bin, *X86, F.Loops, Output, RW, F.Regions);
  if (!R)
    return R.takeError();
  F.Result = std::move(*R);
  return F;
}

Expected<std::vector<LoopCandidate>>
decan::rewriter::findLoopsInFile(StringRef Input, FinderStats *Stats) {
  auto In = openInput(Input);
  if (!In)
    return In.takeError();
  return findLoops(*In->second, *In->first, Stats);
}

Expected<bool> decan::rewriter::hasDecanMetadata(StringRef Path) {
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin)
    return createStringError(inconvertibleErrorCode(), "'%s': %s",
                             Path.str().c_str(),
                             toString(Bin.takeError()).c_str());
  for (const object::SectionRef &Sec : Bin->getBinary()->sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (Name && *Name == ".decan.meta")
      return true;
    consumeError(Name.takeError());
  }
  return false;
}

Expected<std::string> decan::rewriter::ensureInstrumented(StringRef Path,
                                                          StringRef OutDir) {
  Expected<bool> Has = hasDecanMetadata(Path);
  if (!Has)
    return Has.takeError();
  if (*Has)
    return Path.str();
  if (!OutDir.empty())
    if (std::error_code EC = sys::fs::create_directories(OutDir))
      return createStringError(EC, "cannot create '%s': %s",
                               OutDir.str().c_str(), EC.message().c_str());
  std::string Out = rewrittenPath(Path, OutDir);
  if (Expected<RewrittenFile> F = rewriteFile(Path, Out); !F)
    return F.takeError();
  return Out;
}

std::string decan::rewriter::rewriteCacheDir() {
  if (auto Off = sys::Process::GetEnv("DECAN_CACHE"))
    if (*Off == "0" || *Off == "off" || *Off == "no")
      return "";
  if (auto D = sys::Process::GetEnv("DECAN_CACHE_DIR"); D && !D->empty())
    return *D;
  SmallString<256> P;
  if (auto X = sys::Process::GetEnv("XDG_CACHE_HOME"); X && !X->empty())
    P = *X;
  else if (auto H = sys::Process::GetEnv("HOME"); H && !H->empty())
    sys::path::append(P, *H, ".cache");
  else
    return "";
  sys::path::append(P, "decan");
  return std::string(P);
}

/// This decan build: a rebuilt rewriter must not reuse older copies.
static std::string toolIdentity() {
  std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
  sys::fs::file_status St;
  if (Exe.empty() || sys::fs::status(Exe, St))
    return "unknown";
  return Exe + ";" + std::to_string(St.getSize()) + ";" +
         std::to_string(
             St.getLastModificationTime().time_since_epoch().count());
}

/// Keeps the cache under DECAN_CACHE_MAX_MB (default 4096): the entries
/// used longest ago go first.
static void pruneCache(StringRef Dir) {
  uint64_t Max = 4096;
  if (auto M = sys::Process::GetEnv("DECAN_CACHE_MAX_MB"))
    if (!StringRef(*M).getAsInteger(10, Max) && !Max)
      return;
  struct Entry {
    std::string Path;
    uint64_t Size = 0;
    sys::TimePoint<> Used;
  };
  std::vector<Entry> Entries;
  uint64_t Total = 0;
  std::error_code EC;
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    // A copy being written (instrumentCached's ENTRY.tmpPID) whose
    // process is gone: never to be completed.
    StringRef Name = sys::path::filename(I->path());
    if (size_t T = Name.rfind(".tmp"); T != StringRef::npos) {
      int Pid;
      if (!Name.drop_front(T + 4).getAsInteger(10, Pid) && Pid > 0 &&
          ::kill(Pid, 0) != 0 && errno == ESRCH)
        sys::fs::remove_directories(I->path());
      continue;
    }
    Entry En;
    En.Path = I->path();
    std::error_code EC2;
    for (sys::fs::directory_iterator F(En.Path, EC2), FE; F != FE && !EC2;
         F.increment(EC2)) {
      sys::fs::file_status St;
      if (sys::fs::status(F->path(), St))
        continue;
      En.Size += St.getSize();
      En.Used = std::max(En.Used, St.getLastModificationTime());
    }
    Total += En.Size;
    Entries.push_back(std::move(En));
  }
  llvm::sort(Entries,
             [](const Entry &A, const Entry &B) { return A.Used < B.Used; });
  for (const Entry &En : Entries) {
    if (Total <= Max << 20)
      break;
    sys::fs::remove_directories(En.Path);
    Total -= En.Size;
  }
}

/// Renames the complete \p Staging directory into the cache as \p Entry,
/// and returns the copy of \p Input there. Another run may have filled
/// the entry meanwhile, or filled it before under another file name (the
/// same bytes as another name: a library and its symlinked or copied
/// twin): the staged files join that entry by name. An entry is never
/// removed here: a run that found it has already pointed its program at
/// the copy in it (LD_LIBRARY_PATH, DECAN_LIB_MAP), and a removal before
/// the program loaded it made it load the original, unmeasured.
static Expected<std::string> keepEntry(StringRef Staging, StringRef Entry,
                                       StringRef Input) {
  std::string Copy = rewrittenPath(Input, Entry);
  std::error_code EC = sys::fs::rename(Staging, Entry);
  if (EC && sys::fs::is_directory(Entry)) {
    // Each staged file (the copy last: its presence means a complete
    // copy) joins the entry unless one of that name is already there.
    std::error_code EC2;
    std::vector<std::string> Files;
    for (sys::fs::directory_iterator I(Staging, EC2), E; I != E && !EC2;
         I.increment(EC2))
      Files.push_back(I->path());
    std::string StagedCopy = rewrittenPath(Input, Staging);
    llvm::erase(Files, StagedCopy);
    Files.push_back(StagedCopy);
    EC = EC2;
    for (const std::string &F : Files) {
      SmallString<256> To(Entry);
      sys::path::append(To, sys::path::filename(F));
      if (!EC && !sys::fs::exists(To))
        EC = sys::fs::rename(F, To);
    }
  }
  sys::fs::remove_directories(Staging); // gone when renamed whole
  if (EC && !sys::fs::exists(Copy))
    return createStringError(EC, "cannot move '%s' into the cache as '%s': %s",
                             Staging.str().c_str(), Entry.str().c_str(),
                             EC.message().c_str());
  return Copy;
}

namespace {
/// The input of the last base copy for late variants and its loops: its
/// late packs are built from them (buildLatePackFile).
struct LateInput {
  std::string Path;
  sys::TimePoint<> Modified;
  std::unique_ptr<decan::X86Knowledge> X86;
  std::unique_ptr<BinaryImage> Bin;
  std::vector<LoopCandidate> Loops;
};
LateInput &lateInput() {
  static LateInput L;
  return L;
}
} // namespace

Expected<std::string>
decan::rewriter::instrumentCached(StringRef Path, StringRef OutDir,
                                  const RewriteOptions &RW, bool *Hit,
                                  std::string *CacheProblem) {
  if (Hit)
    *Hit = false;
  Expected<bool> Has = hasDecanMetadata(Path);
  if (!Has)
    return Has.takeError();
  if (*Has)
    return Path.str();
  std::string Dir = rewriteCacheDir();
  // Entry: the cache entry; Staging: where its copy is written first.
  std::string Entry, Staging, ContentKey;
  if (!Dir.empty()) {
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf)
      return createStringError(Buf.getError(), "cannot read '%s': %s",
                               Path.str().c_str(),
                               Buf.getError().message().c_str());
    std::vector<std::string> Only = RW.OnlyLoops;
    llvm::sort(Only);
    std::string Opts =
        "rw1;" + toolIdentity() + ";abi" + std::to_string(DECAN_ABI_VERSION) +
        ";" +
        (RW.LateBase  ? "late" + std::to_string(RW.LateReserve)
         : RW.Profile ? "profile"
                      : "mask" + std::to_string(RW.VariantMask)) +
        (RW.OnlyListed ? ";listed" : ";") +
        (RW.ListUnselected ? ";" : ";quiet") + (RW.Regions ? ";regions" : "") +
        (RW.Nests ? ";nests" : "") + ";" + join(Only, ",");
    ContentKey = utohexstr(
        xxh3_64bits(arrayRefFromStringRef((*Buf)->getBuffer())), true);
    SmallString<256> P(Dir);
    sys::path::append(P, ContentKey + "-" +
                             utohexstr(xxh3_64bits(arrayRefFromStringRef(Opts)),
                                       /*LowerCase=*/true));
    Entry = std::string(P);
    SmallString<256> Copy(Entry);
    sys::path::append(Copy, sys::path::filename(Path));
    if (sys::fs::exists(Copy)) {
      // Used now: the last to be pruned (best effort).
      int FD;
      if (!sys::fs::openFileForWrite(Copy, FD, sys::fs::CD_OpenExisting,
                                     sys::fs::OF_Append)) {
        (void)sys::fs::setLastAccessAndModificationTime(
            FD, std::chrono::system_clock::now());
        ::close(FD);
      }
      if (Hit)
        *Hit = true;
      return std::string(Copy);
    }
    // The copy is written into a directory of this process, renamed to
    // the entry once complete: an entry is never seen half written, and
    // a failed rewrite leaves nothing.
    Staging = (Entry + ".tmp" + Twine(::getpid())).str();
    std::error_code EC = sys::fs::create_directories(Dir);
    if (!EC) {
      sys::fs::remove_directories(Staging); // a dead process's, same pid
      EC = sys::fs::create_directory(Staging, /*IgnoreExisting=*/false);
    }
    if (!EC && ::access(Staging.c_str(), W_OK | X_OK) != 0)
      EC = std::error_code(errno, std::generic_category());
    if (EC) {
      // Not writable: rewrite into OutDir instead, and say so.
      if (CacheProblem)
        *CacheProblem = "cannot write the cache directory " + Dir + ": " +
                        EC.message() + "; rewritten copies are not cached";
      sys::fs::remove_directories(Staging);
      Entry.clear();
      Staging.clear();
    }
  }
  // Whatever fails from here on leaves no partial entry.
  scope_exit RemoveStaging([&] {
    if (!Staging.empty())
      sys::fs::remove_directories(Staging);
  });
  std::string Out;
  if (!Staging.empty()) {
    Out = rewrittenPath(Path, Staging);
  } else {
    if (!OutDir.empty())
      if (std::error_code EC = sys::fs::create_directories(OutDir))
        return createStringError(EC, "cannot create '%s': %s",
                                 OutDir.str().c_str(), EC.message().c_str());
    Out = rewrittenPath(Path, OutDir);
  }
  // `decan run` rewrites a file twice (the profiling copy, then variants
  // for the loops that ran): the input and its loops are found once.
  struct Opened {
    std::string Key;
    std::unique_ptr<decan::X86Knowledge> X86;
    std::unique_ptr<BinaryImage> Bin;
    std::vector<LoopCandidate> Loops;
    std::vector<RegionCandidate> Regions;
    bool HasRegions = false, HasNests = false;
  };
  static Opened Last;
  std::string Key = ContentKey.empty() ? "" : Path.str() + ";" + ContentKey;
  if (Key.empty() || Last.Key != Key) {
    Last = Opened();
    auto In = openInput(Path);
    if (!In)
      return In.takeError();
    if (In->second->hasDecanMeta())
      return createStringError(inconvertibleErrorCode(),
                               "'%s' already carries decan metadata",
                               Path.str().c_str());
    auto Loops = findLoops(*In->second, *In->first, nullptr,
                           /*WithLines=*/true, RW.Threads);
    if (!Loops)
      return Loops.takeError();
    Last.X86 = std::move(In->first);
    Last.Bin = std::move(In->second);
    Last.Loops = std::move(*Loops);
    Last.Key = Key;
  }
  if (RW.Regions && !Last.HasRegions) {
    Last.Regions = findRegions(*Last.Bin, *Last.X86, Last.Loops);
    Last.HasRegions = true;
  }
  // Nests after regions (which read only the innermost loops' trampolines);
  // a rewrite without --nests leaves them out (RewriteOptions::Nests).
  if (RW.Nests && !Last.HasNests) {
    for (LoopCandidate &N : findNests(*Last.Bin, *Last.X86, Last.Loops))
      Last.Loops.push_back(std::move(N));
    Last.HasNests = true;
  }
  auto R =
      rewriteBinary(*Last.Bin, *Last.X86, Last.Loops, Out, RW,
                    RW.Regions ? Last.Regions : std::vector<RegionCandidate>());
  if (!R)
    return R.takeError();
  writeCopyMap(*R, Out);
  if (!Staging.empty()) {
    Expected<std::string> Kept = keepEntry(Staging, Entry, Path);
    Staging.clear(); // renamed, or removed by keepEntry
    if (!Kept)
      return Kept.takeError();
    Out = *Kept;
  }
  if (RW.LateBase) {
    // Its late packs are built from the same input and loops.
    sys::fs::file_status St;
    if (!sys::fs::status(Path, St)) {
      LateInput &LI = lateInput();
      LI.Path = Path.str();
      LI.Modified = St.getLastModificationTime();
      LI.X86 = std::move(Last.X86);
      LI.Bin = std::move(Last.Bin);
      LI.Loops = std::move(Last.Loops);
    }
  }
  if (Key.empty() || !RW.Profile)
    Last = Opened(); // a profiling copy is followed by the final one
  if (!Entry.empty())
    pruneCache(Dir);
  return Out;
}

std::string decan::rewriter::copyMapPath(StringRef Copy) {
  return (Copy + ".decan-copies").str();
}

/// copyMapPath(\p Copy)'s file for \p R (best effort: the HTML report
/// goes without listings when it is missing).
static void writeCopyMap(const RewriteResult &R, StringRef Copy) {
  std::error_code EC;
  raw_fd_ostream OS(copyMapPath(Copy), EC);
  if (EC)
    return;
  for (const LoopOutcome &O : R.Loops)
    for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
      if (O.Rewritten && (O.VariantMask >> V & 1) &&
          O.Copies[V].second > O.Copies[V].first)
        OS << O.Id << '\t' << decan_variant_name(V) << '\t'
           << utohexstr(O.Copies[V].first) << '\t'
           << utohexstr(O.Copies[V].second) << '\n';
}

std::vector<MappedCopy> decan::rewriter::readCopyMap(StringRef Copy) {
  std::vector<MappedCopy> Out;
  auto Buf = MemoryBuffer::getFile(copyMapPath(Copy), /*IsText=*/true);
  if (!Buf)
    return Out;
  SmallVector<StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (StringRef Line : Lines) {
    SmallVector<StringRef, 4> F;
    Line.split(F, '\t');
    MappedCopy C;
    int V = F.size() == 4 ? decan_variant_parse(F[1].data(), F[1].size()) : -1;
    if (V < 0 || F[2].getAsInteger(16, C.Begin) ||
        F[3].getAsInteger(16, C.End) || C.End <= C.Begin)
      continue;
    C.Id = F[0].str();
    C.Variant = unsigned(V);
    Out.push_back(std::move(C));
  }
  return Out;
}

Expected<LatePackResult>
decan::rewriter::buildLatePackFile(StringRef Input, StringRef BasePath,
                                   ArrayRef<std::string> Ids, StringRef OutPath,
                                   const LatePackOptions &Opts) {
  LateInput &Last = lateInput();
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Input, St))
    return createStringError(EC, "cannot read '%s': %s", Input.str().c_str(),
                             EC.message().c_str());
  if (Last.Path != Input || Last.Modified != St.getLastModificationTime()) {
    Last = LateInput();
    auto In = openInput(Input);
    if (!In)
      return In.takeError();
    auto Loops = findLoops(*In->second, *In->first);
    if (!Loops)
      return Loops.takeError();
    Last.X86 = std::move(In->first);
    Last.Bin = std::move(In->second);
    Last.Loops = std::move(*Loops);
    Last.Path = Input.str();
    Last.Modified = St.getLastModificationTime();
  }
  return buildLatePack(*Last.Bin, *Last.X86, Last.Loops, BasePath, Ids, OutPath,
                       Opts);
}
