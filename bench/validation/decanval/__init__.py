"""decan's validation suite: codelets, expectations, static cross-check.

bench/run is the one command; this package is its library:

  machine   facts about the host (caches, TSC/core clock ratio)
  tools     locating and calling decan, decan-mca-check, clang-22
  build     building the codelets with and without the plugin
  measure   running the codelets under decan and under the reference driver
  analyse   expectations, llvm-mca cross-check, measurement quality
  output    text tables, SVG figures, summary.json
"""

import os as _os
import sys as _sys

# The variant names come from scripts/decan_abi.py (which reads the C header).
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)),
                                  _os.pardir, _os.pardir, _os.pardir, "scripts"))
