#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds with ASan + UBSan and runs the whole test suite. -O1 -g1 (line tables only): compiling the
# sanitized tree is most of this leg's time, and full debug info at -O2 made it the longest CI leg;
# reports still name file and line. Asserts stay on (no NDEBUG).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-asan
rm -rf "$dir"
# Warnings are errors in leg 1; -O1 with the sanitizers makes GCC warn about code it cannot see through.
# The benchmarks are left out: nothing runs them here.
CONTEXTLENS_WERROR=0 scripts/setup.sh "$dir" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -g1" -DCONTEXTLENS_SANITIZE=ON \
  -DCONTEXTLENS_BENCH=OFF
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Leaks inside system libraries (fontconfig, Qt platform plugins) are not ours.
export LSAN_OPTIONS=suppressions=$PWD/.ci/lsan.supp:print_suppressions=0
# Qt Test's watchdog gives a test function 300 s; under the sanitizers the write-path property test
# (every key of every sample mutated to every JSON type, tst_writetypes) needs longer. CTest's own
# limit (600 s per executable, tests/CMakeLists.txt) still applies.
export QTEST_FUNCTION_TIMEOUT=570000
ctest --test-dir "$dir" --output-on-failure -j2
