#!/usr/bin/env python3
"""Rewriter coverage of real programs: loops, rewritten, skipped by reason.

Runs `decan list` on each binary (a prebuilt one is rewritten into a
temporary copy) and prints, per binary: innermost loops, loops rewritten,
those rewritten with REF only (every variant unavailable), and the skipped
ones by reason (the listing's "skipped:" line, with addresses and callee
names folded so that equal reasons count together). "goal" is rewritten
over innermost loops that do not call a function with measured loops (those
are skipped by design: a loop is measured where it is innermost, across
calls).

usage: bench/rewriter/coverage.py --decan BUILD/bin/decan [--json OUT]
       [--before BASE.json] BINARY...
With --before, each figure is printed as "before -> after".
Not a test: it prints what this build's rewriter does to these files.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys


def fold(reason):
    """One name per kind of reason: no addresses, names or opcodes."""
    r = re.sub(r"0x[0-9a-f]+", "X", reason)
    r = re.sub(r"'[^']*'", "F", r)
    r = re.sub(r"\(([A-Z][A-Z0-9_]*)\)", "(OP)", r)
    return r


def listing(decan, binary):
    env = dict(os.environ, DECAN_CACHE="0")
    p = subprocess.run([decan, "list", binary], capture_output=True,
                       text=True, env=env)
    if p.returncode:
        sys.exit("decan list %s failed: %s" % (binary, p.stderr.strip()[:400]))
    loops = []
    for line in p.stdout.splitlines():
        if line.startswith("ID ") or re.match(r"^\d+ loops?$", line):
            continue
        if not line.startswith(" "):
            f = line.split()
            loops.append({"id": f[0], "variants": f[3], "skip": ""})
        elif line.strip().startswith("skipped: ") and loops:
            loops[-1]["skip"] = line.strip()[len("skipped: "):]
    return loops


def summarize(loops):
    s = {"loops": len(loops), "rewritten": 0, "ref_only": 0,
         "calls_measured": 0, "skipped": collections.Counter()}
    for l in loops:
        if l["skip"]:
            s["skipped"][fold(l["skip"])] += 1
            if "which runs loops decan measures" in l["skip"]:
                s["calls_measured"] += 1
        else:
            s["rewritten"] += 1
            if l["variants"] in ("REF", "REF,NO_CALL"):
                s["ref_only"] += 1
    base = s["loops"] - s["calls_measured"]
    s["goal"] = 100.0 * s["rewritten"] / base if base else 100.0
    s["skipped"] = dict(s["skipped"])
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decan", required=True)
    ap.add_argument("--json")
    ap.add_argument("--before")
    ap.add_argument("binaries", nargs="+")
    a = ap.parse_args()
    before = json.load(open(a.before)) if a.before else {}
    out = {}
    for b in a.binaries:
        out[os.path.basename(b)] = summarize(listing(a.decan, b))

    def fig(name, key, fmt="%d"):
        now = fmt % out[name][key]
        if name in before:
            return (fmt % before[name][key]) + " -> " + now
        return now

    print("%-18s %14s %14s %12s %16s" %
          ("binary", "loops", "rewritten", "REF only", "goal %"))
    for n in out:
        print("%-18s %14s %14s %12s %16s" %
              (n, fig(n, "loops"), fig(n, "rewritten"), fig(n, "ref_only"),
               fig(n, "goal", "%.1f")))
    reasons = set()
    for n in out:
        reasons |= set(out[n]["skipped"])
        reasons |= set(before.get(n, {}).get("skipped", {}))
    print("\nskipped, by reason:")
    for r in sorted(reasons):
        cells = []
        for n in out:
            now = out[n]["skipped"].get(r, 0)
            if n in before:
                was = before[n]["skipped"].get(r, 0)
                if was or now:
                    cells.append("%s %d->%d" % (n, was, now))
            elif now:
                cells.append("%s %d" % (n, now))
        print("  %s\n      %s" % (r, ", ".join(cells)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
