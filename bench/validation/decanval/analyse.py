"""Judging the measurements: expectations, llvm-mca cross-check, quality."""

import json
import re
import statistics

from . import tools as T

_CHECK = re.compile(r"^\s*([A-Z_0-9]+)\s*(<=|>=|<|>)\s*([A-Z_0-9]+|[0-9.]+)\s*$")
_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _sat(point, var):
    loop = (point.get("decan") or {}).get("loop")
    if not loop:
        return None
    if var == "REF":
        return 1.0
    s = (loop.get("saturation") or {}).get(var)
    return float(s) if isinstance(s, (int, float)) else None


def check_expectations(expect, points):
    """Every expectation against every point it applies to.

    Returns rows {codelet, ws_bytes, regime, check, status, value, why} with
    status 'agree', 'DISAGREE' or 'n/a' (variant not measured/built)."""
    rows = []
    for p in points:
        rules = [dict(r, generic=True) for r in expect.get("generic", [])]
        rules += expect.get("codelets", {}).get(p["codelet"], [])
        for rule in rules:
            if "check" not in rule:
                continue
            regs = rule.get("regimes", ["*"])
            if p.get("regime") is None or ("*" not in regs and p["regime"] not in regs):
                continue
            m = _CHECK.match(rule["check"])
            if not m:
                raise ValueError("bad expectation %r" % rule["check"])
            lhs, op, rhs = m.groups()
            a = _sat(p, lhs)
            b = float(rhs) if re.match(r"^[0-9.]+$", rhs) else _sat(p, rhs)
            row = {"codelet": p["codelet"], "ws_bytes": p["ws_bytes"],
                   "regime": p["regime"], "check": rule["check"],
                   "generic": bool(rule.get("generic")), "why": rule.get("why", "")}
            if a is None or b is None:
                row["status"], row["value"] = "n/a", None
            else:
                row["status"] = "agree" if _OPS[op](a, b) else "DISAGREE"
                row["value"] = "%s=%.3f" % (lhs, a) + (
                    "" if re.match(r"^[0-9.]+$", rhs) else ", %s=%.3f" % (rhs, b))
            rows.append(row)
    # Trends across regimes of one codelet.
    by_codelet = {}
    for p in points:
        by_codelet.setdefault(p["codelet"], []).append(p)
    for name, rules in expect.get("codelets", {}).items():
        for rule in rules:
            if "trend" not in rule:
                continue
            var = rule["trend"]

            def mean_sat(reg):
                vals = [_sat(p, var) for p in by_codelet.get(name, [])
                        if p.get("regime") == reg]
                vals = [v for v in vals if v is not None]
                return sum(vals) / len(vals) if vals else None
            a, b = mean_sat(rule["from"]), mean_sat(rule["to"])
            row = {"codelet": name, "ws_bytes": None,
                   "regime": "%s->%s" % (rule["from"], rule["to"]),
                   "check": "%s %s" % (var, rule["direction"]), "generic": False,
                   "why": rule.get("why", "")}
            if a is None or b is None:
                row["status"], row["value"] = "n/a", None
            else:
                moved = b - a if rule["direction"] == "up" else a - b
                row["status"] = "agree" if moved >= 0.1 else "DISAGREE"
                row["value"] = "%s: %.3f -> %.3f" % (var, a, b)
            rows.append(row)
    return rows


