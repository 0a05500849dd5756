// Process lifetime under decan run (lit/tool/run-lifetime*.test): a
// measured loop, then what the first argument asks for.
//   spin PIDFILE          writes its pid, runs until killed
//   sigint PIDFILE        writes its pid, runs until SIGINT, says so, exits 7
// Neither runs more than two minutes (SIGALRM): a test that fails does not
// leave it behind.
//   flood                 writes to stdout until SIGPIPE
//   kill                  dies of SIGKILL
//   fork                  a fork runs the loop 300 times and exits
//   fork-exec PROG ARGS   a fork execs PROG ARGS; the parent waits
//   child                 runs the loop 300 times
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) double work(const double *A, int N) {
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += A[I] * 1.0001;
  return S;
}

static double A[1024];
static volatile double Sink;
static volatile sig_atomic_t Interrupted;

static void burst(int Calls) {
  for (int C = 0; C < Calls; ++C) {
    A[C & 1023] = C; // each call's input differs: no call is hoisted
    Sink += work(A, 1024);
  }
}

static void onInterrupt(int Sig) {
  (void)Sig;
  Interrupted = 1;
}

/// The pid, whole or not at all (the test polls for it).
static void writePid(const char *Path) {
  char Tmp[4096];
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Path);
  FILE *F = fopen(Tmp, "w");
  if (!F)
    exit(2);
  fprintf(F, "%d\n", (int)getpid());
  fclose(F);
  rename(Tmp, Path);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  const char *Mode = argv[1];
  burst(200);
  if (!strcmp(Mode, "spin") && argc > 2) {
    alarm(120);
    writePid(argv[2]);
    for (;;)
      burst(10);
  }
  if (!strcmp(Mode, "sigint") && argc > 2) {
    signal(SIGINT, onInterrupt);
    alarm(120);
    writePid(argv[2]);
    while (!Interrupted)
      burst(10);
    fprintf(stderr, "lifetime: got SIGINT\n");
    return 7;
  }
  if (!strcmp(Mode, "flood")) {
    static char Line[4096];
    memset(Line, 'x', sizeof(Line));
    for (;;) {
      burst(1);
      if (write(1, Line, sizeof(Line)) < 0)
        return 3; // SIGPIPE ignored: not what the test wants
    }
  }
  if (!strcmp(Mode, "kill"))
    raise(SIGKILL);
  if (!strcmp(Mode, "fork") || !strcmp(Mode, "fork-exec")) {
    pid_t Pid = fork();
    if (Pid < 0)
      return 2;
    if (Pid == 0) {
      if (argc > 2) {
        execv(argv[2], argv + 2);
        _exit(127);
      }
      burst(300);
      exit(0);
    }
    int Status;
    waitpid(Pid, &Status, 0);
    burst(200);
    return WIFEXITED(Status) ? WEXITSTATUS(Status) : 1;
  }
  if (!strcmp(Mode, "child")) {
    burst(300);
    return 0;
  }
  return 2;
}
