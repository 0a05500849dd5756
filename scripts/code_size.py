#!/usr/bin/env python3
"""Checks the size rules of DEVELOPERS.md on clang-formatted C++ sources:
no file over MAX_FILE lines, no function over MAX_FUNCTION lines.

Usage: code_size.py [--max-file N] [--max-function N] [--allow FILE:REASON]... DIR...

A function is a definition that starts in column 0 (or one level inside a
class, for members defined in the class) and ends at its closing brace in
the same column, as clang-format lays them out. Prints one line per
violation and exits 1 if there is any."""

import argparse
import os
import re
import sys

DECL_START = re.compile(r"^(\s*)(?!namespace\b|struct\b|class\b|enum\b|union\b|extern\b)"
                        r"[^#/\s].*\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(->\s*[\w:<>,\s*&]+)?\{\s*$")


def functions(lines):
    """(name line, first, last) of each function definition."""
    i = 0
    while i < len(lines):
        m = DECL_START.match(lines[i])
        if m and len(m.group(1)) <= 2:
            indent = m.group(1)
            # The signature may start on earlier lines (wrapped parameters).
            start = i
            while start > 0 and lines[start - 1].strip() and \
                    not lines[start - 1].rstrip().endswith((";", "}", "{")) and \
                    not lines[start - 1].lstrip().startswith(("//", "#")):
                start -= 1
            end = i + 1
            while end < len(lines) and lines[end].rstrip() != indent + "}" and \
                    not lines[end].startswith(indent + "};"):
                end += 1
            yield lines[start].strip(), start + 1, end + 1
            i = end + 1
            continue
        i += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-file", type=int, default=700)
    ap.add_argument("--max-function", type=int, default=150)
    ap.add_argument("--allow", action="append", default=[],
                    help="FILE:REASON, a file allowed over --max-file")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    allowed = {x.split(":", 1)[0] for x in a.allow}
    bad = 0
    for d in a.dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith((".cpp", ".h", ".c")):
                    continue
                path = os.path.join(root, f)
                lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
                rel = os.path.relpath(path, os.path.dirname(os.path.abspath(d)))
                if len(lines) - 1 > a.max_file and f not in allowed:
                    print("%s: %d lines (at most %d)" % (rel, len(lines) - 1, a.max_file))
                    bad += 1
                for name, first, last in functions(lines):
                    n = last - first + 1
                    if n > a.max_function:
                        print("%s:%d: function of %d lines (at most %d): %s" %
                              (rel, first, n, a.max_function, name[:70]))
                        bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
