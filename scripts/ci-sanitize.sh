#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds with ASan + UBSan (RelWithDebInfo keeps it fast enough) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-asan
rm -rf "$dir"
scripts/setup.sh "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONTEXTLENS_SANITIZE=ON
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Leaks inside system libraries (fontconfig, Qt platform plugins) are not ours.
export LSAN_OPTIONS=suppressions=$PWD/.ci/lsan.supp:print_suppressions=0
ctest --test-dir "$dir" --output-on-failure -j2
