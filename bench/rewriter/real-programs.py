#!/usr/bin/env python3
"""decan run on Debian programs doing real work: xz, zstd, gzip, sqlite3.

Per program: the output of `decan run` (the rewritten program, or its
library with --lib) against the plain program's (byte-identical or not),
the share of the run's time in measured loops (the report's coverage), and
the hot loops (program share >= 5%) that have REF only, with the reasons the
report gives for each missing variant.

usage: bench/rewriter/real-programs.py --decan BUILD/bin/decan [--out DIR]
       [--only xz,zstd,...]
Not a test: it prints what one run measured (timings move between runs and
with the machine's load; the cache of rewritten copies is bypassed).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

LIB = "/lib/x86_64-linux-gnu"
SQL = """
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO t SELECT i, hex(i * 2654435761 % 1000000007) || printf('%08d', i * 7919 % 200000),
                     (i * 37 % 1000) / 7.0 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(length(b)), round(avg(c), 4) FROM t;
SELECT substr(b, 1, 2) AS k, count(*), round(sum(c), 2) FROM t GROUP BY k
  ORDER BY k LIMIT 5;
SELECT b FROM t WHERE b LIKE '%ABC%' ORDER BY b LIMIT 3;
"""


def workloads(data):
    return {
        "xz": (["xz", "-9", "-c", data], [LIB + "/liblzma.so.5"], None),
        "zstd": (["zstd", "-19", "-c", data], [], None),
        "gzip": (["gzip", "-9", "-c", data], [], None),
        "sqlite3": (["sqlite3", ":memory:"], [LIB + "/libsqlite3.so.0"], SQL),
    }


def md5(b):
    return hashlib.md5(b).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decan", required=True)
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="decan-real-"))
    ap.add_argument("--only")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    data = os.path.join(a.out, "input.bin")
    if not os.path.exists(data):
        # Real bytes nobody here wrote: code and data of a large library.
        with open("/usr/lib/llvm-22/lib/libLLVM.so.22.1", "rb") as f:
            f.seek(20 << 20)
            open(data, "wb").write(f.read(2 << 20))
    env = dict(os.environ, DECAN_CACHE="0")
    for name, (cmd, libs, stdin) in workloads(data).items():
        if a.only and name not in a.only.split(","):
            continue
        inp = stdin.encode() if stdin else None
        plain = subprocess.run(cmd, input=inp, capture_output=True)
        js = os.path.join(a.out, name + ".json")
        table = os.path.join(a.out, name + ".txt")
        run = [a.decan, "run", "--json", js, "-o", table]
        for l in libs:
            run += ["--lib", l]
        r = subprocess.run(run + ["--"] + cmd, input=inp, capture_output=True,
                           env=env)
        same = r.stdout == plain.stdout and r.returncode == plain.returncode
        print("%s: %s; output %s (%d bytes)" %
              (name, " ".join(["decan run"] + ["--lib " + l for l in libs] +
                              ["--"] + cmd),
               "identical" if same else "DIFFERS (%s vs %s, rc %d vs %d)" %
               (md5(r.stdout), md5(plain.stdout), r.returncode,
                plain.returncode), len(plain.stdout)))
        if r.returncode and not os.path.exists(js):
            print("  decan run failed: %s" % r.stderr.decode()[-400:])
            continue
        rep = json.load(open(js))
        ran = [l for l in rep["loops"] if l["whole_run"]["calls"]]
        print("  loops in the report: %d, %d ran; their share of the run: "
              "%.1f%%" % (len(rep["loops"]), len(ran),
                          100 * (rep.get("coverage") or 0)))
        hot = [l for l in rep["loops"] if (l.get("program_share") or 0) >= 0.05]
        for l in sorted(hot, key=lambda l: -l["program_share"]):
            ref_only = l["variant_mask"] in (1, 1 | 1 << 6)
            why = "; ".join("%s: %s" % kv for kv in
                            sorted(l.get("unavailable", {}).items()))
            print("  hot %-28s %5.1f%%  %s%s" %
                  (l["id"], 100 * l["program_share"],
                   "REF only" if ref_only else l["verdict"]["class"],
                   (" (" + why + ")") if ref_only else ""))


if __name__ == "__main__":
    main()
