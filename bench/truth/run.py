#!/usr/bin/env python3
"""Source-level truth: does a variant's saturation predict the fixed source?

Per case (a kernel file of bench/truth and the variant that models its fix):

  * predicted: `decan run` on the original, built with the plugin (plugin)
    and plain -O2 -g, rewritten by decan run (rewriter): Sat(V) of the
    kernel's busiest loop with its printed 95% interval, the loop's cycles
    per call, and decan's verdict;
  * realized: the original and the fixed source built plain, run
    alternately --reps times each with `skip` (the loop called with no
    work), CPU time (user + system) of each: realized = (T(fix) - T(skip)) /
    (T(orig) - T(skip)), medians, the loop's own ratio;
  * inside: realized within the interval.

  * before: with --before DECAN, the same measurements re-analysed by that
    decan (`decan report`): its prediction and verdict beside this one's.

usage: bench/truth/run.py --build BUILD [--cases a,b] [--reps 5]
       [--front plugin,rewriter] [--json OUT] [--work DIR] [--reuse]
       [--before DECAN] [--reanalyse]
Not a test: it prints what this machine gave in this one run, with the
load average beside each case (the machine may be shared).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLANG = "/usr/lib/llvm-22/bin/clang"

# name: (file, variant, -D defines, decan run / decan flags options)
CASES = {
    "div_hoist": ("div_hoist", "NO_DIV", [], []),
    "div_scale": ("div_scale", "NO_DIV", [], []),
    "div_table": ("div_table", "NO_DIV", [], []),
    "dl1_slice": ("dl1_slice", "DL1", [], []),
    "dl1_l2": ("dl1_l2", "DL1", [], []),
    "dl1_transpose": ("dl1_transpose", "DL1", [], []),
    "poly_ls": ("poly_ls", "LS", [], []),
    "stream_drop": ("stream_drop", "NO_G2", [], ["--groups"]),
    "red_split": ("red_split", "NO_RED", [], ["--extended"]),
    # Short calls (50-500 cycles), called millions of times.
    "s_div16": ("div_hoist", "NO_DIV", ["LEN=16", "CALLS=4000000"], []),
    "s_div64": ("div_hoist", "NO_DIV", ["LEN=64", "CALLS=1000000"], []),
    "s_table32": ("div_table", "NO_DIV", ["LEN=32", "CALLS=2000000"], []),
    "s_scale64": ("div_scale", "NO_DIV", ["LEN=64", "CALLS=2000000"], []),
    "s_l2_32": ("dl1_l2", "DL1", ["LEN=32", "CALLS=4000000"], []),
    "s_slice64": ("dl1_slice", "DL1", ["LEN=64", "CALLS=1000000"], []),
    "s_poly64": ("poly_ls", "LS", ["LEN=64", "CALLS=1000000"], []),
    "s_red64": ("red_split", "NO_RED", ["LEN=64", "CALLS=2000000"], ["--extended"]),
    # Filling the 50-150 / 150-300 / 300-500 cycle bands for DL1, NO_DIV, LS.
    "s_l2_128": ("dl1_l2", "DL1", ["LEN=128", "CALLS=2000000"], []),
    "s_slice128": ("dl1_slice", "DL1", ["LEN=128", "CALLS=1000000"], []),
    "s_div96": ("div_hoist", "NO_DIV", ["LEN=96", "CALLS=1000000"], []),
    "s_poly16": ("poly_ls", "LS", ["LEN=16", "CALLS=4000000"], []),
    "s_poly32": ("poly_ls", "LS", ["LEN=32", "CALLS=2000000"], []),
    # About one probe cost a call (below the floor).
    "s_l2_16": ("dl1_l2", "DL1", ["LEN=16", "CALLS=8000000"], []),
    "s_div8": ("div_hoist", "NO_DIV", ["LEN=8", "CALLS=8000000"], []),
    # Short inner loops measured at their enclosing level (a 2-level nest:
    # `decan flags --nests` builds, `decan run --nests` rewrites): the
    # nest's Sat.
    "n_div32": ("nest_div", "NO_DIV", ["LEN=32", "CALLS=40000"], ["--nests"]),
    "n_div16": ("nest_div", "NO_DIV", ["LEN=16", "CALLS=80000"], ["--nests"]),
    "n_dl1_32": ("nest_dl1", "DL1", ["LEN=32", "CALLS=40000"], ["--nests"]),
    "n_dl1_16": ("nest_dl1", "DL1", ["LEN=16", "CALLS=80000"], ["--nests"]),
}

def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def load():
    return os.getloadavg()[0]


def cpu_time(cmd):
    """User + system CPU seconds of one run of cmd."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise RuntimeError("%s failed: %d" % (cmd, status))
    return ru.ru_utime + ru.ru_stime


def build(src, out, defines, extra):
    cmd = [CLANG, "-O2", "-g", src, "-o", out] + ["-D" + d for d in defines] + extra
    r = sh(cmd)
    if r.returncode:
        sys.exit(r.stderr)


def kernel_loop(report):
    """The kernel's busiest loop (vector body, not its remainder; the nest
    where it is measured as one)."""
    loops = [l for l in report["loops"] if l.get("function") == "kernel"]
    return max(loops, key=lambda l: l.get("time_cycles", 0)) if loops else None


