#!/usr/bin/env python3
"""Compares two analysed decan reports (decan run --json) of the same
program: the loops measured, their variant sets, and the saturations
(per loop and variant, |a-b|/b). Used to check that decan run --late
measures what a full rewrite measures (docs/rewriter.md, "Late variants").

usage: compare-runs.py A.json B.json
"""
import json
import statistics
import sys


def load(path):
    out = {}
    for loop in json.load(open(path))['loops']:
        if loop.get('variants'):
            out[loop['id']] = (sorted(loop['variants']),
                               loop.get('saturation') or {})
    return out


a, b = load(sys.argv[1]), load(sys.argv[2])
common = set(a) & set(b)
print(f'loops measured: {len(a)}, {len(b)}; in both: {len(common)}')
print('only in the first:', sorted(set(a) - set(b))[:10])
print('only in the second:', sorted(set(b) - set(a))[:10])
print('same variant sets:', sum(a[k][0] == b[k][0] for k in common))
diffs = sorted(
    abs(s - b[k][1][v]) / b[k][1][v] for k in common
    for v, s in a[k][1].items()
    if isinstance(s, (int, float)) and isinstance(b[k][1].get(v), (int, float))
    and s > 0 and b[k][1][v] > 0)
if diffs:
    print(f'saturations: {len(diffs)} pairs, median |a-b|/b '
          f'{statistics.median(diffs):.3f}, within 10%: '
          f'{sum(d <= 0.10 for d in diffs)}')
