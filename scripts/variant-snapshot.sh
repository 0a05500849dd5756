#!/bin/bash
# Usage: scripts/variant-snapshot.sh BUILD_DIR OUT_DIR
#
# The code decan emits for a fixed set of sources, in a form two builds can
# diff: the bench/codelets kernels and the lit kernels, compiled with the
# plugin (every variant) and disassembled, and compiled plain and rewritten
# (--variants=all): the rewriter's --disasm and the copy's checksum. A refactoring that must leave
# the generated code byte-identical compares two snapshots with `diff -r`.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
OUT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
CLANG=/usr/lib/llvm-22/bin/clang-22
OBJDUMP=/usr/lib/llvm-22/bin/llvm-objdump
DECAN=$BUILD/bin/decan
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The same bytes from any checkout and any temporary directory: the paths
# debug information records are mapped to fixed names.
cd "$TMP"
MAP=(-ffile-prefix-map="$SRC"=SRC -ffile-prefix-map="$TMP"=TMP)
FLAGS=$("$DECAN" flags --cflags --variants=all)

sources=()
for f in "$SRC"/bench/codelets/*.c; do sources+=("$f"); done
for f in "$SRC"/lit/rewriter/Inputs/{kernels,bridge,calls,caps,carry,dl1-addresses,switch,trips}.c \
         "$SRC"/lit/plugin/Inputs/kernels.c; do
  [ -f "$f" ] && sources+=("$f")
done

for f in "${sources[@]}"; do
  name=$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f" .c)
  cflags=(-O2 -march=x86-64-v3 -g -I "$SRC/bench/codelets" "${MAP[@]}")
  case $(basename "$f" .c) in
    div_red | stream_l1) cflags+=(-fassociative-math -fno-signed-zeros -fno-trapping-math) ;;
    sqrt_heavy) cflags+=(-fno-math-errno) ;;
    omp_*) cflags+=(-fopenmp) ;;
  esac
  # Plugin: the object's code, addresses section-relative.
  if $CLANG "${cflags[@]}" $FLAGS -c "$f" -o "$TMP/$name.o" 2>"$TMP/$name.plugin.err"; then
    $OBJDUMP -d "$TMP/$name.o" |
      sed -e '/file format/d' > "$OUT/$name.plugin.s"
  else
    echo "compile failed" > "$OUT/$name.plugin.s"
  fi
  # Rewriter: a plain object linked into a shared library, every variant.
  if $CLANG "${cflags[@]}" -shared -fPIC "$f" -o "$TMP/$name.so" 2>/dev/null; then
    "$DECAN" rewrite "$TMP/$name.so" -o "$TMP/$name.rw" --variants=all --disasm -q \
      > "$OUT/$name.rewriter.s" 2>&1 || echo "rewrite failed: $?" >> "$OUT/$name.rewriter.s"
    sed -i -e "s#$TMP#TMP#g" "$OUT/$name.rewriter.s"
    # The copy itself, byte for byte.
    (cd "$TMP/$name.rw" && sha256sum -- *) > "$OUT/$name.rewriter.sha256" 2>&1 || true
  fi
done
echo "snapshot of ${#sources[@]} sources in $OUT"
