#!/usr/bin/env python3
"""Reproducibility: do decan's confident verdicts hold in the next run?

Builds PolyBench/C 4.2.1 kernels (MEDIUM) with the plugin of --build, runs
each `decan run` --runs times, identical, on an idle machine and then with
a CPU burner (`yes`) on the other core, and prints per condition:

  * confident verdicts per run (hot loops: program share >= --hot in a run);
  * contradictions: a hot loop confident with two different verdicts in two
    runs of the same condition (goal 0), and the hot loops with the same
    confident verdict in every run;
  * the share of hot loop-runs with a confident verdict;
  * removal-variant saturations above 1.1 on hot loops (goal 0), REF
    against its twin outside [0.9, 1.1], and the confident verdicts of loops
    with either (goal 0: no verdict may rest on them);
  * the spread (max - min over the runs) of each hot loop's program share
    and of the program's coverage, median and maximum.

The kernels are not in the repository: --polybench names a checkout or a
git directory of PolyBench/C 4.2.1 (exported into --work); builds and
reports go to --work too.

usage: bench/repro/repro.py --build BUILD --polybench DIR --work DIR
       [--runs 3] [--kernels gemm,atax] [--conditions idle,busy]
       [--label NAME] [--json OUT] [--nests]
Not a test: it prints what this machine gave in these runs.
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys

KERNELS = {
    "gemm": "linear-algebra/blas/gemm",
    "gemver": "linear-algebra/blas/gemver",
    "gesummv": "linear-algebra/blas/gesummv",
    "syrk": "linear-algebra/blas/syrk",
    "syr2k": "linear-algebra/blas/syr2k",
    "2mm": "linear-algebra/kernels/2mm",
    "atax": "linear-algebra/kernels/atax",
    "bicg": "linear-algebra/kernels/bicg",
    "mvt": "linear-algebra/kernels/mvt",
    "doitgen": "linear-algebra/kernels/doitgen",
    "trisolv": "linear-algebra/solvers/trisolv",
    "covariance": "datamining/covariance",
    "jacobi-2d": "stencils/jacobi-2d",
    "fdtd-2d": "stencils/fdtd-2d",
    "seidel-2d": "stencils/seidel-2d",
    "heat-3d": "stencils/heat-3d",
    "jacobi-1d": "stencils/jacobi-1d",
    "floyd-warshall": "medley/floyd-warshall",
    "durbin": "linear-algebra/solvers/durbin",
    "lu": "linear-algebra/solvers/lu",
}
DEFAULT = ",".join(KERNELS)
REMOVALS = ("LS", "FP", "NO_DIV", "DL1", "CTRL", "NO_CALL", "S2L", "NO_STORE",
            "NO_RED")
NONE = ("", "none", "inconclusive", "blocked")


def export_sources(src, dest):
    """PolyBench into dest/src (once): from a checkout or a git directory."""
    out = os.path.join(dest, "src")
    if os.path.isdir(os.path.join(out, "utilities")):
        return out
    os.makedirs(out, exist_ok=True)
    if os.path.isdir(os.path.join(src, "utilities")):
        subprocess.run(["cp", "-r", src + "/.", out], check=True)
    else:
        archive = subprocess.run(["git", "--git-dir", src, "archive", "HEAD"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", out], input=archive, check=True)
    return out


def build(decan, src, kernel, outdir, nests=False):
    exe = os.path.join(outdir, kernel)
    if os.path.exists(exe):
        return exe
    flags = subprocess.run([decan, "flags"] + ["--nests"] * nests, check=True,
                           capture_output=True,
                           text=True).stdout.split()
    kdir = os.path.join(src, KERNELS[kernel])
    cfile = [f for f in os.listdir(kdir)
             if f.endswith(".c") and "orig" not in f][0]
    subprocess.run(["clang-22", "-O2", *flags, "-I", src + "/utilities",
                    "-DMEDIUM_DATASET", src + "/utilities/polybench.c",
                    os.path.join(kdir, cfile), "-o", exe, "-lm"], check=True)
    return exe


def run_once(decan, exe, report):
    with open(os.devnull, "w") as null:
        subprocess.run([decan, "run", "--json", report, "-o", os.devnull,
                        "--", exe], check=True, stdout=null, stderr=null)
    with open(report) as f:
        return json.load(f)


def loop_facts(report):
    """Per loop id: share, verdict, confidence, saturations."""
    facts = {}
    for loop in report["loops"]:
        verdict = loop.get("verdict") or {}
        # REF's own row (against its REF neighbours) has only an interval.
        sat = {v: i["value"] for v, i in
               (loop.get("saturation_interval") or {}).items()}
        sat.update(loop.get("saturation") or {})
        facts[loop["id"]] = {
            "share": loop.get("program_share") or 0,
            "class": verdict.get("class", ""),
            "confidence": verdict.get("confidence", 0),
            "sat": sat,
        }
    return facts


def summarize(runs, hot, confidence):
    """The table's numbers for one condition: runs = [(kernel, report)]."""
    by_kernel = {}
    for kernel, report in runs:
        by_kernel.setdefault(kernel, []).append(report)
    per_run = []
    loop_runs = confident_runs = high_sats = ref_off = contradictions = 0
    suspect_confident = repeated = 0
    share_spread, coverage_spread = [], []
    for kernel, reports in by_kernel.items():
        facts = [loop_facts(r) for r in reports]
        coverage = [r.get("coverage") or 0 for r in reports]
        coverage_spread.append(max(coverage) - min(coverage))
        hot_ids = {i for f in facts for i, x in f.items() if x["share"] >= hot}
        for n, f in enumerate(facts):
            while len(per_run) <= n:
                per_run.append(0)
            for i in hot_ids:
                x = f.get(i)
                if not x:
                    continue
                loop_runs += 1
                sure = (x["class"] not in NONE and
                        x["confidence"] >= confidence)
                confident_runs += sure
                per_run[n] += sure
                high = sum(1 for v in REMOVALS if (x["sat"].get(v) or 0) > 1.1)
                high_sats += high
                ref = x["sat"].get("REF")
                off = ref is not None and not 0.9 <= ref <= 1.1
                ref_off += off
                suspect_confident += sure and (high > 0 or off)
        for i in hot_ids:
            verdicts = {f[i]["class"] for f in facts if i in f and
                        f[i]["class"] not in NONE and
                        f[i]["confidence"] >= confidence}
            contradictions += len(verdicts) > 1
            repeated += len(verdicts) == 1 and all(
                i in f and f[i]["class"] in verdicts and
                f[i]["confidence"] >= confidence for f in facts)
            if len(verdicts) > 1:
                print(f"  contradiction: {kernel} {i}: " + ", ".join(
                    f"{f[i]['class']} {f[i]['confidence']:.0%}" if i in f
                    else "-" for f in facts), file=sys.stderr)
            shares = [f[i]["share"] for f in facts if i in f]
            share_spread.append(max(shares) - min(shares))
    med = lambda xs: statistics.median(xs) if xs else 0
    return {
        "confident_per_run": per_run,
        "contradictions": contradictions,
        "same_in_every_run": repeated,
        "loop_runs": loop_runs,
        "share_confident": confident_runs / loop_runs if loop_runs else 0,
        "sats_above_1.1": high_sats,
        "confident_on_suspect": suspect_confident,
        "ref_twin_off": ref_off,
        "share_spread_median": med(share_spread),
        "share_spread_max": max(share_spread, default=0),
        "coverage_spread_median": med(coverage_spread),
        "coverage_spread_max": max(coverage_spread, default=0),
    }


