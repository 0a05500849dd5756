#!/usr/bin/env bash
# Rewriter at library scale (issue 18): for Debian's reference libblas,
# OpenBLAS, OpenBLAS's liblapack, liblzma and a large C++ program (gdb),
# prints
#   - `decan rewrite --all`: wall and user time, peak RSS, output size
#     (x input), innermost loops rewritten; with the default variants (the
#     seven `decan run` rotates) and with --variants=all (19);
#   - `decan rewrite --profile` (REF alone, no analysis): time and size;
#   - `decan rewrite --late-base`: time and size; `decan run` with no
#     option (late variants for inputs of 16 MB or more, a full rewrite
#     below) start-up, empty cache and filled (the second run starts with
#     the pack the first one built), loops measured in each;
#   - `decan run --find-first` start-up: seconds from the command to the start of the
#     measured run (a launcher script notes when each run starts: strace
#     would change what the runtime measures), with an empty cache
#     and again with the cache filled; the loops measured; whether the
#     program's output is unchanged.
# With DECAN_BASE=<older build dir> the same for that build (before: it
# rewrites every loop before the one run). Prints figures measured in this
# run as a Markdown table; asserts nothing (a benchmark, not a test).
#
# usage: bench/rewriter/scale.sh [BUILD_DIR]
#   needs: apt-get install -y libblas3 libopenblas0-pthread liblzma5 xz-utils
#          gdb; BENCH_INPUTS="refblas openblas lzma gdb" to choose
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
# `decan run`'s default rotation, from runtime/include/decan/variants.def.
default_variants=$(python3 "$here/../../scripts/decan_abi.py" DEFAULT)
cc=${CC:-clang-22}
work=$(mktemp -d /tmp/decan-scale-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
inputs=${BENCH_INPUTS:-refblas openblas lapack lzma gdb}
mla=/usr/lib/x86_64-linux-gnu

"$cc" -O1 "$here/blas-driver.c" -L$mla/blas -l:libblas.so.3 -o "$work/drv" || exit 1
printf '#!/bin/sh\ndate +%%s.%%N >> "$BENCH_STAMPS"\nexec "$@"\n' > "$work/stamp"
chmod +x "$work/stamp"
head -c 2000000 /dev/urandom | od -An -tx1 > "$work/data.txt" # compressible

# input: file rewritten; how to run it under decan; the program alone
setup() {
  case $1 in
  refblas) lib=$mla/blas/libblas.so.3; libdir=$mla/blas
    prog=("$work/drv" 200); kind=lib ;;
  openblas) lib=$mla/openblas-pthread/libopenblas.so.0
    libdir=$mla/openblas-pthread; prog=("$work/drv" 200); kind=lib ;;
  lapack) lib=$mla/openblas-pthread/liblapack.so.3
    libdir=$mla/openblas-pthread; prog=("$work/drv" 200); kind=lib ;;
  lzma) lib=$mla/liblzma.so.5; libdir=""
    prog=(/usr/bin/xz -6 -T1 -c "$work/data.txt"); kind=lib ;;
  gdb) lib=/usr/bin/gdb; libdir=""
    prog=(/usr/bin/gdb -nx --batch -ex "info functions ^main$" "$work/drv")
    kind=prog ;;
  esac
}

secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b-a}'; }
now() { date +%s.%N; }

# rewrite DECAN OUTDIR FLAGS...: "wall user peak-MB size rewritten"
rewrite() {
  local d=$1 out=$2
  shift 2
  rm -rf "$out" && mkdir -p "$out"
  local t0 t1
  t0=$(now)
  /usr/bin/time -f "%U %M" -o "$work/user" "$d" rewrite "$lib" -o "$out" "$@" \
    > "$work/rw.txt" 2>&1 || { echo "failed - - - - -"; return; }
  local user rss
  read -r user rss < "$work/user"
  t1=$(now)
  local n
  n=$(grep -o '[0-9]* of [0-9]* innermost loops rewritten' "$work/rw.txt" |
    awk '{print $1 "/" $3}')
  echo "$(secs "$t0" "$t1") $user $((rss / 1024)) $(stat -c %s "$out"/*) ${n:--}"
}

