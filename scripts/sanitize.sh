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
export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan:detect_stack_use_after_return=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0"
status=0
# LeakSanitizer's tracer (GCC 12) crashes at the exit of a process that ran oneDNN primitives
# ("Tracer caught signal 11"), so tst_Implementations runs without the leak check; ASan and UBSan
# still check it. Every other test has all three.
ctest --test-dir "$build" --output-on-failure -j 2 -E '^Implementations$' | tee "$build/ctest.out" || status=$?
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ctest --test-dir "$build" --output-on-failure -R '^Implementations$' |
  tee -a "$build/ctest.out" || status=$?
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