def predict(decan, prog, variant, opts, out, report=False):
    cmd = [decan, "report", prog, "--json", out] if report else \
        [decan, "run", "--json", out] + opts + ["--", prog]
    r = sh(cmd)
    if r.returncode or not os.path.exists(out):
        return {"error": r.stderr.strip().splitlines()[-1:]}
    rep = json.load(open(out))
    L = kernel_loop(rep)
    if not L:
        return {"error": "no kernel loop"}
    # REF's sampled call (the whole run's mean holds preemptions).
    wr = L["whole_run"]
    ref = L.get("variants", {}).get("REF", {}).get("cycles", {}).get("median")
    cyc = ref or (wr["cycles"] / wr["calls"] if wr.get("calls") else None)
    I = L.get("saturation_interval", {}).get(variant)
    v = L.get("verdict", {})
    return {"loop": L["id"], "cycles_per_call": cyc,
            "sat": I["value"] if I else L.get("saturation", {}).get(variant),
            "lo": I["lo"] if I else None, "hi": I["hi"] if I else None,
            "verdict": v.get("class", ""), "confidence": v.get("confidence", 0),
            "inconclusive": v.get("inconclusive", ""),
            "probe": rep.get("probe", {}).get("call_cost_cycles")}


def realized(orig, fix, reps):
    T = {"orig": [], "fix": [], "skip": []}
    for _ in range(reps):
        T["orig"].append(cpu_time([orig]))
        T["fix"].append(cpu_time([fix]))
        T["skip"].append(cpu_time([orig, "skip"]))
    M = {k: statistics.median(v) for k, v in T.items()}
    den = M["orig"] - M["skip"]
    return (M["fix"] - M["skip"]) / den if den > 0 else None, M


def verdictText(P):
    v = P.get("verdict") or "-"
    if v == "inconclusive":
        return v + " (" + P["inconclusive"][:40] + ")"
    return v + (" %.0f%%" % (100 * P["confidence"]) if P.get("verdict") else "")


def fmt(x, f="%.2f"):
    return "-" if x is None else f % x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--front", default="plugin,rewriter")
    ap.add_argument("--work")
    ap.add_argument("--reuse", action="store_true",
                    help="keep the realized times of --work's truth.json")
    ap.add_argument("--json")
    ap.add_argument("--before", help="another decan: re-analyse with it")
    ap.add_argument("--reanalyse", action="store_true",
                    help="no new run: re-analyse --work's reports with "
                         "--build's decan (and --before's); implies --reuse")
    a = ap.parse_args()
    decan = os.path.join(os.path.abspath(a.build), "bin", "decan")
    work = a.work or tempfile.mkdtemp(prefix="decan-truth.")
    os.makedirs(work, exist_ok=True)
    old = {}
    if (a.reuse or a.reanalyse) and os.path.exists(os.path.join(work, "truth.json")):
        old = json.load(open(os.path.join(work, "truth.json")))
    fronts = a.front.split(",")
    cols = ["case", "variant", "front end", "cycles/call"]
    if a.before:
        cols += ["before: predicted [interval]", "inside", "verdict"]
    cols += ["predicted [interval]", "realized", "inside", "verdict", "load"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    results = {}
    for name in a.cases.split(","):
        fname, variant, defs, opts = CASES[name]
        src = os.path.join(HERE, fname + ".c")
        base = os.path.join(work, name)
        if not a.reanalyse:
            flags = sh([decan, "flags"] + opts).stdout.split()
            build(src, base + ".plug", defs, flags)
            build(src, base + ".orig", defs, [])
            build(src, base + ".fix", defs + ["FIX"], [])
        res = {"variant": variant}
        if name in old and "realized" in old[name]:
            res["realized"], res["times"] = old[name]["realized"], old[name]["times"]
            res["load_truth"] = old[name].get("load_truth")
        else:
            res["load_truth"] = load()
            res["realized"], res["times"] = realized(base + ".orig", base + ".fix", a.reps)
        for fe in fronts:
            prog = base + (".plug" if fe == "plugin" else ".orig")
            ld = load()
            out = "%s.%s.json" % (base, fe)
            if a.reanalyse:
                ld = old.get(name, {}).get(fe, {}).get("load", ld)
                P = predict(decan, out, variant, [], out[:-5] + ".now.json",
                            report=True)
            else:
                P = predict(decan, prog, variant, opts, out)
            P["load"] = ld
            res[fe] = P
            R = res["realized"]
            row = [name, variant, fe, fmt(P.get("cycles_per_call"), "%.0f")]
            shown = [P]
            if a.before:
                B = predict(a.before, out, variant, [], out[:-5] + ".before.json",
                            report=True)
                res[fe + ".before"] = B
                shown = [B, P]
            for X in shown:
                X["inside"] = (X.get("lo") is not None and R is not None and
                               X["lo"] <= R <= X["hi"])
                row += ["%s [%s, %s]" % (fmt(X.get("sat")), fmt(X.get("lo")),
                                         fmt(X.get("hi")))]
                if X is P:
                    row += [fmt(R)]
                row += ["yes" if X["inside"] else "no", verdictText(X)]
            row += ["%.1f/%.1f" % (res["load_truth"] or 0, ld)]
            print("| " + " | ".join(row) + " |", flush=True)
        results[name] = res
    json.dump(results, open(os.path.join(work, "truth.json"), "w"), indent=1)
    if a.json:
        json.dump(results, open(a.json, "w"), indent=1)
    print()
    for label, key in ([("before", ".before")] if a.before else []) + [("now", "")]:
        rows = [r[fe + key] for r in results.values() for fe in fronts
                if fe + key in r]
        conf = [x for x in rows if x.get("verdict") not in ("", "inconclusive", None)
                and x.get("confidence", 0) >= 0.9]
        print("%s: inside the interval %d of %d (case x front end), confident "
              "verdicts %d" % (label, sum(1 for x in rows if x.get("inside")),
                               len(rows), len(conf)))
    print("work: %s" % work)


if __name__ == "__main__":
    main()
