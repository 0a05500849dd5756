"""Helpers for the plugin's end-to-end tests (stdlib only).

report.py summary DIR   one line per loop of the single raw report
                        in DIR: status, then per loop which variants were
                        measured, whether every eligible one was, and whether
                        all measured REF calls have a nonzero trip count.
report.py prefix A B    exit 0 when file B is a non-empty prefix of file A.
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, os.pardir, "scripts"))
from decan_abi import VARIANTS  # noqa: E402

NAMES = VARIANTS


def summary(directory):
    files = glob.glob(directory + "/decan.*.json")
    if len(files) != 1:
        sys.exit("expected one report in %s, found %d" % (directory, len(files)))
    report = json.load(open(files[0]))
    print("status %s mode %s" % (report["status"], report["config"]["mode"]))
    for loop in sorted(report["loops"], key=lambda l: l["id"]):
        measured = set()
        ref_trips = []
        for thread in loop.get("threads", []):
            for name, v in thread["variants"].items():
                if v["records"] or v["online"]["count"]:
                    measured.add(name)
                if name == "REF":
                    ref_trips += [r[1] for r in v["records"]]
        eligible = [n for n in NAMES
                    if loop["variant_mask"] >> NAMES.index(n) & 1
                    and n not in loop.get("unavailable", {})]
        print("loop %s measured %s all-eligible %s ref-trips %s" % (
            loop["id"], ",".join(n for n in NAMES if n in measured),
            "yes" if set(eligible) <= measured else "no",
            "nonzero" if ref_trips and all(ref_trips) else "missing"))


def prefix(full, part):
    a = open(full, "rb").read()
    b = open(part, "rb").read()
    sys.exit(0 if b and a.startswith(b) else 1)


if __name__ == "__main__":
    if sys.argv[1] == "summary":
        summary(sys.argv[2])
    elif sys.argv[1] == "prefix":
        prefix(sys.argv[2], sys.argv[3])