def mca_crosscheck(tools, point, tsc_ratio, tsc_step=1):
    """llvm-mca prediction per variant's loop body next to the measurement.

    Both sides in core cycles: decan measures TSC ticks, multiplied by the
    core-cycles-per-tick ratio. Returns rows {variant, symbol, predicted,
    measured, error} (error = predicted/measured - 1)."""
    loop = (point.get("decan") or {}).get("loop")
    exe = (point.get("build") or {}).get("exe")
    if not tools.mca or not loop or not exe or not loop.get("id"):
        return []
    fn = loop["function"]
    idx = loop["id"].rsplit(":", 1)[-1]
    variants = [v for v in loop["variants"] if loop["variants"][v].get("cpi_median")]
    syms = ["%s.decan.%s.%s" % (fn, idx, v) for v in variants]
    if not syms:
        return []
    r = T.run([tools.mca, exe] + syms, timeout=120)
    preds = {}
    for line in r.out.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        inner = [l for l in d.get("loops", []) if l.get("innermost")]
        # The loop body the variant runs: the innermost loop with the most
        # instructions (a vector body before its scalar remainder).
        inner.sort(key=lambda l: -l.get("instructions", 0))
        if inner:
            preds[d["symbol"]] = inner[0]
        else:
            preds[d["symbol"]] = {"error": d.get("error", "no loop found")}
    rows = []
    probe = (point.get("decan") or {}).get("probe_cycles") or 0
    for v, s in zip(variants, syms):
        meas_tsc = loop["variants"][v]["cpi_median"]
        # The same, less the probe pair's cost spread over the call's trips:
        # llvm-mca models the steady state only.
        cyc, trips = loop["variants"][v].get("cycles_median"), loop["variants"][v].get("trips_per_call")
        net_tsc = (cyc - probe) / trips if cyc and trips and cyc > probe else None
        p = preds.get(s, {"error": "decan-mca-check gave nothing (%s)" % r.brief()})
        row = {"codelet": point["codelet"], "ws_bytes": point["ws_bytes"],
               "variant": v, "symbol": s,
               "measured_tsc": meas_tsc,
               "measured_core": meas_tsc * tsc_ratio if meas_tsc else None,
               "net_core": net_tsc * tsc_ratio if net_tsc else None,
               "predicted_core": p.get("cycles_per_iteration"),
               "instructions": p.get("instructions"),
               "error": None, "net_error": None, "note": p.get("error")}
        # A call shorter than 10 steps of the TSC is measured to no better
        # than 10%: shown, but left out of the error statistics.
        if cyc is not None and cyc < 10 * (tsc_step or 1):
            row["note"] = "call of %d TSC ticks: below 10 timer steps" % cyc
            row["below_resolution"] = True
        if row["predicted_core"] and row["measured_core"]:
            row["error"] = row["predicted_core"] / row["measured_core"] - 1.0
        if row["predicted_core"] and row["net_core"]:
            row["net_error"] = row["predicted_core"] / row["net_core"] - 1.0
        rows.append(row)
    return rows


def _fit_intercept(xs, ys):
    if len(xs) < 2 or len(set(xs)) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return my - (sxy / sxx) * mx


