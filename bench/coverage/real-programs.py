#!/usr/bin/env python3
"""Where real programs' CPU time gets a verdict (issue 27).

Runs Debian's prebuilt programs (installed by scripts/setup.sh or apt:
xz-utils, zstd, gzip, bzip2, sqlite3), and optionally Lua and PolyBench/C
kernels built with the plugin from source trees given, under `decan run`,
N identical times, and tabulates per program from each run's JSON:

  measured   CPU time in measured loops (sum of program_share)
  confident  CPU time in loops with a confident verdict (class other than
             none/inconclusive, confidence >= 0.9 where it is paired)
  REF-only   CPU time in loops that got no variant, by the first reason
  inconcl.   CPU time in loops with variants but no verdict, by reason
  same x N   confident verdicts that are the same in every run
  contra.    loops with confident verdicts that differ between runs

and lists every hot loop (share >= --hot, default 2%) that is REF-only or
inconclusive with its reason. Nothing is written into the repository:
--work is a scratch directory.

  bench/coverage/real-programs.py --decan build/bin/decan --work /tmp/rp \
      [--runs 3] [--lua /path/to/lua] [--polybench /path/to/PolyBenchC-4.2.1]
      [--burner] [--only xz,zstd] [--nests]
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

CONFIDENT_CLASSES = {"memory-bound", "fp-bound", "balanced", "unsaturated",
                     "latency-bound"}
POLYBENCH_KERNELS = ["gemm", "2mm", "atax", "jacobi-2d", "correlation",
                     "seidel-2d"]


def reason_key(text):
    """A reason without its numbers and details, so equal causes group."""
    text = re.sub(r"\([^)]*\)", "", text or "").split(";")[0]
    text = re.sub(r"[0-9][0-9.,%x]*", "N", text).strip()
    head, _, rest = text.partition(": ")
    # "LS: 1 usable pairs" keeps its variant; "calls ... floor: nothing"
    # keeps its cause.
    text = head + ": " + rest.split(":")[0] if len(head) <= 6 and rest \
        else head
    return re.sub(r"\s+", " ", text).strip()[:72]


def confident(loop):
    v = loop.get("verdict") or {}
    return v.get("class") in CONFIDENT_CLASSES and \
        (v.get("confidence") or 0) >= 0.9


def ref_only(loop):
    return loop.get("variant_mask", 0) in (0, 1)


def summarize(report):
    out = {"measured": 0.0, "confident": 0.0,
           "ref_only": collections.Counter(),
           "inconclusive": collections.Counter(), "verdicts": {},
           "hot": []}
    for loop in report.get("loops", []):
        share = loop.get("program_share") or 0.0
        if share <= 0:
            continue
        out["measured"] += share
        name = loop.get("id", "?")
        if confident(loop):
            out["confident"] += share
            out["verdicts"][name] = loop["verdict"]["class"]
            continue
        if ref_only(loop):
            why = loop.get("unavailable_why") or {}
            reason = reason_key(why.get("LS") or why.get("FP") or
                                next(iter(why.values()), "no variant built"))
            out["ref_only"][reason] += share
            kind = "REF-only"
        else:
            why = loop.get("unavailable_why") or {}
            missing = why.get("LS") or why.get("FP")
            reason = reason_key((loop.get("verdict") or {})
                                .get("inconclusive") or
                                ("no LS/FP pair, " +
                                 missing if missing else "no verdict"))
            out["inconclusive"][reason] += share
            kind = "inconclusive"
        out["hot"].append((share, name, kind, reason))
    return out


def run(cmd, **kw):
    return subprocess.run(cmd, **kw)


def build_plugin_programs(args, decan, work):
    """Lua and PolyBench kernels with the plugin; returns (name, argv)."""
    progs = []
    cflags = subprocess.check_output(
        [decan, "flags", "--cflags"] + (["--nests"] if args.nests else []),
        text=True).split()
    libs = subprocess.check_output([decan, "flags", "--libs"],
                                   text=True).split()
    if args.lua:
        d = os.path.join(work, "lua-build")
        os.makedirs(d, exist_ok=True)
        objs = []
        for f in sorted(os.listdir(args.lua)):
            if not f.endswith(".c") or f in ("ltests.c", "onelua.c", "luac.c"):
                continue
            o = os.path.join(d, f[:-2] + ".o")
            objs.append(o)
            if not os.path.exists(o):
                run(["nice", "clang-22", "-O2", "-g", "-std=c99",
                     "-DLUA_USE_LINUX", "-c", os.path.join(args.lua, f),
                     "-o", o] + cflags, check=True,
                    stderr=subprocess.DEVNULL)
        exe = os.path.join(d, "lua")
        run(["clang-22", "-O2"] + objs + libs + ["-lm", "-ldl", "-o", exe],
            check=True)
        script = os.path.join(os.path.dirname(__file__), "lua-bench.lua")
        progs.append(("lua", [exe, script], []))
    if args.polybench:
        pb = args.polybench
        lst = open(os.path.join(pb, "utilities", "benchmark_list")).read()
        for k in POLYBENCH_KERNELS:
            src = next((l.strip() for l in lst.split()
                        if l.strip().endswith("/" + k + ".c")), None)
            if not src:
                continue
            kd = os.path.dirname(os.path.join(pb, src))
            exe = os.path.join(work, "pb-" + k)
            if not os.path.exists(exe):
                run(["nice", "clang-22", "-O2", "-g", "-DMEDIUM_DATASET",
                     "-I", os.path.join(pb, "utilities"), "-I", kd,
                     os.path.join(pb, src),
                     os.path.join(pb, "utilities", "polybench.c"),
                     "-o", exe] + cflags + libs + ["-lm"], check=True,
                    stderr=subprocess.DEVNULL)
            progs.append(("pb-" + k, [exe], []))
    return progs


def debian_programs(work):
    data = os.path.join(work, "data.bin")
    if not os.path.exists(data):
        src = "/usr/lib/x86_64-linux-gnu/libLLVM.so.22.1"
        with open(data, "wb") as out:
            if os.path.exists(src):
                with open(src, "rb") as f:
                    out.write(f.read(30_000_000))
            else:
                out.write(os.urandom(30_000_000))
    sql = ("create table t(a,b); with recursive c(x) as (select 1 union all "
           "select x+1 from c where x<300000) insert into t select x, "
           "(x*7919)%1000 from c; select b, count(*), sum(a) from t group by "
           "b order by 3 desc limit 5;")
    return [("xz", ["xz", "-6", "-c", data], ["--lib", "auto"]),
            ("zstd", ["zstd", "-10", "-c", data], ["--lib", "auto"]),
            ("gzip", ["gzip", "-6", "-c", data], ["--lib", "auto"]),
            ("bzip2", ["bzip2", "-9", "-c", data], ["--lib", "auto"]),
            ("sqlite3", ["sqlite3", ":memory:", sql], ["--lib", "auto"])]


def pct(x):
    return "%.0f%%" % (100 * x)


def capped(x):
    """A sum of shares past 100% means loops hold each other's time (a
    loop that calls code with measured loops, or threads that wait)."""
    return pct(x) if x <= 1.0 else "100%*"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decan", default="build/bin/decan")
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lua")
    ap.add_argument("--polybench")
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--hot", type=float, default=0.02)
    ap.add_argument("--nests", action="store_true",
                    help="build Lua and PolyBench with `decan flags --nests` "
                         "and run every program with `decan run --nests` "
                         "(use another --work than the build without)")
    ap.add_argument("--burner", action="store_true",
                    help="a CPU burner on another core during the runs")
    args = ap.parse_args()
    decan = os.path.abspath(args.decan)
    os.makedirs(args.work, exist_ok=True)
    progs = debian_programs(args.work) + build_plugin_programs(args, decan,
                                                               args.work)
    if args.only:
        keep = set(args.only.split(","))
        progs = [p for p in progs if p[0] in keep]
    burner = None
    if args.burner:
        burner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    rows, hot_lines = [], []
    try:
        for name, argv, opts in progs:
            if not shutil.which(argv[0]) and not os.path.exists(argv[0]):
                print("skipped %s: %s is not installed" % (name, argv[0]),
                      file=sys.stderr)
                continue
            plain = run(argv, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL).stdout
            sums, same_output = [], True
            for r in range(1, args.runs + 1):
                js = os.path.join(args.work, "%s%d.json" % (name, r))
                txt = os.path.join(args.work, "%s%d.txt" % (name, r))
                nests = ["--nests"] if args.nests else []
                p = run([decan, "run"] + opts + nests +
                        ["-o", txt, "--json", js, "--"] + argv,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                        cwd=args.work, timeout=900)
                same_output &= p.stdout == plain
                with open(js) as f:
                    sums.append(summarize(json.load(f)))
            names = set().union(*(s["verdicts"] for s in sums))
            same = sum(1 for n in names
                       if all(s["verdicts"].get(n) == sums[0]["verdicts"].get(n)
                              for s in sums))
            contra = sum(1 for n in names
                         if len({s["verdicts"][n] for s in sums
                                 if n in s["verdicts"]}) > 1)
            refonly = collections.Counter()
            for s in sums:
                refonly.update(s["ref_only"])
            incon = collections.Counter()
            for s in sums:
                incon.update(s["inconclusive"])
            n = len(sums)
            fmt = lambda c: "; ".join("%s %s" % (pct(v / n), k)
                                      for k, v in c.most_common(3)) or "-"
            rows.append("| %s | %s | %s | %s | %s | %d | %d | %s |" % (
                name, " / ".join(capped(s["measured"]) for s in sums),
                " / ".join(capped(s["confident"]) for s in sums),
                fmt(refonly), fmt(incon), same, contra,
                "yes" if same_output else "NO"))
            for share, loop, kind, reason in sorted(sums[-1]["hot"],
                                                    reverse=True):
                if share >= args.hot:
                    hot_lines.append("- %s %s (%s): %s: %s" % (
                        name, loop, pct(share), kind, reason))
    finally:
        if burner:
            burner.kill()
    print("| program | CPU in measured loops (per run) | in confident "
          "verdicts | REF-only by reason (mean) | inconclusive by reason "
          "(mean) | same verdict in all runs | contradictions | output "
          "identical |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n\\* the loops' shares add up past 100%: some hold others' "
          "time (calls, waiting threads)")
    print("\nHot loops (>= %s of the last run's CPU time) without a "
          "verdict:" % pct(args.hot))
    print("\n".join(hot_lines) or "(none)")


if __name__ == "__main__":
    main()
