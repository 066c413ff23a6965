#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the write-path fuzzer (tests/fuzz_write.cpp) longer than CTest does, with fresh seeds, on an
# AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan, as scripts/ci-sanitize.sh makes).
# A failing input is kept as fuzz-current.bin in the current folder.
# Usage: scripts/fuzz.sh [SECONDS_PER_SEED] [SEEDS]   (default 300 s, 4 seeds)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
seeds=${2:-4}
build=${FUZZ_BUILD:-"$root/build-asan"}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -g1" -DCONTEXTLENS_SANITIZE=ON >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ninja -C "$build" -j2 fuzz_write >/dev/null
for ((k = 0; k < seeds; ++k)); do
    seed=$(( $(date +%s) + k ))
    "$build/tests/fuzz_write" --seconds "$seconds" --seed "$seed" "$root/../shared/samples" "$root/tests/data"
done
