# SPDX-License-Identifier: MIT
# Sourced from the repository's root by the legs that run the suite under ASan + UBSan
# (scripts/ci-trixie.sh in CI, scripts/ci-sanitize.sh on Debian 12).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Leaks inside system libraries (fontconfig, D-Bus, GLib, libsecret) are not ours.
export LSAN_OPTIONS=suppressions=$PWD/.ci/lsan.supp:print_suppressions=0
# Qt Test's watchdog gives a test function 300 s; under the sanitizers the write-path property test
# (every key of every sample mutated to every JSON type, tst_writetypes) needs longer. CTest's own
# limit (600 s per executable, tests/CMakeLists.txt) still applies.
export QTEST_FUNCTION_TIMEOUT=570000
