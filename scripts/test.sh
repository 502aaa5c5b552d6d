#!/usr/bin/env bash
# Builds DCW and runs every test through ctest (QtTest suites, the ONNX conformance import sweep,
# the real-architecture models, the command line) and a short libFuzzer run of the ONNX importer.
# Installs whatever is missing first, so it works on a fresh Debian 12 machine and in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
scripts/build.sh
status=0
ctest --test-dir build --output-on-failure -j 2 || status=$?
# The fuzz target needs clang's libFuzzer; it is built separately and runs briefly on its seed corpus.
if [ "${DCW_SKIP_FUZZ:-0}" != "1" ]; then
  tests/fuzz/run_fuzz.sh build-fuzz "${DCW_FUZZ_SECONDS:-60}" || status=$?
fi
exit $status
