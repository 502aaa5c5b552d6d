#!/usr/bin/env bash
# Builds every libFuzzer target (clang; coverage + AddressSanitizer + UndefinedBehaviorSanitizer)
# into BUILD_DIR and runs each on its own corpus, seeded from tests/fuzz/corpus/<target>/ (and, for
# the ONNX importer, the bad-input fixtures and a sample of ONNX's own test models). Prints the
# executions and executions per second of each target; exits non-zero when any target finds a crash
# (the input is saved as BUILD_DIR/crashes/<target>-crash-*).
#
#   tests/fuzz/run_fuzz.sh [BUILD_DIR] [SECONDS] [TARGET...]
#
# SECONDS (default 60) is the ONNX importer's budget; every other target runs for
# DCW_FUZZ_TEXT_SECONDS (default: 20, or SECONDS if that is less). DCW_FUZZ_RUNS=N runs every target
# for N executions instead of a time. TARGETs (default: all) name targets to run, e.g. fuzz_script.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
seconds=${2:-60}
shift $(( $# < 2 ? $# : 2 ))
text_seconds=${DCW_FUZZ_TEXT_SECONDS:-$(( seconds < 20 ? seconds : 20 ))}
all_targets=(fuzz_onnx_import fuzz_dcw_json fuzz_project fuzz_script fuzz_tasklet_code fuzz_symbolic)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDCW_FUZZ=ON \
  -DDCW_BUILD_GUI=OFF -DDCW_BUILD_TESTS=OFF "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" >/dev/null # OSS-Fuzz's level; no -DNDEBUG: DCW's asserts (its bugs) fire while fuzzing
cmake --build "$build" --target "${targets[@]}" -j "${DCW_JOBS:-2}"

# Seeds: the target's own folder, plus, for the importer, the bad models and ONNX's test models.
seed() {
  local target=$1 corpus=$2
  mkdir -p "$corpus"
  cp tests/fuzz/corpus/"${target#fuzz_}"/* "$corpus/" 2>/dev/null || true
  if [ "$target" = fuzz_onnx_import ]; then
    find tests/data/bad -name '*.onnx' -size -64k -exec sh -c 'cp "$1" "$2/bad_$(echo "$1" | tr / _)"' _ {} "$corpus" \;
    for d in test_abs test_add_bcast test_conv_with_strides_padding test_if test_loop11 test_scan9_sum \
             test_sequence_insert_at_back test_optional_get_element test_gemm_default_scalar_bias test_resize_upsample_scales_linear; do
      f=/usr/share/libonnx-testdata/data/node/$d/model.onnx
      if [ -f "$f" ]; then cp "$f" "$corpus/node_$d.onnx"; fi
    done
  fi
}

mkdir -p "$build/crashes"
failed=()
summary=()
for target in "${targets[@]}"; do
  corpus="$build/corpus/${target#fuzz_}"
  seed "$target" "$corpus"
  budget=$text_seconds max_len=4096 leaks=1
  case $target in
    fuzz_onnx_import) budget=$seconds max_len=65536 leaks=0 ;;
    fuzz_dcw_json) max_len=16384 ;; # the seeds are files saved by DCW, up to 13 KB
  esac
  limit=(-max_total_time="$budget")
  if [ -n "${DCW_FUZZ_RUNS:-}" ]; then limit=(-runs="$DCW_FUZZ_RUNS"); fi
  dict=()
  if [ -f "tests/fuzz/dict/${target#fuzz_}.dict" ]; then dict=(-dict="tests/fuzz/dict/${target#fuzz_}.dict"); fi
  log="$build/$target.log"
  echo "fuzz: $target ${limit[*]#-} on $(ls "$corpus" | wc -l) seeds"
  if ASAN_OPTIONS=detect_leaks=$leaks UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$build/tests/fuzz/$target" "$corpus" "${limit[@]}" "${dict[@]}" -rss_limit_mb=2048 -timeout=20 \
      -max_len="$max_len" -artifact_prefix="$build/crashes/$target-" -print_final_stats=1 2>"$log"; then
    status=ok
  else
    status=CRASH
    failed+=("$target")
    tail -40 "$log"
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  runs=${runs:-?} rate=${rate:-?}
  summary+=("$(printf '  %-18s %-6s %10s executions  %7s exec/s' "$target" "$status" "$runs" "$rate")")
done
echo "fuzz summary:"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (crash inputs in $build/crashes/, logs in $build/<target>.log)"
  exit 1
fi
echo "fuzz: no crash"
