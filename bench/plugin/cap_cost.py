#!/usr/bin/env python3
"""What the iteration cap costs inside a timed variant copy.

Builds bench/plugin/capped_loops.c twice with the plugin: as shipped (every
variant copy of a loop whose exit reads memory counts its iterations down,
docs/variants.md "Copies that could run forever") and with
`-mllvm -decan-iteration-caps=false`. Runs `decan run` on the two builds
alternately (--runs times each, same variants) and prints, per loop and
variant, the median cycles per iteration of each build (median over the
runs) and their ratio capped / uncapped. REF never carries a cap: its ratio
is the noise between the builds. Not a test: it asserts nothing.

Usage: cap_cost.py --build BUILD_DIR [--runs N]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

LLVM_BIN = "/usr/lib/llvm-22/bin"
SRC = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(SRC, "capped_loops.c")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    decan = os.path.join(args.build, "bin", "decan")
    flags = subprocess.run([decan, "flags"], check=True, capture_output=True,
                           text=True).stdout.split()
    tmp = tempfile.mkdtemp(prefix="decan-capcost-")
    builds = {"capped": [], "uncapped": ["-mllvm", "-decan-iteration-caps=false"]}
    exe = {}
    for name, extra in builds.items():
        exe[name] = os.path.join(tmp, name)
        subprocess.run([LLVM_BIN + "/clang", "-O2"] + flags + extra +
                       [KERNEL, "-o", exe[name]], check=True)
    per = {}  # (build, loop, variant) -> [cyc/iter]
    for r in range(args.runs):
        for name in builds:
            js = os.path.join(tmp, "%s-%d.json" % (name, r))
            subprocess.run([decan, "run", "--json", js, "-o", js + ".txt",
                            "--", exe[name]], check=True,
                           stdout=subprocess.DEVNULL)
            for loop in json.load(open(js))["loops"]:
                if not loop["id"].startswith("scan_"):
                    continue
                for v, s in loop["variants"].items():
                    per.setdefault((name, loop["id"], v), []).append(
                        s["cycles_per_iteration"]["median"])
    print("loop          variant   capped   uncapped   ratio   (cycles per "
          "iteration, median of %d runs each)" % args.runs)
    for (name, loop, v) in sorted(per):
        if name != "capped" or ("uncapped", loop, v) not in per:
            continue
        c = statistics.median(per[(name, loop, v)])
        u = statistics.median(per[("uncapped", loop, v)])
        print("%-13s %-8s %8.3f %10.3f %7.3f" % (loop, v, c, u, c / u if u else 0))


if __name__ == "__main__":
    main()
