#!/usr/bin/env python3
"""Summarises a decan-tune-1 file for FileCheck (lit/tool/pgo-tune.test).

tune-check.py tune.json              one line per loop: position, function,
                                      candidate names, whether the choice is
                                      one of them
tune-check.py tune.json --remarks F  checks that the applied build's remarks
                                      (file F) name every choice
"""
import json
import sys

tune = json.load(open(sys.argv[1]))
loops = tune["loops"]
if len(sys.argv) > 3 and sys.argv[2] == "--remarks":
    remarks = open(sys.argv[3]).read()
    missing = [l["source"] for l in loops if l["choice"] != "default" and
               "loop hints of candidate %s (decan tune)" % l["choice"] not in remarks]
    print("missing hints for " + ", ".join(missing) if missing else "every choice applied")
    sys.exit(0)
print(tune["format"], "loops", len(loops))
for l in sorted(loops, key=lambda l: l["source"]):
    names = sorted(c["name"] for c in l["candidates"])
    ok = l["choice"] in names and all(
        c["interval"][0] <= c["interval"][1] and c["cycles_per_iteration"] > 0
        for c in l["candidates"])
    print("loop", l["source"], l["function"], "candidates", ",".join(names),
          "choice-ok" if ok else "choice-bad")
