#!/usr/bin/env bash
# Installs what decan needs on Debian 12 (idempotent: installs only what is
# missing), then configures and builds into ${DECAN_BUILD_DIR:-build}.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${DECAN_BUILD_DIR:-$here/build}

packages=(cmake ninja-build g++ python3 llvm-22-dev clang-22 llvm-22-tools lld-22
  libpfm4-dev libfmt-dev libgtest-dev libomp-22-dev libclang-rt-22-dev python3-psutil
  pkgconf ${DECAN_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "decan setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
