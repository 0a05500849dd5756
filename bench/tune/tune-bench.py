#!/usr/bin/env python3
"""decan tune benchmark: the documented tuning flow on PolyBench/C kernels.

Per kernel of a PolyBench/C 4.2.1 tree as shipped (given, read only;
nothing fetched or written into the repository), in a work directory:

  plain    clang -O2 (the baseline)
  default  $(decan flags): decan run --json run.json
  tune     $(decan flags --tune run.json:90): decan tune -o tune.json
  shipped  $(decan flags --apply tune.json --ship)

plain and shipped are built with -DPOLYBENCH_TIME and
-DPOLYBENCH_NO_FLUSH_CACHE (no cache flush before the kernel: they run
what the tune run ran). Realized over plain -O2, median of --runs
alternating runs of each: the program's, from the whole process's CPU
time (what decan tune's program-level prediction is about, and what
"inside" checks), and the kernel's, what PolyBench prints: with --clock
cpu (the default) a preloaded shim makes its gettimeofday read the
process's CPU time, so time the machine gives other processes does not
count. "noise": how far plain's own process CPU times strayed from their
median; "inside": the program's realized speedup inside the predicted
interval ("within noise": inside it once widened by the noise). The output is the arrays each program dumps when run as
PolyBench's own check runs it (argv[0] empty, more than 42 arguments);
the decan runs run it as shipped (no dump). One row per kernel: the
candidates measured per hot loop (candidates with calls / candidates
built), the choices, the program-level prediction of decan tune
(interval), the realized speedups, whether the output is identical
(plain, tune and shipped builds), and the flow's time (the three builds
and the two decan runs) against a per-candidate brute force (one -O2
build and one run of the plain program per candidate measured, as a
search building each choice would need at least).

Usage: tune-bench.py --build BUILD --polybench DIR [--work DIR]
       [--kernels gemm,2mm] [--dataset MEDIUM] [--runs 5] [--clock cpu|wall]
       [--markdown]
Not a test: it asserts nothing about the figures.
"""
import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CC = "/usr/lib/llvm-22/bin/clang-22"

# PolyBench times its kernel with gettimeofday: answered with the process's
# CPU time (--clock cpu).
CPU_CLOCK_SHIM = r"""
#include <sys/time.h>
#include <time.h>
int gettimeofday(struct timeval *tv, void *tz) {
  struct timespec t;
  (void)tz;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  tv->tv_sec = t.tv_sec;
  tv->tv_usec = t.tv_nsec / 1000;
  return 0;
}
"""


