#!/usr/bin/env bash
# Rewriter coverage benchmark (issue 8): share of innermost loops the MC
# rewriter rewrites in Debian's prebuilt reference BLAS (libblas3) and
# OpenBLAS (libopenblas0-pthread), and whether a BLAS driver prints the same
# results with the rewritten library (a) unmeasured, (b) with every loop
# measured (stand-in runtime: every descriptor active, calls cycled through
# all variants) and (c) with libdecan_rt in rotate mode (DECAN_LOOPS=all).
# Prints ratios measured in this run; asserts nothing.
#
# usage: bench/rewriter/run.sh [BUILD_DIR]   (needs: apt-get install -y
#        libblas3 libopenblas0-pthread); DECAN_RT=path overrides the runtime
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
decan=$build/bin/decan
rt=${DECAN_RT:-$build/lib/libdecan_rt.so}
cc=${CC:-clang-22}
work=$(mktemp -d /tmp/decan-rw-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

"$cc" -O2 -shared -fPIC -I"$here/../../runtime/include" "$here/standin-rt.c" \
  -o "$work/standin.so" || exit 1

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }'; }

bench_lib() { # name, library to rewrite, dir of the libblas.so.3 to link
  local name=$1 lib=$2 blasdir=$3
  echo "== $name: $lib"
  "$decan" rewrite --list "$lib" > "$work/$name.list" || return
  local total ok calls
  total=$(grep -c '^  .*:L[0-9]' "$work/$name.list")
  ok=$(grep -c '^  .* rewritable$' "$work/$name.list")
  calls=$(grep -c 'skipped: call in loop' "$work/$name.list")
  echo "innermost loops: $total, rewritable: $ok ($(ratio "$ok" "$total")); " \
       "without calls: $((total - calls)), rewritable $(ratio "$ok" $((total - calls)))"
  echo "skipped, by reason:"
  grep -o 'skipped: .*' "$work/$name.list" | sed 's/ (.*//' | sort | uniq -c |
    sort -rn | sed 's/^/  /'
  mkdir -p "$work/$name"
  local t0=$(date +%s.%N)
  "$decan" rewrite "$lib" -o "$work/$name" -q || return
  local t1=$(date +%s.%N)
  echo "rewrite time: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f s", b-a}')," \
       "size $(stat -L -c %s "$lib") -> $(stat -c %s "$work/$name/$(basename "$lib")") bytes"
  "$cc" -O1 "$here/blas-driver.c" -L"$blasdir" -l:libblas.so.3 -o "$work/$name.drv" || return
  LD_LIBRARY_PATH=$blasdir "$work/$name.drv" 2 > "$work/$name.ref"
  LD_LIBRARY_PATH=$work/$name:$blasdir "$work/$name.drv" 2 > "$work/$name.rw"
  cmp -s "$work/$name.ref" "$work/$name.rw" && echo "unmeasured output: identical" ||
    echo "unmeasured output: DIFFERENT"
  timeout 600 env DECAN_STANDIN_OUT=$work/$name.standin LD_PRELOAD=$work/standin.so \
    LD_LIBRARY_PATH=$work/$name:$blasdir "$work/$name.drv" 2 > "$work/$name.meas"
  local rc=$?
  cmp -s "$work/$name.ref" "$work/$name.meas" && echo "measured (stand-in) output: identical (exit $rc)" ||
    echo "measured (stand-in) output: DIFFERENT (exit $rc)"
  cat "$work/$name.standin" 2>/dev/null
  if [ -f "$rt" ]; then
    mkdir -p "$work/$name.rep"
    timeout 300 env DECAN_LOOPS=all DECAN_OUTPUT=$work/$name.rep LD_PRELOAD=$rt \
      LD_LIBRARY_PATH=$work/$name:$blasdir "$work/$name.drv" 2 > "$work/$name.rt"
    rc=$?
    cmp -s "$work/$name.ref" "$work/$name.rt" && echo "measured (libdecan_rt, rotate) output: identical (exit $rc)" ||
      echo "measured (libdecan_rt, rotate) output: DIFFERENT or none (exit $rc$([ $rc = 124 ] && echo ', timed out'))"
    ls "$work/$name.rep"/*.json > /dev/null 2>&1 &&
      echo "report: $(cat "$work/$name.rep"/*.json | grep -o '"id": *"[^"]*"' | wc -l) loops registered, $(cat "$work/$name.rep"/*.json | grep -o '"REF": *{"calls": *[1-9]' | wc -l) with measured REF calls" ||
      echo "report: none"
  fi
}

bench_lib refblas /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 /usr/lib/x86_64-linux-gnu/blas
bench_lib openblas /usr/lib/x86_64-linux-gnu/libopenblas.so.0 /usr/lib/x86_64-linux-gnu/openblas-pthread
