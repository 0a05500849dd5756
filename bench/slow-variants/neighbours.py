#!/usr/bin/env python3
"""A sample against each of its REF neighbours, per variant (issue 26).

Reads the raw runtime reports of `decan run --raw-dir DIR` and prints, for
one loop, per sampled variant: the median of sample/pre and of sample/post
(the REF calls before and after the sample), and the median cycles of the
post neighbour, the REF call that runs after the sampled variant (and the
original's rerun after it). Where the post neighbour's cycles depend on the
variant before it, the neighbours are no fixed reference: what a variant
did to the memory system (a stream it pulled ahead, one it left cold)
carries into the next call.

  decan run --raw-dir /tmp/raw -- PROGRAM
  bench/slow-variants/neighbours.py main:L2 /tmp/raw/*.json

Not a test: it prints what one run gave (docs/validation.md, "Removal
variants slower than the loop").
"""
import json
import statistics
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    loop_id = sys.argv[1]
    for path in sys.argv[2:]:
        with open(path) as f:
            report = json.load(f)
        for loop in report["loops"]:
            if loop["id"] != loop_id:
                continue
            for thread in loop.get("threads", []):
                print(f"{path}: {loop_id}, thread {thread['thread']}")
                for name, v in thread["variants"].items():
                    col = {n: i for i, n in enumerate(v["fields"])}
                    recs = [r for r in v["records"]
                            if r[col["flags"]] == 0 and r[col["pre_cycles"]]
                            and r[col["post_cycles"]]]
                    if not recs:
                        continue
                    med = lambda xs: statistics.median(xs)
                    cyc = col["cycles"]
                    pre = med(r[cyc] / r[col["pre_cycles"]] for r in recs)
                    post = med(r[cyc] / r[col["post_cycles"]] for r in recs)
                    after = med(r[col["post_cycles"]] for r in recs)
                    print(f"  {name:<6} {len(recs):>4} samples  sample/pre "
                          f"{pre:5.2f}  sample/post {post:5.2f}  post "
                          f"neighbour {after:8.0f} cycles")


if __name__ == "__main__":
    main()
