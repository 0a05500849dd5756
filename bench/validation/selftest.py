#!/usr/bin/env python3
# ===- selftest.py - The suite's judging logic on synthetic measurements ---===#
#
# Part of decan's validation suite. Feeds made-up saturations through the
# expectation checker, the quality analysis and the table writer, and prints
# what they conclude, for lit/bench/selftest.test to check: a disagreement
# must be reported, a missing variant must be n/a, never "agree".
#
# ===-----------------------------------------------------------------------===#

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decanval import analyse, output  # noqa: E402


def point(codelet, regime, sat, ws=24576, n=1000, ref_cycles=None, ctrl=None, trips=None,
          reference=None):
    variants = {"REF": {"cycles_median": ref_cycles, "trips_per_call": trips,
                        "stability": 0.01}}
    if ctrl is not None:
        variants["CTRL"] = {"cycles_median": ctrl, "trips_per_call": trips}
    return {"codelet": codelet, "regime": regime, "ws_bytes": ws, "n": n,
            "loop_calls_per_call": 1, "precision": reference is not None,
            "ref": {"reference_cycles_per_call": reference,
                    "per_call_cycles": {"median": reference, "min": reference},
                    "probe_pair_cycles": {"min": 26, "median": 52}} if reference else {},
            "decan": {"loop": {"id": codelet + "_kernel:L0", "saturation": sat,
                               "variants": variants}}}


def main():
    expect = {"generic": [{"regimes": ["*"], "check": "LS <= 1.1", "why": "g"}],
              "codelets": {"div_red": [
                  {"regimes": ["L1"], "check": "NO_DIV <= 0.6", "why": "div"},
                  {"regimes": ["L1"], "check": "FP > LS", "why": "fp"},
                  {"regimes": ["L1"], "check": "DL1 >= 0.85", "why": "dl1"},
                  {"trend": "LS", "from": "L1", "to": "RAM", "direction": "up", "why": "t"}]}}
    pts = [point("div_red", "L1", {"NO_DIV": 0.9, "FP": 0.95, "LS": 1.3}),
           point("div_red", "RAM", {"LS": 1.0}, ws=1 << 28),
           point("div_red", None, {"NO_DIV": 0.1}, ws=40000)]
    for r in analyse.check_expectations(expect, pts):
        print("CHECK %s %s %s -> %s %s" % (r["codelet"], r["regime"], r["check"],
                                          r["status"], r["value"] or ""))
    # Quality: REF = reference + 50 fixed cycles; CTRL = 50 + 1 per trip.
    prec = [point("triad", "L1", {}, n=n, ref_cycles=2.0 * n + 50, ctrl=50.0 + n, trips=n,
                  reference=2.0 * n) for n in (8, 64, 512, 4096)]
    q = analyse.quality([], prec)
    print("QUALITY smallest=%s all_from=%s" % (q["smallest_matching_call_cycles"],
                                              q["all_match_from_cycles"]))
    c = q["ctrl_subtraction"]["triad"]
    print("CTRL fixed=%.1f helps=%d/%d" % (c["fixed_cost_cycles"], c["helps"], c["points"]))
    print(output.table(["a", "b|c"], [[1, "x|y"]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