def run_cpu(cmd, cwd, env):
    """Runs cmd; returns (stdout, the process's user + system CPU s)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return out, ru.ru_utime + ru.ru_stime


def cpu_clock_shim(work):
    """Builds the CPU-time shim in work; its path."""
    src, so = os.path.join(work, "cpu-clock.c"), os.path.join(work,
                                                               "cpu-clock.so")
    with open(src, "w") as fh:
        fh.write(CPU_CLOCK_SHIM)
    rc, _, err, _ = sh([CC, "-O2", "-shared", "-fPIC", src, "-o", so], work)
    if rc:
        raise RuntimeError("cpu clock shim: " + err.strip())
    return so


def sh(cmd, cwd, **kw):
    """Runs cmd; returns (returncode, stdout, stderr, seconds)."""
    t = time.monotonic()
    r = subprocess.run(cmd, cwd=cwd, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, **kw)
    return r.returncode, r.stdout, r.stderr, time.monotonic() - t


class Kernel:
    def __init__(self, tree, rel):
        self.src = os.path.normpath(os.path.join(tree, rel))
        self.name = os.path.basename(self.src)[:-2]
        self.dir = os.path.dirname(self.src)
        self.util = os.path.join(tree, "utilities")


def flow(k, decan, work, dataset, runs, shim):
    """The whole flow for one kernel; a dict of the row's fields."""
    d = os.path.join(work, k.name)
    os.makedirs(d, exist_ok=True)
    row = {"kernel": k.name}
    base = ["-O2", "-I" + k.util, "-I" + k.dir, "-D" + dataset + "_DATASET",
            "-DPOLYBENCH_USE_C99_PROTO"]
    # No cache flush before the kernel: the timed builds then run what the
    # tune run ran, whose program-level prediction the whole process's CPU
    # time checks.
    measured = ["-DPOLYBENCH_TIME", "-DPOLYBENCH_NO_FLUSH_CACHE"]
    units = [k.src, os.path.join(k.util, "polybench.c")]
    flow_s = 0.0

    def flags(*args):
        rc, out, err, _ = sh([decan, "flags", *args], d)
        if rc:
            raise RuntimeError(f"decan flags {' '.join(args)}: {err.strip()}")
        return out.split(), err

    def build(name, extra, timed):
        nonlocal flow_s
        rc, _, err, s = sh([CC, *base, *extra, *units, "-lm", "-o", name], d)
        if rc:
            raise RuntimeError(f"build {name}: {err.strip()[-400:]}")
        if timed:
            flow_s += s
        return s

    plain_s = build("plain", measured, False)
    default_flags, _ = flags()
    build("default", default_flags, True)
    rc, _, err, s = sh([decan, "run", "--json", "run.json", "--", "./default"],
                       d)
    flow_s += s
    if rc:
        raise RuntimeError("decan run: " + err.strip()[-400:])
    tune_flags, why = flags("--tune", "run.json:90")
    row["kinds"] = "; ".join(
        l.split(": ", 2)[2] for l in why.splitlines()
        if "candidates" in l and " -> " in l)
    build("tune", tune_flags, True)
    rc, tune_out, err, s = sh([decan, "tune", "-o", "tune.json", "--",
                               "./tune"], d)
    flow_s += s
    if rc:
        raise RuntimeError("decan tune: " + err.strip()[-400:])
    ship_flags, _ = flags("--apply", "tune.json", "--ship")
    build("shipped", ship_flags + measured, True)
    tune = json.load(open(os.path.join(d, "tune.json")))
    loops = tune.get("loops", [])
    row["measured"] = ", ".join(
        "%s %d/%d" % (l["source"].rsplit("/", 1)[-1],
                      sum(1 for c in l["candidates"] if c.get("calls")),
                      len(l["candidates"])) for l in loops) or "-"
    row["choice"] = ", ".join(
        "%s=%s" % (l["source"].rsplit("/", 1)[-1], l["choice"])
        for l in loops if l["choice"] != "default") or "default"
    prog = tune.get("program")
    row["predicted"] = (prog["predicted_speedup"], *prog["predicted_interval"]
                        ) if prog else None
    # Realized: alternating runs, the kernel's time (POLYBENCH_TIME).
    times = {"plain": [], "shipped": []}
    cpu = {"plain": [], "shipped": []}
    dumps = {}
    env = dict(os.environ, LD_PRELOAD=shim) if shim else None
    for _ in range(runs):
        for exe in ("plain", "shipped"):
            out, cpu_s = run_cpu(["./" + exe], d, env)
            times[exe].append(float(out.split()[-1]))
            cpu[exe].append(cpu_s)
    for exe in ("plain", "shipped", "tune"):
        # PolyBench dumps its arrays (stderr) for argv[0] "" and argc > 42.
        rc, out, err, _ = sh([""] + ["dump"] * 42, d,
                             executable=os.path.join(d, exe))
        dumps[exe] = hashlib.sha256(err.encode()).hexdigest()
        if "==BEGIN DUMP_ARRAYS==" not in err:
            raise RuntimeError(exe + ": no array dump")
    row["plain_s"] = statistics.median(times["plain"])
    row["shipped_s"] = statistics.median(times["shipped"])
    row["realized_kernel"] = row["plain_s"] / row["shipped_s"]
    # The program's realized speedup: the whole process's CPU time.
    row["realized"] = (statistics.median(cpu["plain"]) /
                       statistics.median(cpu["shipped"]))
    # How far plain's own runs (process CPU time) stray from their median:
    # the noise.
    mid = statistics.median(cpu["plain"])
    row["noise"] = max(abs(t / mid - 1) for t in cpu["plain"])
    row["identical"] = len(set(dumps.values())) == 1
    row["flow_s"] = flow_s
    n = sum(sum(1 for c in l["candidates"] if c.get("calls")) for l in loops)
    row["candidates"] = n
    row["brute_s"] = n * (plain_s + statistics.median(times["plain"]))
    return row


