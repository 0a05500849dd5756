"""Prints the nest's row of a decan JSON report (run-nests.test): its id,
calls, each variant's Sat, and the timed calls of the function's innermost
loops (none: they run inside the nest's copies)."""
import json
import sys

R = json.load(open(sys.argv[1]))
for L in R["loops"]:
    if L["id"] == "kern:N0":
        print("nest %s calls %d timed %d" % (L["id"], L["whole_run"]["calls"],
                                             L["whole_run"]["timed_calls"]))
        for V, S in sorted(L["saturation"].items()):
            print("sat %s %.2f" % (V, S))
        print("verdict %s" % L["verdict"]["class"])
inner = [L for L in R["loops"] if L["id"].startswith("kern:L")]
print("inner loops %d timed calls %d" % (
    len(inner), sum(L["whole_run"]["timed_calls"] for L in inner)))
