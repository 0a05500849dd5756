#!/usr/bin/env python3
"""Shape a clang-built .ll like the decan IR outliner's output, for tests.

mkvariants.py IN.ll FUNCTION [VARIANT...] > OUT.ll

Clones FUNCTION (which must contain exactly one loop) into
FUNCTION.decan.L0.<V> for each variant V (default: all but NO_CALL, which
the outliner emits only for loops that call), with the
function attributes "decan-variant"="<V>" and "decan-loop"="FUNCTION:L0",
and adds the loop's meta record (decan_meta_record layout, element 8 =
decan_machine_info as [126 x i32]) and its 8 KiB DL1 scratch area: the
machine pass alone, on IR shaped by hand (the C tests build through the
whole plugin).
"""
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, os.pardir, "scripts"))
from decan_abi import VARIANTS  # noqa: E402


def main():
    src, fn = sys.argv[1], sys.argv[2]
    variants = sys.argv[3:] or [v for v in VARIANTS if v != "NO_CALL"]
    text = open(src).read()
    m = re.search(r"^define [^\n]*@%s\(.*?^}\n" % re.escape(fn), text,
                  re.S | re.M)
    if not m:
        sys.exit("mkvariants.py: no function @%s in %s" % (fn, src))
    body = m.group(0)
    out = [text]
    for v in variants:
        clone = body.replace("@%s(" % fn, '@"%s.decan.L0.%s"(' % (fn, v), 1)
        # Append the variant attributes after the attribute group reference.
        clone = re.sub(r"\) (local_unnamed_addr )?(#\d+) \{",
                       r') \1\2 "decan-variant"="%s" "decan-loop"="%s:L0" {'
                       % (v, fn), clone, count=1)
        out.append(clone)
    mask = sum(1 << VARIANTS.index(v) for v in variants if v in VARIANTS)
    strings = "%s:L0\\00%s\\00k.c\\00\\00" % (fn, fn)
    n = len(fn) + 3 + 1 + len(fn) + 1 + 4 + 1
    out.append(
        '@"%s.decan.L0.meta" = dso_local constant { [4 x i8], i32, i32, i32, '
        'i32, i32, i32, i32, [126 x i32], [%d x i8] } { [4 x i8] c"DCN1", '
        'i32 %d, i32 6, i32 %d, i32 0, i32 0, i32 %d, i32 0, '
        '[126 x i32] zeroinitializer, [%d x i8] c"%s" }, section ".decan.meta"\n'
        % (fn, n, 32 + 126 * 4 + n, mask, n, n, strings))
    out.append('@"%s.decan.L0.scratch" = dso_local global [8192 x i8] '
               'zeroinitializer, align 64\n' % fn)
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