def quality(points, precision_points):
    """Thesis chapter 7: probe cost, smallest accurate loop call, stability,
    CTRL-based probe-cost subtraction."""
    q = {}
    pairs = [p["ref"]["probe_pair_cycles"]["median"] for p in points + precision_points
             if isinstance(p.get("ref"), dict) and "probe_pair_cycles" in p["ref"]]
    mins = [p["ref"]["probe_pair_cycles"]["min"] for p in points + precision_points
            if isinstance(p.get("ref"), dict) and "probe_pair_cycles" in p["ref"]]
    if pairs:
        q["probe_pair_cycles"] = {"median": statistics.median(pairs), "min": min(mins)}
    # The runtime's own estimate of an empty timed region (decan run's
    # "probe_cycles"), for comparison with the driver's probe pair.
    rt = [p["decan"]["probe_cycles"] for p in points
          if isinstance((p.get("decan") or {}).get("probe_cycles"), (int, float))]
    if rt:
        q["runtime_probe_cycles"] = statistics.median(rt)
    # The driver's own per-call probes (thesis Algorithm 5) against its
    # repetition loop (Algorithm 4): what the probe method itself can resolve,
    # independent of decan.
    drows = []
    # The tiny-size sweep when there is one: large points only add noise to
    # the question "from how many cycles on can one call be measured".
    for p in precision_points or points:
        ref = p.get("ref") or {}
        if "reference_cycles_per_call" not in ref:
            continue
        pc = ref.get("per_call_cycles", {}).get("median")
        if not pc or not ref["reference_cycles_per_call"]:
            continue
        dev = pc / ref["reference_cycles_per_call"] - 1.0
        drows.append({"codelet": p["codelet"], "n": p["n"],
                      "reference": ref["reference_cycles_per_call"], "per_call": pc,
                      "deviation": dev, "match": abs(dev) <= 0.05})
    q["driver_rows"] = drows
    dm = sorted(r["reference"] for r in drows if r["match"])
    q["driver_smallest_matching_call_cycles"] = dm[0] if dm else None
    srt = sorted(drows, key=lambda r: r["reference"])
    q["driver_all_match_from_cycles"] = next(
        (srt[i]["reference"] for i in range(len(srt)) if all(r["match"] for r in srt[i:])), None)
    # Per point: measured REF cycles per loop call vs the repetition loop.
    # The thresholds come from the tiny-size sweep when it was measured.
    rows = []
    for p in precision_points + points:
        loop = (p.get("decan") or {}).get("loop")
        ref = p.get("ref") or {}
        if not loop or p.get("loop_calls_per_call") != 1 or "reference_cycles_per_call" not in ref:
            continue
        r = loop["variants"].get("REF", {})
        c = loop["variants"].get("CTRL", {})
        if not r.get("cycles_median"):
            continue
        rows.append({"codelet": p["codelet"], "n": p["n"], "ws_bytes": p["ws_bytes"],
                     "reference": ref["reference_cycles_per_call"],
                     "per_call_probe": ref.get("per_call_cycles", {}).get("median"),
                     "decan_ref": r["cycles_median"], "stability": r.get("stability"),
                     "trips": r.get("trips_per_call"),
                     "ctrl": c.get("cycles_median"), "ctrl_trips": c.get("trips_per_call"),
                     "precision": bool(p.get("precision"))})
    for row in rows:
        row["deviation"] = row["decan_ref"] / row["reference"] - 1.0
        row["match"] = abs(row["deviation"]) <= 0.05
    q["rows"] = rows
    trows = [r for r in rows if r["precision"]] or rows
    matching = sorted(r["reference"] for r in trows if r["match"])
    q["smallest_matching_call_cycles"] = matching[0] if matching else None
    # Above which size every call matches (the thesis's threshold).
    srt = sorted(trows, key=lambda r: r["reference"])
    thr = None
    for i in range(len(srt)):
        if all(r["match"] for r in srt[i:]):
            thr = srt[i]["reference"]
            break
    q["all_match_from_cycles"] = thr
    stabs = [r["stability"] for r in rows if isinstance(r.get("stability"), (int, float))]
    allstabs = []
    for p in points + precision_points:
        loop = (p.get("decan") or {}).get("loop")
        for v in (loop or {}).get("variants", {}).values():
            if isinstance(v.get("stability"), (int, float)):
                allstabs.append(v["stability"])
    if allstabs:
        q["stability"] = {"samples": len(allstabs), "median": statistics.median(allstabs),
                          "max": max(allstabs),
                          "share_below_0.05": sum(s < 0.05 for s in allstabs) / len(allstabs)}
    # CTRL-based probe-cost subtraction: per codelet, the intercept of
    # T(CTRL) against trips is the fixed cost every measured call pays.
    # Only on the tiny-size sweep: that is where the fixed cost matters, and
    # a line through sizes from L1 to RAM says nothing about it.
    q["ctrl_subtraction"] = {}
    for name in sorted({r["codelet"] for r in rows if r["precision"]}):
        mine = [r for r in rows if r["codelet"] == name and r["precision"]]
        pts = [r for r in mine if r["ctrl"] and r["ctrl_trips"]]
        a = _fit_intercept([r["ctrl_trips"] for r in pts], [r["ctrl"] for r in pts])
        if a is None:
            continue
        helped = 0
        for r in mine:
            corr = r["decan_ref"] - a
            r["corrected"] = corr
            r["corrected_deviation"] = corr / r["reference"] - 1.0
            r["subtraction_helps"] = abs(corr - r["reference"]) < abs(r["decan_ref"] - r["reference"])
            helped += r["subtraction_helps"]
        total = len(mine)
        q["ctrl_subtraction"][name] = {"fixed_cost_cycles": a, "helps": helped, "points": total}
    return q
