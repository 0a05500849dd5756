#!/usr/bin/env python3
"""decan plugin benchmark: what an unmeasured plugin build costs.

For each program (examples/loops.c, the bundled example, and
bench/plugin/short_calls.c, many short loop calls: the stub's worst case) it
builds a plain and a plugin build (`-O2`, plugin + shared runtime, as
`decan flags` prints them), checks that both print the same output, runs
them alternately and prints, from this one run:

  * run-time overhead = min wall time plugin / min wall time plain;
  * code-size growth per instrumented loop = (.text plugin - .text plain) /
    instrumented loops, split into the dispatch stubs (growth of the
    original functions), the cold measured-path functions and the
    outlined copies (one per variant).

Usage: overhead.py --build BUILD_DIR [--runs N] [--keep DIR | --from DIR].
--keep DIR leaves the objects and executables in DIR; --from DIR times the
ones a --keep run left there instead of building (to time on another,
quieter machine: copy DIR, with libdecan_rt.so and libpfm.so.4 in DIR/lib).
Not a test: it asserts nothing about the figures.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "scripts"))
from decan_abi import VARIANTS  # noqa: E402

LLVM_BIN = "/usr/lib/llvm-22/bin"
SRC = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(SRC))
PROGRAMS = [os.path.join(ROOT, "examples", "loops.c"),
            os.path.join(SRC, "short_calls.c")]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def text_size(obj):
    """Size of .text in an object file (llvm-size -A)."""
    out = run([LLVM_BIN + "/llvm-size", "-A", obj]).stdout
    return sum(int(m.group(1)) for m in
               re.finditer(r"^\.text\S*\s+(\d+)", out, re.M))


def symbol_sizes(obj):
    """(bytes in the variants' copies, bytes in the cold measure code: each
    loop's .measure function and the module's decan.measure_call,
    decan.call.* and decan.preserve_all, instrumented loops)."""
    out = run([LLVM_BIN + "/llvm-nm", "--print-size", obj]).stdout
    copies, measure, loops = 0, 0, 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in "tT":
            continue
        if re.search(r"\.decan\.L\d+\.(%s)$" % "|".join(VARIANTS), parts[3]):
            copies += int(parts[1], 16)
            loops += parts[3].endswith(".REF")
        elif re.search(r"\.decan\.L\d+\.measure$|^decan\.(measure_call|call|"
                       r"preserve_all)\b", parts[3]):
            measure += int(parts[1], 16)
    return copies, measure, loops


def best_time(exe, runs, env):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([exe], check=True, stdout=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="decan build directory")
    ap.add_argument("--runs", type=int, default=7)
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--keep", help="build into this directory, keep it")
    where.add_argument("--from", dest="prebuilt",
                       help="time the builds a --keep run left here")
    args = ap.parse_args()
    lib = os.path.join(os.path.abspath(args.build), "lib")
    plugin = os.path.join(lib, "decan.so")
    clang = os.path.join(LLVM_BIN, "clang-22")
    flags = ["-fpass-plugin=" + plugin, "-Xclang", "-load", "-Xclang", plugin]
    link = ["-L" + lib, "-Wl,-rpath," + lib, "-ldecan_rt", "-lpfm",
            "-lstdc++", "-lpthread", "-lm"]
    env = dict(os.environ)
    for var in [v for v in env if v.startswith("DECAN_")]:
        del env[var]  # unmeasured: the runtime stays inert

    print("%-12s %9s %9s %7s | %5s %10s %10s %12s %12s" % (
        "program", "plain s", "plugin s", "ratio", "loops", "text/loop",
        "stub/loop", "measure/loop", "copies/loop"))
    with tempfile.TemporaryDirectory() as tmp:
        out = args.prebuilt or args.keep or tmp
        os.makedirs(out, exist_ok=True)
        if args.prebuilt:
            env["LD_LIBRARY_PATH"] = os.path.join(out, "lib")
        for src in PROGRAMS:
            name = os.path.splitext(os.path.basename(src))[0]
            exe = {k: os.path.join(out, name + "." + k)
                   for k in ("plain", "plugin")}
            obj = {k: exe[k] + ".o" for k in exe}
            if not args.prebuilt:
                run([clang, "-O2", "-c", src, "-o", obj["plain"]])
                run([clang, "-O2", "-c", src, "-o", obj["plugin"]] + flags)
                run([clang, obj["plain"], "-o", exe["plain"], "-lm"])
                run([clang, obj["plugin"], "-o", exe["plugin"]] + link)
            outs = {k: subprocess.run([exe[k]], capture_output=True,
                                      env=env).stdout for k in exe}
            if outs["plain"] != outs["plugin"]:
                sys.exit("%s: plugin build prints something else" % name)
            # Alternate the builds so drifts (frequency, neighbours) hit
            # both alike; keep the best of each.
            best = {"plain": float("inf"), "plugin": float("inf")}
            for _ in range(args.runs):
                for k in ("plain", "plugin"):
                    best[k] = min(best[k], best_time(exe[k], 1, env))
            if args.prebuilt and not os.path.exists(LLVM_BIN + "/llvm-nm"):
                copies = measure = growth = loops = 0  # sizes: no tools here
            else:
                copies, measure, loops = symbol_sizes(obj["plugin"])
                growth = text_size(obj["plugin"]) - text_size(obj["plain"])
            per = lambda v: "%.0f B" % (v / loops) if loops else "-"
            print("%-12s %9.3f %9.3f %7.3f | %5d %10s %10s %12s %12s" % (
                name, best["plain"], best["plugin"],
                best["plugin"] / best["plain"], loops, per(growth),
                per(growth - copies - measure), per(measure), per(copies)))


if __name__ == "__main__":
    main()
