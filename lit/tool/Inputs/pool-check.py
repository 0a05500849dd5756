"""Checks an analysed run of Inputs/pool.c (issue 26): the loops' program
shares are of the CPU time and add up to at most 1 without being scaled,
the waiting loops say "blocked" with no gain, the work loop does not."""
import json
import sys

r = json.load(open(sys.argv[1]))
loops = {l["id"]: l for l in r["loops"]}
total = sum(l.get("program_share") or 0 for l in r["loops"]
            if not l["id"].startswith("region:"))
print("shares sum %.3f" % total)
assert total <= 1.0 + 1e-9, total
assert not any("scaled to add up" in w for w in r["warnings"]), r["warnings"]
for i in ("take:L0", "wait_done:L0"):
    l = loops[i]
    run = l["whole_run"]
    print(i, "verdict", l["verdict"]["class"], "blocked %.2f" % run["blocked"],
          "gain", l.get("predicted_gain"))
    assert l["verdict"]["class"] == "blocked", l["verdict"]
    assert run["blocked"] >= 0.5 and run["blocked_calls"] > 0, run
    assert l.get("predicted_gain") is None and l.get("dl1_gain") is None
scale = loops["scale:L0"]
print("scale:L0 verdict", scale["verdict"]["class"] or "none",
      "blocked %.2f" % (scale["whole_run"]["blocked"] or 0))
assert scale["verdict"]["class"] != "blocked"
print("ok")
