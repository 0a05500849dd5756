"""decan's validation suite: codelets, expectations, static cross-check.

bench/run is the one command; this package is its library:

  machine   facts about the host (caches, TSC/core clock ratio)
  tools     locating and calling decan, decan-mca-check, clang-22
  build     building the codelets with and without the plugin
  measure   running the codelets under decan and under the reference driver
  analyse   expectations, llvm-mca cross-check, measurement quality
  output    text tables, SVG figures, summary.json
"""
