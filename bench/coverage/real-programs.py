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
      [--polybench-kernels all|gemm,2mm] [--burner] [--only xz,zstd]
      [--nests] [--zstd-src DIR|debian] [--sqlite-src DIR|debian]

--only takes shell patterns ('pb-*': every PolyBench kernel). The last
table sums the reasons over the programs run (mean CPU share per program),
to find what keeps most of a suite's time without a verdict.
"""
import argparse
import collections
import fnmatch
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
        kernels = POLYBENCH_KERNELS
        if args.polybench_kernels == "all":
            kernels = [os.path.basename(l.strip())[:-2] for l in lst.split()
                       if l.strip().endswith(".c")]
        elif args.polybench_kernels:
            kernels = args.polybench_kernels.split(",")
        for k in kernels:
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
    return progs + build_source_programs(args, cflags, libs, work)


def debian_source(package, binary, work):
    """Debian's upstream tarball of the source package that built `binary`
    (the installed version, from deb.debian.org's pool), unpacked in work;
    returns the tree's path."""
    pkg, version = subprocess.check_output(
        ["dpkg-query", "-W", "-f", "${source:Package} ${source:Upstream-Version}",
         binary], text=True).split()
    assert pkg == package, (pkg, package)
    tree = os.path.join(work, "%s-%s" % (pkg, version))
    if os.path.isdir(tree):
        return tree
    prefix = pkg[:4] if pkg.startswith("lib") else pkg[0]
    name = "%s_%s.orig.tar.xz" % (pkg, version)
    url = "http://deb.debian.org/debian/pool/main/%s/%s/%s" % (prefix, pkg,
                                                              name)
    tarball = os.path.join(work, name)
    run(["curl", "-sSfL", "-o", tarball, url], check=True)
    os.makedirs(tree)
    run(["tar", "-xf", tarball, "-C", tree, "--strip-components=1"],
        check=True)
    return tree


def build_source_programs(args, cflags, libs, work):
    """zstd and sqlite3 from Debian's sources, built with the plugin: the
    same programs and workloads as the prebuilt ones, measured through the
    plugin's copies (and its nests) instead of the rewriter's."""
    progs = []
    data, sql = workload(work)
    if args.zstd_src:
        src = args.zstd_src
        if src == "debian":
            src = debian_source("libzstd", "zstd", work)
        d = os.path.join(work, "zstd-src-build")
        exe = os.path.join(d, "programs", "zstd")
        if not os.path.exists(exe):
            # A copy: the user's tree stays as it is.
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(src, d, symlinks=True)
            run(["nice", "make", "-j2", "-C", os.path.join(d, "programs"),
                 "zstd-release", "CC=clang-22",
                 "CFLAGS=-O2 -g " + " ".join(cflags),
                 "LDFLAGS=" + " ".join(libs)], check=True,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        progs.append(("zstd-src", [exe, "-10", "-c", data], []))
    if args.sqlite_src:
        src = args.sqlite_src
        if src == "debian":
            src = debian_source("sqlite3", "sqlite3", work)
        d = os.path.join(work, "sqlite3-src-build")
        os.makedirs(d, exist_ok=True)
        amalgamation = os.path.join(src, "sqlite3.c")
        if not os.path.exists(amalgamation):
            # A source tree (Debian's): its amalgamation is generated
            # (tclsh), in a copy of the tree.
            tree = os.path.join(d, "tree")
            if not os.path.exists(os.path.join(tree, "sqlite3.c")):
                shutil.rmtree(tree, ignore_errors=True)
                shutil.copytree(src, tree, symlinks=True)
                run(["sh", "-c", "CC=clang-22 ./configure --disable-tcl && "
                     "nice make sqlite3.c shell.c"], cwd=tree, check=True,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            src = tree
        exe = os.path.join(d, "sqlite3")
        if not os.path.exists(exe):
            objs = []
            for f in ("sqlite3.c", "shell.c"):
                o = os.path.join(d, f[:-2] + ".o")
                run(["nice", "clang-22", "-O2", "-g", "-DSQLITE_THREADSAFE=1",
                     "-DHAVE_USLEEP", "-c", os.path.join(src, f), "-o", o] +
                    cflags, check=True, stderr=subprocess.DEVNULL)
                objs.append(o)
            run(["clang-22", "-O2"] + objs + libs +
                ["-lpthread", "-ldl", "-lm", "-o", exe], check=True)
        progs.append(("sqlite3-src", [exe, ":memory:", sql], []))
    return progs


def workload(work):
    """The compressors' input and sqlite3's script, the same for the
    prebuilt programs and those built from source."""
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
    return data, sql


def debian_programs(work):
    data, sql = workload(work)
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
    ap.add_argument("--polybench-kernels",
                    help="'all' (the 30 of utilities/benchmark_list) or "
                         "comma-separated names (default: %s)" %
                         ",".join(POLYBENCH_KERNELS))
    ap.add_argument("--only", help="comma-separated program names or shell "
                                   "patterns ('pb-*')")
    ap.add_argument("--zstd-src", metavar="DIR|debian",
                    help="also zstd built with the plugin from a source tree "
                         "(debian: the installed version's Debian source, "
                         "downloaded into --work): program zstd-src")
    ap.add_argument("--sqlite-src", metavar="DIR|debian",
                    help="also sqlite3 built with the plugin from an "
                         "amalgamation (sqlite3.c, shell.c) or a source tree "
                         "(debian: as --zstd-src; needs tclsh): program "
                         "sqlite3-src")
    ap.add_argument("--hot", type=float, default=0.02)
    ap.add_argument("--nests", action="store_true",
                    help="build Lua, PolyBench and the --*-src programs with "
                         "`decan flags --nests` and run every program with "
                         "`decan run --nests` "
                         "(use another --work than the build without)")
    ap.add_argument("--burner", action="store_true",
                    help="a CPU burner on another core during the runs")
    args = ap.parse_args()
    decan = os.path.abspath(args.decan)
    os.makedirs(args.work, exist_ok=True)
    progs = debian_programs(args.work) + build_plugin_programs(args, decan,
                                                               args.work)
    if args.only:
        keep = args.only.split(",")
        progs = [p for p in progs
                 if any(fnmatch.fnmatchcase(p[0], k) for k in keep)]
    burner = None
    if args.burner:
        burner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    rows, hot_lines = [], []
    suite = {"confident": 0.0, "measured": 0.0, "programs": 0,
             "ref_only": collections.Counter(),
             "inconclusive": collections.Counter()}
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
            suite["programs"] += 1
            suite["confident"] += sum(s["confident"] for s in sums) / n
            suite["measured"] += sum(s["measured"] for s in sums) / n
            for k, v in refonly.items():
                suite["ref_only"]["REF-only: " + k] += v / n
            for k, v in incon.items():
                suite["inconclusive"]["inconclusive: " + k] += v / n
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
    if suite["programs"] > 1:
        n = suite["programs"]
        print("\nOver the %d programs (mean CPU share per program): measured "
              "%s, confident %s; without a verdict, by reason:" % (
                  n, pct(suite["measured"] / n), pct(suite["confident"] / n)))
        both = suite["ref_only"] + suite["inconclusive"]
        for k, v in both.most_common(12):
            print("- %s %s" % (pct(v / n), k))
    print("\nHot loops (>= %s of the last run's CPU time) without a "
          "verdict:" % pct(args.hot))
    print("\n".join(hot_lines) or "(none)")


if __name__ == "__main__":
    main()
