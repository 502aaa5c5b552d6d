#!/usr/bin/env bash
# Builds DCW and runs every test: a short libFuzzer run of the ONNX importer, then ctest (QtTest
# suites, the ONNX conformance suites compiled and run through the pure path, the real architectures
# against ONNX Runtime, the command line). Installs whatever is missing first, so it works on a fresh
# Debian 12 machine and in CI. Ends with the conformance figures and ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
scripts/build.sh
status=0
# The fuzz target needs clang's libFuzzer; it is built separately and runs briefly on its seed corpus.
if [ "${DCW_SKIP_FUZZ:-0}" != "1" ]; then
  tests/fuzz/run_fuzz.sh build-fuzz "${DCW_FUZZ_SECONDS:-60}" || status=$?
fi
ctest --test-dir build --output-on-failure -j 2 | tee build/ctest.out || status=$?
log=build/Testing/Temporary/LastTest.log
if [ -f "$log" ]; then
  echo
  echo "ONNX conformance through the pure path (compiled C++/OpenMP):"
  for suite in node pytorch-converted pytorch-operator simple; do
    line=$(awk -v t="conformance_$suite" '$0 ~ "Test: "t"$" {on=1} on && /^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {print; exit}' "$log")
    [ -n "$line" ] && echo "  $suite: ${line//,/;}"
  done
fi
summary=$(grep -E "tests passed, [0-9]+ tests failed out of" build/ctest.out | tail -1 || true)
[ -n "$summary" ] && echo "$summary"
exit $status
