//===- Output.cpp - Writing what a decan command outputs ------------------===//
//
// Part of decan. See decan/Tool/Output.h for the rules.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace decan::tool {

namespace {

Error cannotWrite(StringRef Path, const Twine &Why) {
  return createStringError("cannot write '%s': %s", Path.str().c_str(),
                           Why.str().c_str());
}

Error cannotWrite(StringRef Path, int Errno) {
  return cannotWrite(Path,
                     std::error_code(Errno, std::generic_category()).message());
}

/// The descriptor \p Path names without a file of its own: "-" (standard
/// output), /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N (and
/// /proc/PID/fd/N of this process). Writing there must go through that
/// descriptor: opening the path again would start at offset 0 of what the
/// shell redirected it to, and renaming over it would miss it.
std::optional<int> namedDescriptor(StringRef Path) {
  if (Path == "-" || Path == "/dev/stdout")
    return 1;
  if (Path == "/dev/stderr")
    return 2;
  std::string Own = "/proc/" + std::to_string(::getpid()) + "/fd/";
  unsigned N;
  for (StringRef Prefix : {StringRef("/dev/fd/"), StringRef("/proc/self/fd/"),
                           StringRef("/proc/thread-self/fd/"), StringRef(Own)})
    if (Path.starts_with(Prefix) &&
        !Path.drop_front(Prefix.size()).getAsInteger(10, N))
      return static_cast<int>(N);
  return std::nullopt;
}

/// \p Path with its symbolic links followed as long as they name paths:
/// the file (or, for a dangling link, the file to create) that writing it
/// means. A descriptor (namedDescriptor) and /proc's links ("pipe:[123]",
/// another process's files) are not followed: the result is then that
/// path, which open() follows.
std::string followLinks(StringRef Path) {
  std::string P = Path.str();
  for (unsigned Hops = 0; Hops < 40; ++Hops) {
    if (namedDescriptor(P) || StringRef(P).starts_with("/proc/"))
      return P;
    struct stat St;
    if (::lstat(P.c_str(), &St) != 0 || !S_ISLNK(St.st_mode))
      return P;
    char Buf[4096];
    ssize_t N = ::readlink(P.c_str(), Buf, sizeof(Buf) - 1);
    if (N <= 0)
      return P;
    StringRef Target(Buf, N);
    SmallString<256> Next;
    if (sys::path::is_absolute(Target)) {
      Next = Target;
    } else {
      Next = sys::path::parent_path(P);
      sys::path::append(Next, Target);
    }
    // A magic link elsewhere: its target exists nowhere as a path.
    struct stat Via, Direct;
    if (::stat(P.c_str(), &Via) == 0 &&
        (::stat(Next.c_str(), &Direct) != 0 || Via.st_dev != Direct.st_dev ||
         Via.st_ino != Direct.st_ino))
      return P;
    P = std::string(Next);
  }
  return P;
}

/// Writes all of \p Contents to \p FD.
std::error_code writeAll(int FD, StringRef Contents) {
  while (!Contents.empty()) {
    ssize_t N = ::write(FD, Contents.data(), Contents.size());
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return std::error_code(errno, std::generic_category());
    }
    Contents = Contents.drop_front(N);
  }
  return {};
}

Error writeToDescriptor(StringRef Path, int FD, StringRef Contents) {
  // What decan already printed on it comes first.
  outs().flush();
  errs().flush();
  if (std::error_code EC = writeAll(FD, Contents))
    return cannotWrite(Path, EC.message());
  return Error::success();
}

/// A device, FIFO or socket, a regular file reached through /proc: opened
/// and written where it is, never created or replaced.
Error writeInPlace(StringRef Path, StringRef Shown, bool Truncate,
                   StringRef Contents) {
  int FD;
  do
    FD = ::open(Path.str().c_str(),
                O_WRONLY | O_CLOEXEC | O_NOCTTY | (Truncate ? O_TRUNC : 0));
  while (FD < 0 && errno == EINTR);
  if (FD < 0)
    return cannotWrite(Shown, errno);
  std::error_code EC = writeAll(FD, Contents);
  if (::close(FD) != 0 && !EC && errno != EINTR)
    EC = std::error_code(errno, std::generic_category());
  if (EC)
    return cannotWrite(Shown, EC.message());
  return Error::success();
}

/// A regular file or a new one: a temporary file next to it, renamed over
/// it. The temporary file is removed on any error, and on a signal.
Error replaceAtomically(StringRef File, StringRef Shown, StringRef Contents) {
  SmallString<256> Model(sys::path::parent_path(File));
  sys::path::append(Model,
                    "." + sys::path::filename(File) + ".decan-%%%%%%.tmp");
  int FD;
  SmallString<256> Tmp;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Tmp))
    return cannotWrite(Shown, EC.message());
  sys::RemoveFileOnSignal(Tmp);
  std::error_code EC = writeAll(FD, Contents);
  // An existing file keeps its permissions.
  struct stat St;
  if (!EC && ::stat(File.str().c_str(), &St) == 0 &&
      ::fchmod(FD, St.st_mode & 07777) != 0)
    EC = std::error_code(errno, std::generic_category());
  if (::close(FD) != 0 && !EC && errno != EINTR)
    EC = std::error_code(errno, std::generic_category());
  if (!EC)
    EC = sys::fs::rename(Tmp, File);
  if (EC)
    sys::fs::remove(Tmp);
  sys::DontRemoveFileOnSignal(Tmp);
  if (EC)
    return cannotWrite(Shown, EC.message());
  return Error::success();
}

} // namespace

