#!/usr/bin/env bash
# Builds DCW and runs every test: a short libFuzzer run of every parser of user files, then ctest (QtTest
# suites, the ONNX conformance suites compiled and run through the pure path, the real architectures
# against ONNX Runtime, the command line), then the sanitizer subset (scripts/sanitize.sh: ASan+UBSan
# build, generated programs included). Installs whatever is missing first, so it works on a fresh
# Debian 12 machine and in CI. Ends with the conformance figures, every skip, the summary lines and a
# table of the stages and of the heaviest ctest entries with their wall times, so that a slow stage is
# seen the day it appears.
# In CI (CI=true) nothing may be skipped: the fuzz and sanitizer runs always happen, and any skipped
# test or QtTest function fails the run, except one whose reason says "(CI never has this)" (a GPU, say).
# Outside CI, DCW_SKIP_FUZZ=1 and DCW_SKIP_SANITIZE=1 leave those runs out.
# The guard: a run longer than DCW_TEST_LIMIT_MINUTES (60) fails, naming its slowest stages and entries,
# so the suite never drifts towards CI's limit unnoticed.
# Compiled programs are kept between runs in the test kernel cache (tests/CMakeLists.txt:
# DCW_TEST_KERNEL_CACHE, ~/.cache/dcw/test-kernels by default, keyed by content); entries unused for
# DCW_TEST_CACHE_DAYS (14) days are removed here.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stages.sh
limit_minutes=${DCW_TEST_LIMIT_MINUTES:-60}
status=0
failures=() # the stages that failed, repeated at the end (CI shows only the output's tail)
ci=0
case "${CI:-}" in ""|0|false|FALSE|False) ;; *) ci=1 ;; esac
for skip in DCW_SKIP_FUZZ DCW_SKIP_SANITIZE; do
  if [ "$ci" = 1 ] && [ "${!skip:-0}" = "1" ]; then
    echo "note: $skip is ignored in CI: that run is part of CI"
    declare "$skip=0"
  fi
done

stage "install packages" scripts/setup-deps.sh
stage "build (gcc, release)" scripts/build.sh || { echo "error: the build failed"; stage_table; exit 1; }
cache=$(sed -n 's/^DCW_TEST_KERNEL_CACHE:PATH=//p' build/CMakeCache.txt)
if [ -n "$cache" ] && [ -d "$cache" ]; then
  find "$cache" -mindepth 1 -maxdepth 1 -mtime +"${DCW_TEST_CACHE_DAYS:-14}" -exec rm -rf {} +
  echo "test kernel cache: $cache ($(du -sh "$cache" | cut -f1), $(find "$cache" -mindepth 1 -maxdepth 1 | wc -l) entries)"
fi

# The fuzz targets need clang's libFuzzer; they are built separately and run briefly on their seed corpora
# (the ONNX importer for DCW_FUZZ_SECONDS, every other parser for DCW_FUZZ_TEXT_SECONDS; see run_fuzz.sh).
fuzz() {
  mkdir -p build-fuzz
  tests/fuzz/run_fuzz.sh build-fuzz "${DCW_FUZZ_SECONDS:-60}" 2>&1 | tee build-fuzz/run.out
}
if [ "${DCW_SKIP_FUZZ:-0}" != "1" ]; then
  stage "fuzz (clang build + runs)" fuzz || { status=1; failures+=("fuzz"); }
fi
main_suite() { ctest --test-dir build --output-on-failure -j 2 | tee build/ctest.out; }
stage "main suite (ctest)" main_suite || { status=1; failures+=("ctest"); }
stage_entries build/ctest.out "main suite"
log=build/Testing/Temporary/LastTest.log
if [ -f "$log" ]; then
  echo
  echo "ONNX conformance through the pure path (compiled C++/OpenMP):"
  for suite in node pytorch-converted pytorch-operator simple; do
    line=$(awk -v t="conformance_$suite" '$0 ~ "Test: "t"$" {on=1} on && /^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {print; exit}' "$log")
    listed=$(awk -v t="conformance_$suite" '$0 ~ "Test: "t"$" {on=1} on && / expected failures listed in / {print; exit}' "$log")
    [ -n "$line" ] && echo "  $suite: ${line//,/;}${listed:+ ($listed)}"
  done
  # Every skip, in QtTest suites (SKIP lines) and whole ctest tests (a SKIP_RETURN_CODE).
  skips=$( (grep -E '^SKIP   : ' "$log" || true; grep -E '\*\*\*Skipped' build/ctest.out || true) | sort -u)
  if [ -n "$skips" ]; then
    echo
    echo "Skipped:"
    echo "$skips" | sed 's/^/  /'
    if [ "$ci" = 1 ] && echo "$skips" | grep -qv '(CI never has this)'; then
      echo "error: tests were skipped in CI (CI=$CI); CI has everything they need, so a skip hides a failure"
      status=1
      failures+=("skips in CI")
    fi
  fi
fi
summary=$(grep -E "tests passed, [0-9]+ tests failed out of" build/ctest.out | tail -1 || true)
if [ "${DCW_SKIP_SANITIZE:-0}" != "1" ]; then
  echo
  stage "sanitizers (build + subset)" scripts/sanitize.sh || { status=1; failures+=("sanitizers"); }
  [ -f build-asan/ctest.out ] && stage_entries build-asan/ctest.out "sanitized"
fi
if [ "${DCW_SKIP_FUZZ:-0}" != "1" ] && [ -f build-fuzz/run.out ]; then
  echo
  if [[ " ${failures[*]} " == *" fuzz "* ]]; then tail -60 build-fuzz/run.out; else sed -n '/^fuzz summary:/,$p' build-fuzz/run.out; fi
fi
[ -n "$summary" ] && echo "main suite: $summary"
stage_table
stage_guard "$limit_minutes" || { status=1; failures+=("time limit"); }
if [ ${#failures[@]} -gt 0 ]; then
  echo "FAILED stages: ${failures[*]}"
fi
exit $status
