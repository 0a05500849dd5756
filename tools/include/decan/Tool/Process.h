//===- decan/Tool/Process.h - The measured program's lifetime -------------===//
//
// Part of decan. How `decan run` starts, signals and waits for the program,
// and owns the temporary directory its reports go to:
//   * the program never outlives decan: it gets SIGKILL when decan dies
//     (PR_SET_PDEATHSIG, set by the thread that forks it, which is the one
//     that waits for it);
//   * SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to decan are passed on to the
//     program, which decides (decan then collects what it wrote); a second
//     such SIGINT kills it. Without a controlling terminal the program has
//     a process group of its own and the signals go to the whole group; at
//     a terminal it stays in decan's group (job control), the terminal's
//     signals reach it directly and are not sent twice;
//   * a run directory names its owner in a locked file, so the next decan
//     run reclaims the directories of a decan that was killed and says
//     where their raw reports are.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_PROCESS_H
#define DECAN_TOOL_PROCESS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace decan::tool {

/// "SIGPIPE", or "signal N" for a number without a name.
std::string signalName(int Sig);

/// Runs \p Cmd with the environment \p Env and returns its wait status:
/// the file \p ExecPath (a path, not searched; Cmd[0] when empty) with
/// the arguments \p Cmd, so a rewritten copy sees the argv[0] the user
/// typed. \p QuietStdout: its standard output goes to /dev/null. \p Poll,
/// when given, runs every 20 ms while it runs.
llvm::Expected<int> runProgram(const std::vector<std::string> &Cmd,
                               const std::vector<std::string> &Env,
                               bool QuietStdout = false,
                               llvm::function_ref<void()> Poll = {},
                               llvm::StringRef ExecPath = "");

/// The program died of a signal before it wrote any report: `decan run`
/// says so in one line (not as a usage error) and exits with 128 + Signal,
/// as time(1) does.
class ProgramKilled : public llvm::ErrorInfo<ProgramKilled> {
public:
  static char ID;
  ProgramKilled(int Signal, std::string Message)
      : Signal(Signal), Message(std::move(Message)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  int Signal;
  std::string Message;
};

/// A `decan-run-*` directory under the system's temporary directory,
/// removed at scope exit. Its `owner` file holds decan's pid and stays
/// locked (flock) while decan lives: a directory whose lock can be taken
/// belongs to a decan that died.
class RunDirectory {
public:
  RunDirectory() = default;
  RunDirectory(const RunDirectory &) = delete;
  RunDirectory &operator=(const RunDirectory &) = delete;
  ~RunDirectory();
  /// Creates the directory and takes its lock.
  llvm::Error create();
  const std::string &path() const { return Path; }

  /// Reclaims the run directories of decans that died (their lock is free;
  /// one without an owner file, from a decan before owner files, once it is
  /// a day old). Raw reports
  /// found there are kept: the directory is renamed `decan-stranded-*`,
  /// emptied of everything else, and \p Log gets one line saying where.
  static void reclaimStale(llvm::raw_ostream &Log);

private:
  std::string Path;
  int LockFd = -1;
};

} // namespace decan::tool

#endif // DECAN_TOOL_PROCESS_H