Error checkOutputPath(StringRef Path) {
  if (Path.empty())
    return createStringError("an output path is empty");
  std::string File = followLinks(Path);
  std::optional<int> FD = namedDescriptor(Path);
  if (!FD)
    FD = namedDescriptor(File); // a link to /dev/stdout
  if (FD) {
    if (::fcntl(*FD, F_GETFL) < 0)
      return cannotWrite(Path, "descriptor " + Twine(*FD) + " is not open");
    return Error::success();
  }
  struct stat St;
  if (::stat(File.c_str(), &St) == 0) {
    if (S_ISDIR(St.st_mode))
      return cannotWrite(Path, "it is a directory");
    if (::access(File.c_str(), W_OK) != 0)
      return cannotWrite(Path, "permission denied");
    if (!S_ISREG(St.st_mode))
      return Error::success(); // written in place
  }
  // Replaced or created through a temporary file in its directory.
  SmallString<256> Abs(File);
  if (std::error_code EC = sys::fs::make_absolute(Abs))
    return cannotWrite(Path, EC.message());
  StringRef Dir = sys::path::parent_path(Abs);
  if (!sys::fs::is_directory(Dir))
    return cannotWrite(Path, "directory '" + Dir + "' does not exist");
  if (::access(Dir.str().c_str(), W_OK) != 0)
    return cannotWrite(Path, "permission denied");
  return Error::success();
}

Error writeOutput(StringRef Path, StringRef Contents) {
  if (std::optional<int> FD = namedDescriptor(Path))
    return writeToDescriptor(Path, *FD, Contents);
  std::string File = followLinks(Path);
  if (std::optional<int> FD = namedDescriptor(File))
    return writeToDescriptor(Path, *FD, Contents); // a link to /dev/stdout
  struct stat St;
  if (::stat(File.c_str(), &St) != 0) {
    if (errno != ENOENT)
      return cannotWrite(Path, errno);
    return replaceAtomically(File, Path, Contents);
  }
  if (S_ISDIR(St.st_mode))
    return cannotWrite(Path, "it is a directory");
  if (!S_ISREG(St.st_mode))
    return writeInPlace(File, Path, /*Truncate=*/false, Contents);
  struct stat Link;
  if (::lstat(File.c_str(), &Link) == 0 && S_ISLNK(Link.st_mode))
    // A regular file behind a /proc link (a deleted file, another
    // process's descriptor): it has no path to rename over.
    return writeInPlace(File, Path, /*Truncate=*/true, Contents);
  return replaceAtomically(File, Path, Contents);
}

Error keepPreviousOutput(StringRef Path) {
  struct stat Link;
  // Only a regular file is moved: a link, a device or a FIFO stays, and
  // writeOutput() writes through it.
  if (::lstat(Path.str().c_str(), &Link) != 0 || !S_ISREG(Link.st_mode))
    return Error::success();
  std::string Old = (Path + ".old").str();
  struct stat OldSt;
  if (::lstat(Old.c_str(), &OldSt) == 0 && !S_ISREG(OldSt.st_mode))
    return Error::success(); // never rename over anything but a file
  // Another run may have moved it first (ENOENT): nothing to keep then.
  if (::rename(Path.str().c_str(), Old.c_str()) != 0 && errno != ENOENT)
    return cannotWrite(Old, errno);
  return Error::success();
}

Error prepareOutputDirectory(StringRef Path) {
  if (Path.empty() || Path == "-")
    return createStringError("'%s' is not a directory", Path.str().c_str());
  struct stat St;
  if (::stat(Path.str().c_str(), &St) == 0) {
    if (!S_ISDIR(St.st_mode))
      return createStringError("cannot write to '%s': it exists and is not a "
                               "directory",
                               Path.str().c_str());
  } else {
    struct stat Link;
    if (::lstat(Path.str().c_str(), &Link) == 0)
      return createStringError("cannot write to '%s': it is a dangling "
                               "symbolic link",
                               Path.str().c_str());
    if (std::error_code EC = sys::fs::create_directories(Path))
      return createStringError("cannot create '%s': %s", Path.str().c_str(),
                               EC.message().c_str());
  }
  if (::access(Path.str().c_str(), W_OK | X_OK) != 0)
    return createStringError("cannot write to '%s'", Path.str().c_str());
  return Error::success();
}

} // namespace decan::tool
