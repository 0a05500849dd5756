#!/usr/bin/env python3
# ===- check_output.py - Well-formedness of bench/run's output -------------===#
#
# Part of decan's validation suite. Used by lit/bench tests:
#   check_output.py manifest SRCDIR      codelets.json/expectations.json agree
#                                        with the sources and parse
#   check_output.py run OUTDIR [--require-measurement]
#                                        tables.md, summary.json, figures
# Prints one line per check ("ok: ..."), "error: ..." and exit 1 otherwise.
#
# ===-----------------------------------------------------------------------===#

import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decanval import analyse  # noqa: E402

errors = []


def fail(msg):
    errors.append(msg)
    print("error: " + msg)


def ok(msg):
    print("ok: " + msg)


def check_manifest(srcdir):
    man = json.load(open(os.path.join(srcdir, "codelets.json")))
    exp = json.load(open(os.path.join(srcdir, "expectations.json")))
    names = set(man["codelets"])
    sources = {os.path.basename(p)[:-2] for p in glob.glob(os.path.join(srcdir, "*.c"))}
    if names != sources:
        fail("codelets.json and *.c differ: %s" % sorted(names ^ sources))
    if len(names) < 12:
        fail("only %d codelets" % len(names))
    for name, spec in man["codelets"].items():
        src = open(os.path.join(srcdir, name + ".c")).read()
        for fn in spec["functions"]:
            base = fn.split(".")[0]
            if not re.search(r"\b%s\s*\(" % re.escape(base), src):
                fail("%s: function %s not in the source" % (name, base))
    for sweep, s in man["sweeps"].items():
        if sweep == "full" and len(s["ws_bytes"]) < 8:
            fail("full sweep has fewer than 8 sizes")
    rules = list(exp.get("generic", []))
    for name, rs in exp["codelets"].items():
        if name not in names:
            fail("expectations for unknown codelet %s" % name)
        rules += rs
    for r in rules:
        if "check" in r and not analyse._CHECK.match(r["check"]):
            fail("bad expectation %r" % r["check"])
        if "trend" in r and r.get("direction") not in ("up", "down"):
            fail("bad trend %r" % r)
        regs = r.get("regimes", []) + [r.get("from"), r.get("to")]
        for reg in regs:
            if reg is not None and reg not in ("*", "L1", "L2", "L3", "RAM"):
                fail("bad regime %r" % reg)
    ok("%d codelets, %d expectations" % (len(names), len(rules)))


def check_tables(text):
    """Every markdown table: header, separator, rows with as many cells."""
    lines = text.splitlines()
    tables = 0
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|-"):
            ncol = lines[i].count("|")
            tables += 1
            j = i + 1
            while j < len(lines) and lines[j].startswith("|"):
                if lines[j].count("|") != ncol:
                    fail("table row with %d cells instead of %d: %s"
                         % (lines[j].count("|") - 1, ncol - 1, lines[j][:80]))
                j += 1
            i = j
        else:
            i += 1
    return tables


def check_run(out, require):
    text = open(os.path.join(out, "tables.md")).read()
    for sec in ("## Machine", "## Saturations per codelet and size", "## Expectations:",
                "## llvm-mca vs measured", "## Measurement quality",
                "## Overheads: compile time and code size"):
        if sec not in text:
            fail("tables.md lacks section %r" % sec)
    ok("%d tables well formed" % check_tables(text))
    s = json.load(open(os.path.join(out, "summary.json")))
    if s.get("format") != "decan-validation-1":
        fail("summary.json format %r" % s.get("format"))
    for key in ("machine", "points", "expectations", "quality", "builds", "mca"):
        if key not in s:
            fail("summary.json lacks %r" % key)
    measured = 0
    for p in s.get("points", []):
        for key in ("codelet", "n", "ws_bytes", "regime", "ref"):
            if key not in p:
                fail("point lacks %r: %s" % (key, p.get("codelet")))
        d = p.get("decan")
        if d is None:
            continue
        if d.get("loop") is None and not d.get("error"):
            fail("%s: decan result with neither loop nor error" % p["codelet"])
        loop = d.get("loop")
        if loop:
            sat = loop.get("saturation") or {}
            for v, x in sat.items():
                if not isinstance(x, (int, float)) or not 0 <= x < 100:
                    fail("%s: saturation %s=%r" % (p["codelet"], v, x))
            if "REF" in loop.get("variants", {}) and sat:
                measured += 1
    for c in s.get("expectations", []):
        if c.get("status") not in ("agree", "DISAGREE", "n/a"):
            fail("expectation status %r" % c.get("status"))
    for r in s.get("mca", []):
        for key in ("error", "net_error"):
            if r.get(key) is not None and not isinstance(r[key], float):
                fail("mca %s %r" % (key, r[key]))
    ok("%d points, %d measured by decan" % (len(s.get("points", [])), measured))
    if require and measured == 0:
        fail("no point was measured by decan (problems: %s)" % s.get("problems"))
    figs = glob.glob(os.path.join(out, "figures", "*.svg"))
    if not figs:
        fail("no figures")
    for f in figs:
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError as e:
            fail("%s: %s" % (f, e))
            continue
        if not root.tag.endswith("svg"):
            fail("%s: not an SVG" % f)
    ok("%d SVG figures parse" % len(figs))


def main(argv):
    if len(argv) < 3 or argv[1] not in ("manifest", "run"):
        print("usage: check_output.py manifest SRCDIR | run OUTDIR [--require-measurement]")
        return 2
    try:
        if argv[1] == "manifest":
            check_manifest(argv[2])
        else:
            check_run(argv[2], "--require-measurement" in argv)
    except (OSError, ValueError, KeyError) as e:
        fail("%s: %s" % (type(e).__name__, e))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
