"""decan's ABI vocabulary for Python scripts, read from the C header that
defines it (runtime/include/decan/abi_names.h), so no script keeps a list of
its own.

Scripts elsewhere in the tree add this folder to sys.path:

    sys.path.insert(0, os.path.join(<path to the repo>, "scripts"))
    from decan_abi import VARIANTS

VARIANTS      the variant names in enum decan_variant order ("REF", ...)
SAT_VARIANTS  the same without REF (the variants with a saturation)
"""
import os
import re

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                      "runtime", "include", "decan", "abi_names.h")


def _variant_names(path=HEADER):
    text = open(path).read()
    m = re.search(r"decan_variant_names\[DECAN_NUM_VARIANTS\]\s*=\s*\{([^}]*)\}",
                  text)
    if not m:
        raise RuntimeError("%s: no decan_variant_names table" % path)
    return re.findall(r'"([A-Z0-9_]+)"', m.group(1))


VARIANTS = _variant_names()
SAT_VARIANTS = [v for v in VARIANTS if v != "REF"]
