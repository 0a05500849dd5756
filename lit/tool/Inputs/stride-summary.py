"""Prints each loop's whole-run accounting from an analysed decan report:
calls, iterations, timed calls and the largest accounting stride."""
import json
import sys

r = json.load(open(sys.argv[1]))
for l in r["loops"]:
    w = l.get("whole_run", {})
    if not w.get("calls"):
        continue
    strided = w["max_stride"] > 1 and w["timed_calls"] * 10 < w["calls"]
    print("loop", l["id"], "calls", w["calls"], "iterations", w["iterations"],
          "strided" if strided else "every-call-timed",
          "samples" if any(v != "REF" for v in l["variants"]) else "no-samples")
