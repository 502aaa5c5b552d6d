#!/usr/bin/env bash
# The sanitizer run: builds DCW with AddressSanitizer + UndefinedBehaviorSanitizer (GCC, -O1 -g1, asserts
# on; no GUI) into build-asan/ and runs the test subset that tests/CMakeLists.txt names
# (DCW_SANITIZED_TESTS and the conformance slice). The programs DCW generates and runs in those tests are
# built with the same sanitizers. Any report fails the run: UBSan and ASan stop the process, and
# LeakSanitizer reports leaks at exit as a failure. Prints the reports found, if any, and ctest's summary.
#
#   scripts/sanitize.sh        (scripts/test.sh runs it after the main suite)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
DCW_BUILD_DIR=$build scripts/build.sh -DDCW_SANITIZE=ON -DDCW_BUILD_GUI=OFF \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1" -DCMAKE_C_FLAGS_RELEASE="-O1 -g1"
# One log file per process (the tests spawn dcw, which spawns its workers), so no report is lost in
# a pipe that a test does not print.
reports=$PWD/$build/sanitizer-reports
rm -rf "$reports" && mkdir -p "$reports"
# intercept_tls_get_addr=0: GCC 12's runtime (the bug is fixed after GCC 13 / LLVM 16) takes a dynamic TLS
# block that happens to start 16 bytes into a page for a pre-2.25 glibc header and reads the words before
# it; LeakSanitizer's tracer then dies ("Tracer caught signal 11") at the exit of every process that
# used a shared library's thread_local storage, such as oneDNN's. Without the interceptor LeakSanitizer
# still checks every process, the oneDNN ones included.
export ASAN_OPTIONS="detect_leaks=1:intercept_tls_get_addr=0:log_path=$reports/asan:detect_stack_use_after_return=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0"
status=0
ctest --test-dir "$build" --output-on-failure -j 2 | tee "$build/ctest.out" || status=$?
if compgen -G "$reports/*" >/dev/null; then
  echo
  echo "sanitizer reports (one file per process that reported, in $reports):"
  for f in "$reports"/*; do
    echo "== $f"
    head -60 "$f"
  done
  status=1
else
  echo "sanitizers: no report"
fi
grep -E "tests passed, [0-9]+ tests failed out of" "$build/ctest.out" | sed 's/^/sanitized subset: /' || true
exit $status
