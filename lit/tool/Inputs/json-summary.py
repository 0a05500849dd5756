"""Prints an analysed decan report as lines FileCheck can read, and fails
when a key the format promises (issue 6, docs/tool.md) is missing."""
import json
import sys

r = json.load(open(sys.argv[1]))
for k in ["tool", "version", "machine", "loops"]:
    assert k in r, "missing top-level key " + k
print("tool", r["tool"], "processes", len(r.get("processes", [])))
for p in r.get("processes", []):
    print("process rank", p["rank"], "status", p["status"])
for l in r["loops"]:
    for k in ["id", "function", "file", "line", "share", "variants",
              "saturation", "diagnosis", "warnings"]:
        assert k in l, "loop without " + k
    print("loop", l["id"], l["function"], "%s:%d" % (l["file"], l["line"]),
          "share %.3f" % l["share"], "streams", l.get("streams", ""))
    for v, s in l["variants"].items():
        for k in ["calls", "iterations", "cycles", "cycles_per_iteration",
                  "stability"]:
            assert k in s, v + " without " + k
        for k in ["min", "median", "max"]:
            assert k in s["cycles"], "cycles without " + k
        for k in ["min", "median"]:
            assert k in s["cycles_per_iteration"]
        ranks = sorted(set(str(row["rank"]) for row in s.get("rows", [])))
        print("  variant", v, "calls", s["calls"], "median",
              s["cycles"]["median"], "rows", len(s.get("rows", [])),
              "ranks", ",".join(ranks))
    for v, x in sorted(l["saturation"].items()):
        print("  sat", v, "%.3f" % x)
    for d in l["diagnosis"]:
        print("  diagnosis", d)
    for w in l["warnings"]:
        print("  warning", w)
