#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds with ASan + UBSan on this machine (Debian 12) and runs the whole test suite. CI runs the
# sanitizers in its Debian 13 leg instead (scripts/ci-trixie.sh: one tree fewer to compile); this
# script checks the same on Debian 12. -O1 -g1 (line tables only, so reports name file and line);
# asserts stay on (no NDEBUG).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-asan
rm -rf "$dir"
# Warnings are errors in leg 1; -O1 with the sanitizers makes GCC warn about code it cannot see through.
# The benchmarks are left out: nothing runs them here.
CONTEXTLENS_WERROR=0 scripts/setup.sh "$dir" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -g1" -DCONTEXTLENS_SANITIZE=ON \
  -DCONTEXTLENS_BENCH=OFF
. scripts/sanitizer-env.sh
ctest --test-dir "$dir" --output-on-failure -j2