# startup DECAN FLAGS...: seconds to the measured run's exec, loops measured
startup() {
  local d=$1
  shift
  local t0 env=(env)
  [ -n "$libdir" ] && env+=(LD_LIBRARY_PATH=$libdir)
  local how=(--lib "$lib" --)
  [ $kind = prog ] && how=(--)
  : > "$work/stamps"
  rm -f "$work/run.json"
  t0=$(now)
  BENCH_STAMPS=$work/stamps "${env[@]}" "$d" run "$@" --json "$work/run.json" \
    "${how[@]}" "$work/stamp" "${prog[@]}" > "$work/run.out" 2> "$work/run.err"
  local last
  last=$(tail -1 "$work/stamps")
  local same=different
  "${env[@]}" "${prog[@]}" > "$work/ref.out" 2> /dev/null
  cmp -s "$work/ref.out" "$work/run.out" && same=identical
  local measured
  measured=$(python3 -c "import json,sys; print(sum(1 for l in json.load(open(sys.argv[1]))['loops'] if any(v.get('calls',0) for v in l['variants'].values())))" "$work/run.json" 2> /dev/null)
  echo "$(secs "$t0" "${last:-$t0}") ${measured:-?} $same"
}

echo "| input | size | build | rewrite --all, 7 variants: s (user s, peak MB) | size (x) | --variants=all: s (user s, peak MB) | size (x) | loops rewritten | --profile: s, size (x) | decan run start: empty cache, filled | loops measured | output |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for name in $inputs; do
  setup "$name"
  [ -e "$lib" ] || { echo "| $name | missing: $lib |"; continue; }
  insize=$(stat -L -c %s "$lib")
  for which in ${DECAN_BASE:+base} now; do
    if [ $which = base ]; then d=$DECAN_BASE/bin/decan; else d=$build/bin/decan; fi
    # The seven named (an older build's default is all 19); "all" is newer
    # than --variants: an older build that refuses it gets its default.
    read -r w u r s n <<< "$(rewrite "$d" "$work/all" --variants=$default_variants)"
    x=$(awk -v a="$s" -v b="$insize" 'BEGIN{printf "%.2f", a/b}')
    read -r aw au ar as an <<< "$(rewrite "$d" "$work/all" --variants=all)"
    if [ "$aw" = failed ]; then # an older build: its default is all 19
      read -r aw au ar as an <<< "$(rewrite "$d" "$work/all")"
    fi
    ax=$(awk -v a="$as" -v b="$insize" 'BEGIN{printf "%.2f", a/b}')
    prof="-"
    if [ $which = now ]; then
      read -r pw pu pr ps pn <<< "$(rewrite "$d" "$work/prof" --profile)"
      prof="$pw, $(awk -v a="$ps" -v b="$insize" 'BEGIN{printf "%.2f", a/b}')"
    fi
    export DECAN_CACHE_DIR=$work/cache
    rm -rf "$DECAN_CACHE_DIR"
    # Now: the selective flow (--find-first: a profiling run first); the
    # default full rewrite and one run is what the base build did.
    first=()
    [ $which = now ] && first=(--find-first)
    read -r s1 m1 o1 <<< "$(startup "$d" "${first[@]}")"
    s2="-"
    if [ $which = now ]; then
      read -r s2 m2 o2 <<< "$(startup "$d" "${first[@]}")"
    fi
    echo "| $name | $((insize / 1000)) kB | $which | $w ($u, $r) | $x | $aw ($au, $ar) | $ax | $n | $prof | $s1, $s2 | $m1 | $o1 |"
    if [ $which = now ]; then
      # The default run (late variants from 16 MB on): the base copy (its
      # size in the --all columns), one run with an empty cache (variants
      # built while it runs), then one with the cached packs.
      read -r lw lu lr ls ln <<< "$(rewrite "$d" "$work/late" --late-base)"
      lx=$(awk -v a="$ls" -v b="$insize" 'BEGIN{printf "%.2f", a/b}')
      rm -rf "$DECAN_CACHE_DIR"
      read -r l1 lm1 lo1 <<< "$(startup "$d")"
      read -r l2 lm2 lo2 <<< "$(startup "$d")"
      mode=full
      grep -q 'late variants' "$work/run.err" && mode=late
      echo "| $name | $((insize / 1000)) kB | now, default run ($mode; --late-base columns) | $lw ($lu, $lr) | $lx | - | - | $ln | - | $l1, $l2 | $lm1, $lm2 | $lo1, $lo2 |"
    fi
  done
done