def fmt_pred(p):
    return "-" if not p else "%.2fx [%.2f, %.2f]" % p


def print_rows(rows, markdown):
    head = ["kernel", "candidates measured (per hot loop)", "choice",
            "predicted (program)", "realized over -O2 (program, kernel)",
            "noise", "inside",
            "output", "flow s", "brute force s"]
    lines = []
    for r in rows:
        if "error" in r:
            lines.append([r["kernel"], "error: " + r["error"][:120], "", "",
                          "", "", "", "", "", ""])
            continue
        p = r["predicted"]
        n = r["noise"]
        inside = "-" if not p else (
            "yes" if p[1] <= r["realized"] <= p[2] else
            "within noise" if p[1] * (1 - n) <= r["realized"] <= p[2] * (1 + n)
            else "no")
        lines.append([r["kernel"], r["measured"], r["choice"], fmt_pred(p),
                      "%.2fx, %.2fx" % (r["realized"], r["realized_kernel"]),
                      "%.0f%%" % (100 * r["noise"]),
                      inside,
                      "identical" if r["identical"] else "DIFFERS",
                      "%.1f" % r["flow_s"], "%.1f" % r["brute_s"]])
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for l in lines:
            print("| " + " | ".join(l) + " |")
    else:
        for l in [head] + lines:
            print("  ".join(l))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="decan's build directory")
    ap.add_argument("--polybench", required=True,
                    help="a PolyBench/C 4.2.1 tree (read only)")
    ap.add_argument("--work", help="work directory (default: a new one in "
                    "$TMPDIR)")
    ap.add_argument("--kernels", help="comma-separated kernel names")
    ap.add_argument("--dataset", default="MEDIUM")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="the kernel's time: CPU time (default) or "
                    "PolyBench's own wall clock")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", help="write the rows as JSON")
    a = ap.parse_args()
    decan = os.path.join(os.path.abspath(a.build), "bin", "decan")
    tree = os.path.abspath(a.polybench)
    work = a.work or tempfile.mkdtemp(prefix="decan-tune-bench-")
    with open(os.path.join(tree, "utilities", "benchmark_list")) as fh:
        ks = [Kernel(tree, l.strip()) for l in fh if l.strip()]
    if a.kernels:
        want = a.kernels.split(",")
        ks = [k for k in ks if k.name in want]
    os.makedirs(work, exist_ok=True)
    shim = cpu_clock_shim(work) if a.clock == "cpu" else None
    rows = []
    for k in ks:
        t = time.monotonic()
        try:
            rows.append(flow(k, decan, work, a.dataset, a.runs, shim))
        except (RuntimeError, ValueError, IndexError, KeyError) as e:
            rows.append({"kernel": k.name, "error": str(e)})
        print(f"tune-bench: {k.name} done in {time.monotonic() - t:.0f}s",
              file=sys.stderr, flush=True)
        if a.json:
            json.dump(rows, open(a.json, "w"), indent=1)
    print(f"PolyBench/C {os.path.basename(tree)}, {a.dataset}_DATASET, "
          f"{len(ks)} kernels, {a.clock} clock, load average "
          f"{os.getloadavg()[0]:.1f}, work in {work}")
    print_rows(rows, a.markdown)


if __name__ == "__main__":
    main()
