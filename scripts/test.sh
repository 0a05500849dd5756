#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs every test suite through ctest.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${DECAN_BUILD_DIR:-$here/build}
# chromium: lit/tool renders decan's HTML report in headless Chromium.
# gdb: lit/rewriter/gdb-backtrace.test unwinds through a rewritten loop.
DECAN_EXTRA_PACKAGES="chromium gdb ${DECAN_TEST_PACKAGES:-}" bash "$here/scripts/setup.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
