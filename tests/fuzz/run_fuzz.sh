#!/usr/bin/env bash
# Builds the importer's libFuzzer target with clang (coverage + AddressSanitizer) into BUILD_DIR and
# runs it for SECONDS on a corpus seeded from tests/fuzz/corpus, the bad-input fixtures and a sample
# of ONNX's own test models. Exits non-zero when the fuzzer finds a crash.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
seconds=${2:-60}
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDCW_FUZZ=ON \
  -DDCW_BUILD_GUI=OFF -DDCW_BUILD_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address" >/dev/null
cmake --build "$build" --target fuzz_onnx_import -j "${DCW_JOBS:-2}"
corpus="$build/corpus"
mkdir -p "$corpus"
cp tests/fuzz/corpus/* "$corpus/" 2>/dev/null || true
find tests/data/bad -name '*.onnx' -size -64k -exec sh -c 'cp "$1" "$2/bad_$(echo "$1" | tr / _)"' _ {} "$corpus" \;
for d in test_abs test_add_bcast test_conv_with_strides_padding test_if test_loop11 test_scan9_sum \
         test_sequence_insert_at_back test_optional_get_element test_gemm_default_scalar_bias test_resize_upsample_scales_linear; do
  f=/usr/share/libonnx-testdata/data/node/$d/model.onnx
  [ -f "$f" ] && cp "$f" "$corpus/node_$d.onnx"
done
echo "fuzz: running fuzz_onnx_import for ${seconds}s on $(ls "$corpus" | wc -l) seeds"
ASAN_OPTIONS=detect_leaks=0 "$build/tests/fuzz/fuzz_onnx_import" "$corpus" -max_total_time="$seconds" \
  -rss_limit_mb=2048 -timeout=20 -max_len=65536 -print_final_stats=1 2>"$build/fuzz.log" || {
  tail -40 "$build/fuzz.log"; echo "fuzz: FAILED (crash input saved in the working directory)"; exit 1; }
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz.log" || true
echo "fuzz: no crash in ${seconds}s"
