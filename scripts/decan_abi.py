"""decan's variants for Python scripts, read from the table that defines them
(runtime/include/decan/variants.def), so no script keeps a list of its own.

Scripts elsewhere in the tree add this folder to sys.path:

    sys.path.insert(0, os.path.join(<path to the repo>, "scripts"))
    from decan_abi import VARIANTS

VARIANTS      the variant names in enum decan_variant order ("REF", ...)
SAT_VARIANTS  the same without REF (the variants with a saturation)
DEFAULT, EXTENDED, GROUPS
              the lists of `decan run` (its rotation, --extended, --groups)
REFERENCE     name -> the variant its saturation is read against
COLOURS       name -> its colour in charts

Run as a program, it prints a list comma-separated for shell scripts:
`decan_abi.py DEFAULT` (or EXTENDED, GROUPS, VARIANTS).
"""
import collections
import os
import re
import sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                     "runtime", "include", "decan", "variants.def")

FIELDS = ("id", "name", "set", "reference", "stores", "calls", "group_kind",
          "group", "colour")
Variant = collections.namedtuple("Variant", FIELDS)


def read_table(path=TABLE):
    """The entries of variants.def, in order (a Variant each)."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)  # comments
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)   # preprocessor lines
    rows = []
    for args in re.findall(r"\bDECAN_VARIANT\(([^()]*)\)", text):
        cells = [c.strip() for c in args.split(",")]
        if len(cells) != len(FIELDS):
            raise RuntimeError("%s: DECAN_VARIANT(%s): %d fields, not %d" %
                               (path, args, len(cells), len(FIELDS)))
        cells[0], cells[7] = int(cells[0]), int(cells[7])
        cells[8] = cells[8].strip('"')
        rows.append(Variant(*cells))
    if [r.id for r in rows] != list(range(len(rows))):
        raise RuntimeError("%s: IDs not 0..%d in order" % (path, len(rows) - 1))
    return rows


TABLE_ROWS = read_table()
VARIANTS = [r.name for r in TABLE_ROWS]
SAT_VARIANTS = [v for v in VARIANTS if v != "REF"]
DEFAULT = [r.name for r in TABLE_ROWS if r.set == "DEFAULT"]
EXTENDED = [r.name for r in TABLE_ROWS if r.set == "EXTENDED"]
GROUPS = [r.name for r in TABLE_ROWS if r.set == "GROUPS"]
REFERENCE = {r.name: r.reference for r in TABLE_ROWS}
COLOURS = {r.name: r.colour for r in TABLE_ROWS}


if __name__ == "__main__":
    print(",".join(globals()[sys.argv[1]]))
