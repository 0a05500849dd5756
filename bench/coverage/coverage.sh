#!/bin/bash
# Plugin coverage on real programs (issue 13): builds Lua 5.4 from a source
# tree and a {fmt} driver (Debian libfmt-dev, header-only mode) with the
# plugin, tabulates `decan list` (tabulate.py), checks that each program's
# output equals its plain build's, and runs `decan run` once (the measured
# loops' share of the run, and the hot loops).
# Usage: coverage.sh LUA_SRC_DIR [OUT_DIR]   (decan from this checkout's build)
set -e
here=$(cd "$(dirname "$0")" && pwd)
decan=${DECAN:-$here/../../build/bin/decan}
lua_src=$(cd "$1" && pwd)
out=${2:-$(mktemp -d /tmp/decan-coverage.XXXXXX)}
mkdir -p "$out/lua" "$out/fmt"
cf="$($decan flags --cflags)"
lf="$($decan flags --libs)"

cp "$lua_src"/*.c "$lua_src"/*.h "$out/lua/"
cd "$out/lua"
rm -f ltests.c onelua.c luac.c
for f in *.c; do
  nice -n 19 clang-22 -O2 -g -std=c99 -DLUA_USE_LINUX -c $f $cf -o ${f%.c}.o 2>/dev/null
  nice -n 19 clang-22 -O2 -g -std=c99 -DLUA_USE_LINUX -c $f -o ${f%.c}.plain.o
done
clang-22 -O2 $(ls *.o | grep -v plain.o) $lf -lm -ldl -o lua
clang-22 -O2 *.plain.o -lm -ldl -o lua.plain
cd "$out/fmt"
nice -n 19 clang++-22 -O2 -g -std=c++17 "$here/fmt-driver.cpp" $cf $lf -o drv 2>/dev/null
nice -n 19 clang++-22 -O2 -g -std=c++17 "$here/fmt-driver.cpp" -o drv.plain

for p in lua/lua fmt/drv; do
  echo "== $p"
  "$decan" list "$out/$p" > "$out/$p.list"
  python3 "$here/tabulate.py" "$out/$p.list"
done
cd "$out"
lua/lua.plain "$here/lua-bench.lua" > lua.want
fmt/drv.plain > fmt.want
"$decan" run -o lua.run --json lua.json -- lua/lua "$here/lua-bench.lua" > lua.out
"$decan" run -o fmt.run --json fmt.json -- fmt/drv > fmt.out
cmp lua.want lua.out && cmp fmt.want fmt.out && echo "outputs equal the plain builds'"
for p in lua fmt; do
  echo "== $p: $(grep '^run:' $p.run)"
  grep -E '^#[0-9]+ ' $p.run | head -5
done
echo "(files in $out)"
