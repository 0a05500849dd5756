"""Prints every place in decan's sources that spells one of decan's variant
lists by hand (every variant, or every one of `decan run`'s default,
--extended or --groups list, with nothing but spaces, commas, quotes or '|'
between the names: an array, an enum, a help text, a regular expression),
and exits 1 if there is one. decan/variants.def is the one list; its
consumers generate theirs from it (lit/abi/one-list.test). Prose naming a
few variants is no list.

Usage: find-lists.py SRC_ROOT [ALLOWED_PATH...]
"""
import os
import re
import sys

ROOT = sys.argv[1]
ALLOWED = set(sys.argv[2:])
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from decan_abi import DEFAULT, EXTENDED, GROUPS, VARIANTS  # noqa: E402

DIRS = ["runtime", "instr-knowledge", "llvm-plugins", "mc-rewriter", "tools",
        "scripts", "bench", "cmake", "examples"]
SUFFIXES = (".h", ".hpp", ".c", ".cpp", ".py", ".sh", ".def", ".txt",
            ".cmake")
TABLE = os.path.join("runtime", "include", "decan", "variants.def")

name = r"(?:DECAN_|Variant::)?(?:%s)\b" % "|".join(
    sorted(map(re.escape, VARIANTS), key=len, reverse=True))
sep = r"""[\s,"'|]+"""
LIST = re.compile(r"\b%s(?:%s%s){2,}" % (name, sep, name))

LISTS = [VARIANTS, DEFAULT, EXTENDED, GROUPS]
found = 0
for top in DIRS:
    for dirpath, dirnames, files in os.walk(os.path.join(ROOT, top)):
        dirnames[:] = [d for d in dirnames if d not in ("build", "__pycache__")]
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)
            if not f.endswith(SUFFIXES) or rel == TABLE or rel in ALLOWED:
                continue
            text = open(path, errors="replace").read()
            for m in LIST.finditer(text):
                names = set(n.split("_", 1)[1] if n.startswith("DECAN_")
                            else n.split("::")[-1]
                            for n in re.findall(name, m.group(0)))
                if not any(set(L) <= names for L in LISTS):
                    continue
                line = text.count("\n", 0, m.start()) + 1
                print("%s:%d: a hand-written list of variants: %s" %
                      (rel, line, " ".join(m.group(0).split())))
                found += 1
sys.exit(1 if found else 0)
