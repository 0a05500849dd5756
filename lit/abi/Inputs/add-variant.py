"""Writes OUT_DIR/decan/variants.def: decan's table of variants with one
more line, variant EXTRA (the next ID, in the --extended list, read against
S2L, stores as loads), as a contributor would add it; then reads it back as
scripts/decan_abi.py reads the table and prints what it says of EXTRA.

Usage: add-variant.py SRC_ROOT OUT_DIR
"""
import os
import sys

root, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "scripts"))
import decan_abi  # noqa: E402

text = open(decan_abi.TABLE).read()
line = ('DECAN_VARIANT(%d, EXTRA, EXTENDED, S2L, AS_LOAD, NO_WRITE, NONE, -1, '
        '"#000000")\n' % len(decan_abi.VARIANTS))
end = text.index("#undef DECAN_VARIANT")
os.makedirs(os.path.join(out, "decan"), exist_ok=True)
path = os.path.join(out, "decan", "variants.def")
open(path, "w").write(text[:end] + line + "\n" + text[end:])

rows = decan_abi.read_table(path)
print("python: last %s, id %s of %d" % (rows[-1].name, rows[-1].id, len(rows)))
names = [r.name for r in rows]
print("python: extended %s" % ",".join(
    r.name for r in rows if r.set == "EXTENDED"))
print("python: reference %s" % rows[-1].reference)
print("python: old ids kept %s" % (names[:-1] == decan_abi.VARIANTS))
