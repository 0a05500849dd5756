#!/usr/bin/env bash
# The README's first command: sets decan up (scripts/setup.sh installs what is
# missing and builds), builds the bundled example with $(decan flags), lists
# its loops, measures them with `decan run` and prints decan's per-loop
# table. The analysed JSON and the HTML report land next to the binary.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${DECAN_BUILD_DIR:-$here/build}
bash "$here/scripts/setup.sh"

decan="$build/bin/decan"
cc=${CC:-clang-22}
out="$build/examples"
mkdir -p "$out"
echo "== building examples/loops.c with \$(decan flags)"
# shellcheck disable=SC2046 # the flags are meant to be split
"$cc" -O2 $("$decan" flags) "$here/examples/loops.c" -o "$out/loops"
echo "== decan list"
"$decan" list "$out/loops"
echo "== decan run"
"$decan" run --json "$out/loops.json" --html "$out/loops.html" \
  --remarks "$out/loops.opt.yaml" -- "$out/loops"
echo
echo "analysed report: $out/loops.json"
echo "HTML report:     $out/loops.html (one self-contained file)"
echo "remarks:         $out/loops.opt.yaml (LLVM optimization records)"
