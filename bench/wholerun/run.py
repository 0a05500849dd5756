#!/usr/bin/env python3
"""Whole-run verdicts: do they hold for the whole run and repeat run to run?

Builds bench/wholerun/kernels.c plain and with the plugin, then per kernel
(moving working set, triangular nest, division-bound, stream, tiny calls,
short calls):

  * truth: the loop's share of the program's time from two plain builds'
    wall times, with and without the loop's work (kernels NAME 1), median of
    --truth-runs runs each;
  * decan run, --runs times, identical: the verdict of the kernel's busiest
    loop each time, its saturations, the samples' mean trip count against
    the whole run's, and its program share;
  * checks (printed, never asserted): the same verdict in every run, no
    variant above 1.1, sample trips within 25% of the run's, program share
    within 0.1 of the truth; the program's stdout under decan is
    byte-identical to a plain run's, and it ran once;
  * overhead of whole-run accounting: wall time of `decan run` (all
    variants, and REF only: accounting alone) over the plain build's, for
    the tiny-call loop and the long stream loop.

usage: bench/wholerun/run.py --build BUILD [--runs 10] [--truth-runs 5]
       [--kernels a,b] [--json OUT]
Not a test: it prints ratios measured in this one run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "kernels.c")
CLANG = "/usr/lib/llvm-22/bin/clang"
KERNELS = {"moving": "sumRange", "triangle": "rowDot", "divide": "divide1",
           "stream": "triad", "tiny": "four", "short": "four"}


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def wall(cmd):
    t = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t, r.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--truth-runs", type=int, default=5)
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--json")
    a = ap.parse_args()
    decan = os.path.join(os.path.abspath(a.build), "bin", "decan")
    tmp = tempfile.mkdtemp(prefix="decan-wholerun.")
    plain, plug = os.path.join(tmp, "plain"), os.path.join(tmp, "plug")
    flags = sh([decan, "flags"]).stdout.split()
    for out, extra in ((plain, []), (plug, flags)):
        r = sh([CLANG, "-O2", SRC, "-o", out] + extra)
        if r.returncode:
            print(r.stderr, file=sys.stderr)
            return 2
    ids = [l.split()[0] for l in sh([decan, "list", plug]).stdout.splitlines()[1:]
           if l and not l.startswith(" ") and l.split()[0].split(":")[0] in KERNELS.values()]
    results = {}
    print("| kernel | truth share | decan program share (min-max) | verdicts (%d runs) | max Sat (removal variants) | sample/run trips | stdout identical, runs |" % a.runs)
    print("|---|---|---|---|---|---|---|")
    for k in a.kernels.split(","):
        fn = KERNELS[k]
        loops = [i for i in ids if i.startswith(fn + ":")]
        full = statistics.median(wall([plain, k])[0] for _ in range(a.truth_runs))
        skip = statistics.median(wall([plain, k, "1"])[0] for _ in range(a.truth_runs))
        truth = max(0.0, 1 - skip / full)
        verdicts, shares, maxsat, drift = [], [], [], []
        identical, onerun = True, True
        ref_out = sh([plain, k]).stdout
        for i in range(a.runs):
            js = os.path.join(tmp, "%s.%d.json" % (k, i))
            r = sh([decan, "run", "--loops", ",".join(loops), "--json", js, "--", plug, k])
            identical &= r.stdout == ref_out
            rep = json.load(open(js))
            onerun &= len(rep["processes"]) == 1
            ls = [l for l in rep["loops"] if l["id"] in loops]
            main_loop = max(ls, key=lambda l: l.get("time_cycles", 0))
            verdicts.append(main_loop["verdict"]["class"] or "-")
            shares.append(sum(l.get("program_share") or 0 for l in ls))
            sats = [v for n, v in main_loop.get("saturation", {}).items() if n != "REF"]
            maxsat.append(max(sats) if sats else 0)
            run = main_loop.get("whole_run", {})
            if run.get("mean_trips") and run.get("sample_mean_trips"):
                drift.append(run["sample_mean_trips"] / run["mean_trips"] - 1)
        same = len(set(verdicts)) == 1
        results[k] = {"truth": truth, "shares": shares, "verdicts": verdicts,
                      "max_sat": maxsat, "trips_drift": drift,
                      "identical_stdout": identical, "one_run": onerun}
        vs = ", ".join("%s x%d" % (v, verdicts.count(v)) for v in sorted(set(verdicts)))
        print("| %s | %.2f | %.2f-%.2f (%s) | %s (%s) | %.2f (%s) | %s | %s, %s |" % (
            k, truth, min(shares), max(shares),
            "ok" if all(abs(s - truth) <= 0.1 for s in shares) else "OFF",
            vs, "same" if same else "DIFFER", max(maxsat),
            "ok" if max(maxsat) <= 1.1 else "ABOVE 1.1",
            ("%+.0f%%..%+.0f%%" % (100 * min(drift), 100 * max(drift))) if drift else "-",
            "yes" if identical else "NO", "once" if onerun else "SEVERAL"))
        sys.stdout.flush()
    print()
    print("| overhead (wall, decan run / plain build) | all variants | REF only (accounting) |")
    print("|---|---|---|")
    over = {}
    for k in ("tiny", "stream"):
        if k not in a.kernels.split(","):
            continue
        fn = KERNELS[k]
        loops = ",".join(i for i in ids if i.startswith(fn + ":"))
        p = min(wall([plain, k])[0] for _ in range(3))
        d = min(wall([decan, "run", "--loops", loops, "--", plug, k])[0] for _ in range(3))
        r = min(wall([decan, "run", "--loops", loops, "--variants", "REF", "--", plug, k])[0]
                for _ in range(3))
        over[k] = {"plain_s": p, "decan_s": d, "ref_only_s": r}
        print("| %s (%s) | %.2fx | %.2fx |" % (k, fn, d / p, r / p))
    if a.json:
        json.dump({"kernels": results, "overhead": over}, open(a.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
