"""Locating and calling the programs the suite drives."""

import json
import os
import shlex
import shutil
import subprocess
import time


class Tools:
    """Paths of decan, decan-mca-check and clang-22, and what works."""

    def __init__(self, build_dir):
        self.build_dir = os.path.abspath(build_dir)
        bindir = os.path.join(self.build_dir, "bin")
        self.clang = shutil.which("clang-22") or "/usr/lib/llvm-22/bin/clang"
        self.size_tool = shutil.which("llvm-size-22") or "/usr/lib/llvm-22/bin/llvm-size"
        self.decan = os.path.join(bindir, "decan")
        self.mca = os.path.join(bindir, "decan-mca-check")
        self.problems = []  # one line per missing piece, shown in the report
        self.decan_flags = None  # compile flags (decan flags --cflags --variants=all)
        self.decan_libs = []     # link flags (decan flags --libs)
        if not os.access(self.decan, os.X_OK):
            self.problems.append("decan tool not built (%s)" % self.decan)
        else:
            # Every variant: the suite measures all of them.
            c = run([self.decan, "flags", "--cflags", "--variants=all"], timeout=30)
            l = run([self.decan, "flags", "--libs"], timeout=30)
            if c.rc == 0 and l.rc == 0 and c.out.strip():
                self.decan_flags = shlex.split(c.out.strip())
                self.decan_libs = shlex.split(l.out.strip())
            else:
                r = run([self.decan, "flags"], timeout=30)
                if r.rc == 0 and r.out.strip():
                    self.decan_flags = shlex.split(r.out.strip())
                else:
                    self.problems.append("`decan flags` failed: %s" % r.brief())
        if not os.access(self.mca, os.X_OK):
            self.problems.append(
                "decan-mca-check not built (ninja -C %s decan-mca-check)" % self.build_dir)
            self.mca = None

    @property
    def can_measure(self):
        return self.decan_flags is not None


class Result:
    def __init__(self, rc, out, err, wall):
        self.rc, self.out, self.err, self.wall = rc, out, err, wall

    def brief(self):
        text = (self.err or self.out or "").strip().splitlines()
        last = text[-1] if text else ""
        return "exit %s%s" % (self.rc, (": " + last[:200]) if last else "")


def run(cmd, env=None, timeout=600, cwd=None):
    """Runs cmd (a list), returns a Result with its wall time in seconds."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=full_env, cwd=cwd, capture_output=True,
                           text=True, timeout=timeout)
        return Result(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
    except subprocess.TimeoutExpired as e:
        return Result(124, e.stdout or "", "timed out after %ss" % timeout,
                      time.monotonic() - t0)
    except OSError as e:
        return Result(127, "", str(e), time.monotonic() - t0)


def last_json_line(text):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None
