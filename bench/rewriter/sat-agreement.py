#!/usr/bin/env python3
"""Saturation agreement between a plugin build and a rewritten plain build of
the same C source (issue 8): builds both, measures each with the runtime in
rotate mode, and prints Sat(V) = median T(V) / median T(REF) per loop and
variant for both, with the relative difference. Prints ratios; asserts
nothing.

usage: sat-agreement.py BUILD_DIR SOURCE.c [ARGS...]   (DECAN_RT overrides
       the preloaded runtime for the rewritten build)
"""
import glob, json, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "scripts"))
from decan_abi import SAT_VARIANTS  # noqa: E402

build, src, args = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
decan = os.path.join(build, "bin", "decan")
rt = os.environ.get("DECAN_RT", os.path.join(build, "lib", "libdecan_rt.so"))
cc = os.environ.get("CC", "clang-22")
opt = os.environ.get("OPT", "-O1")
work = tempfile.mkdtemp(prefix="decan-sat-")

def flags(kind):
    return subprocess.check_output([decan, "flags", kind], text=True).split()

def run(prog, env_extra, outdir):
    os.makedirs(outdir, exist_ok=True)
    env = dict(os.environ, DECAN_LOOPS="all", DECAN_MODE="rotate",
               DECAN_REPS=os.environ.get("REPS", "101"), DECAN_OUTPUT=outdir,
               **env_extra)
    subprocess.run(["timeout", "300", prog] + args, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    sats = {}
    for f in glob.glob(os.path.join(outdir, "*.json")):
        d = json.load(open(f))
        for loop in d.get("loops", []):
            t = {}
            for th in loop.get("threads", []):
                for v, x in th["variants"].items():
                    i = x["fields"].index("cycles")
                    t.setdefault(v, []).extend(
                        r[i] for r in x["records"] if not (r[2] & 1))
            if "REF" in t and t["REF"]:
                ref = statistics.median(t["REF"])
                sats[loop["id"]] = {v: statistics.median(c) / ref
                                    for v, c in t.items() if c}
    return sats

plugin = os.path.join(work, "plugin")
subprocess.check_call([cc, opt, src, "-o", plugin] + flags("--cflags") +
                      flags("--libs"))
plain = os.path.join(work, "plain")
subprocess.check_call([cc, opt, "-g", src, "-o", plain])
subprocess.check_call([decan, "rewrite", plain, "-o", work + "/rw", "-q"])
sp = run(plugin, {}, work + "/rep-plugin")
sr = run(work + "/rw/plain", {"LD_PRELOAD": rt}, work + "/rep-rw")
diffs = []
print(f"{'loop':16} {'variant':7} {'plugin':>8} {'rewriter':>9} {'diff':>7}")
for lid in sorted(set(sp) & set(sr)):
    for v in SAT_VARIANTS:
        if v in sp[lid] and v in sr[lid]:
            a, b = sp[lid][v], sr[lid][v]
            d = abs(b - a) / a
            diffs.append(d)
            print(f"{lid:16} {v:7} {a:8.3f} {b:9.3f} {100*d:6.1f}%")
only = sorted(set(sp) ^ set(sr))
if only:
    print("loops measured by one build only:", " ".join(only))
if diffs:
    within = sum(d <= 0.10 for d in diffs)
    print(f"agreement: {within}/{len(diffs)} saturations within 10% "
          f"({100*within/len(diffs):.0f}%), median |diff| "
          f"{100*statistics.median(diffs):.1f}%")
