"""Running the codelets: reference driver, `decan run`, mode-cost runs."""

import json
import math
import os

from . import tools as T

from decan_abi import VARIANTS  # noqa: E402


def size_param(spec, ws_bytes):
    """The codelet's N for a working set of ws_bytes."""
    unit = spec["unit_bytes"]
    if spec.get("shape") == "square":
        return max(4, int(math.sqrt(ws_bytes / unit)))
    return max(8, int(ws_bytes // unit))




def reference(exe, n, calls, env):
    """The driver's own measurements (Algorithms 4 and 5 of the thesis)."""
    r = T.run([exe, str(n), str(calls), "ref"], env=env, timeout=600)
    data = T.last_json_line(r.out) if r.rc == 0 else None
    if data is None:
        return {"error": "reference run failed: " + r.brief()}
    data["wall_s"] = r.wall
    return data


def plan(lcpc, ref_cycles_per_call, reps, budget_cycles, nvariants=6):
    """Kernel calls and reps so that one decan run stays within budget.

    lcpc: innermost-loop calls per kernel call (the driver reports it). Every
    measured non-REF call also runs the original loop, so a run costs about
    twice its calls; at least 5 reps are always asked for."""
    lcpc = max(1, lcpc)
    per_loop_call = max(1.0, ref_cycles_per_call / lcpc)
    affordable = int((budget_cycles / (2.0 * per_loop_call) - 2) / nvariants)
    reps_eff = max(5, min(reps, affordable))
    loop_calls = nvariants * reps_eff + 2 + nvariants  # warm-up and slack
    calls = max(2, math.ceil(loop_calls / lcpc))
    return calls, reps_eff


def decan_run(tools, exe, n, calls, reps, out_json, env, mode="rotate",
              variants=None, timeout=600, max_runs=3):
    cmd = [tools.decan, "run", "--loops", "all", "--mode", mode, "--reps",
           str(reps), "--max-runs", str(max_runs), "--json", out_json]
    # The suite checks every variant's expectations: all of them, not
    # decan run's default rotation (the verdicts' seven).
    cmd += ["--variants", ",".join(variants or VARIANTS)]
    cmd += ["--", exe, str(n), str(calls)]
    env = dict(env or {})
    env.setdefault("TERM", "dumb")  # no progress bar in logs
    r = T.run(cmd, env=env, timeout=timeout)
    res = {"wall_s": r.wall, "rc": r.rc, "command": " ".join(cmd)}
    if r.rc != 0:
        res["error"] = "decan run failed: " + r.brief()
    try:
        with open(out_json) as f:
            res["report"] = json.load(f)
    except (OSError, ValueError) as e:
        res.setdefault("error", "no analysed JSON (%s)" % e)
    return res


def pick_loop(report, functions):
    """The kernel's main loop: among loops of the kernel's functions, the one
    with the most REF cycles measured."""
    best, best_cost, others = None, -1.0, []
    for loop in (report or {}).get("loops", []):
        fn = loop.get("function", "")
        if functions and fn not in functions and not any(
                fn.startswith(f) for f in functions):
            continue
        ref = loop.get("variants", {}).get("REF", {})
        cost = (ref.get("cycles", {}) or {}).get("median", 0) * max(1, ref.get("calls", 0) or 0)
        others.append(loop)
        if cost > best_cost:
            best, best_cost = loop, cost
    return best, [o for o in others if o is not best]


def summarise_loop(loop):
    """The fields the suite uses from one analysed loop."""
    if loop is None:
        return None
    out = {"id": loop.get("id"), "function": loop.get("function"),
           "file": loop.get("file"), "line": loop.get("line"),
           "saturation": loop.get("saturation", {}),
           "diagnosis": loop.get("diagnosis", []),
           "warnings": loop.get("warnings", []), "variants": {}}
    for v, d in loop.get("variants", {}).items():
        cyc = d.get("cycles", {}) or {}
        cpi = d.get("cycles_per_iteration", {}) or {}
        calls = d.get("calls") or 0
        iters = d.get("iterations")
        trips = (d.get("trips") or {}).get("median")
        out["variants"][v] = {
            "calls": calls,
            "iterations": iters,
            "trips_per_call": trips if trips else (iters / calls) if iters and calls else None,
            "cycles_median": cyc.get("median"), "cycles_min": cyc.get("min"),
            "cpi_median": cpi.get("median"), "cpi_min": cpi.get("min"),
            "stability": d.get("stability"),
        }
    return out


def mode_cost(tools, exe, n, reps, workdir, env):
    """Thesis method (one program run per variant and repetition, replace
    mode) against one rotate-mode run measuring every variant (VARIANTS)."""
    os.makedirs(workdir, exist_ok=True)
    calls = len(VARIANTS) * reps + 2 + len(VARIANTS)
    rot = decan_run(tools, exe, n, calls, reps, os.path.join(workdir, "rotate.json"), env,
                    timeout=120)
    res = {"n": n, "reps": reps, "rotate": {"wall_s": rot["wall_s"], "runs": 1,
                                             "error": rot.get("error")}}
    if rot.get("error"):
        res["replace"] = {"wall_s": 0.0, "runs": 0, "failures": 0}
        res["replace_error"] = "not run: the rotate run failed"
        return res
    total, runs, failures = 0.0, 0, 0
    per_variant = {}
    for v in VARIANTS:
        for r in range(reps):
            # Warm-up call, then REF (always added by decan run) and V.
            one = decan_run(tools, exe, n, 4, 1, os.path.join(workdir, "replace.json"), env,
                            mode="replace", variants=[v], max_runs=1, timeout=30)
            total += one["wall_s"]
            runs += 1
            loop, _ = pick_loop(one.get("report"), None)
            cyc = (((loop or {}).get("variants") or {}).get(v) or {}).get("cycles") or {}
            if cyc.get("median"):
                per_variant.setdefault(v, []).append(cyc["median"])
            if one.get("error"):
                failures += 1
                res["replace_error"] = one["error"]
                if failures >= 2:  # a broken mode: stop paying for it
                    break
        if failures >= 2:
            break
    res["replace"] = {"wall_s": total, "runs": runs, "failures": failures}
    # Do both methods reach the same saturations? (median of the runs' calls)
    med = lambda xs: sorted(xs)[len(xs) // 2]
    if per_variant.get("REF"):
        ref = med(per_variant["REF"])
        res["replace"]["saturation"] = {v: med(x) / ref for v, x in per_variant.items()
                                        if v != "REF"}
    rloop, _ = pick_loop(rot.get("report"), None)
    res["rotate"]["saturation"] = (rloop or {}).get("saturation")
    if rot.get("error") is None and failures == 0 and rot["wall_s"] > 0:
        res["ratio"] = total / rot["wall_s"]
    return res