def print_table(label, results):
    print(f"{label}: hot loops' verdicts over identical runs")
    head = ("condition  confident/run  contra  same  conf.share  sat>1.1  "
            "REF!~1  conf.on.them  share spread med/max  "
            "coverage spread med/max")
    print(head)
    for cond, s in results.items():
        print(f"{cond:<10} {'/'.join(map(str, s['confident_per_run'])):>13}"
              f"  {s['contradictions']:>6}  {s['same_in_every_run']:>4}"
              f"  {s['share_confident']:>9.0%}"
              f"  {s['sats_above_1.1']:>7}  {s['ref_twin_off']:>6}"
              f"  {s['confident_on_suspect']:>12}"
              f"  {s['share_spread_median']:>9.3f}/{s['share_spread_max']:.3f}"
              f"  {s['coverage_spread_median']:>12.3f}/"
              f"{s['coverage_spread_max']:.3f}"
              f"   ({s['loop_runs']} loop-runs)")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", required=True, help="decan build directory")
    p.add_argument("--polybench", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--kernels", default=DEFAULT)
    p.add_argument("--conditions", default="idle,busy")
    p.add_argument("--hot", type=float, default=0.05)
    p.add_argument("--confidence", type=float, default=0.9)
    p.add_argument("--label", default="decan")
    p.add_argument("--nests", action="store_true",
                   help="build with `decan flags --nests` (nests as loops)")
    p.add_argument("--json")
    p.add_argument("--reuse", action="store_true",
                   help="summarize the reports an earlier run left in --work")
    a = p.parse_args()
    decan = os.path.abspath(os.path.join(a.build, "bin", "decan"))
    work = os.path.abspath(a.work)
    src = export_sources(os.path.abspath(a.polybench), work)
    bins = os.path.join(work, a.label)
    os.makedirs(bins, exist_ok=True)
    kernels = a.kernels.split(",")
    exes = {k: build(decan, src, k, bins, a.nests) for k in kernels}
    results = {}
    for cond in a.conditions.split(","):
        burner = None
        if cond == "busy" and not a.reuse:
            burner = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)
        try:
            runs = []
            for k, n in itertools.product(kernels, range(a.runs)):
                report = os.path.join(bins, f"{k}.{cond}.{n}.json")
                if a.reuse:
                    with open(report) as f:
                        runs.append((k, json.load(f)))
                    continue
                runs.append((k, run_once(decan, exes[k], report)))
                print(f"  {cond} {k} run {n + 1}", file=sys.stderr)
        finally:
            if burner:
                burner.kill()
                burner.wait()
        results[cond] = summarize(runs, a.hot, a.confidence)
    print_table(a.label, results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
