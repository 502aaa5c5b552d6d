#!/usr/bin/env bash
# Leak figures (issue 14): the CLI under valgrind and heaptrack on a real model, and the app's heap over
# many open/close cycles in one session.
#
#   bench/leak_check.sh [MODEL...]     (default: build/models/resnet18.onnx, mobilenet_v2, transformer_encoder)
#
# 1. valgrind memcheck of `dcw codegen` and `dcw run --random 1` (the run in its worker process, which
#    valgrind does not follow: generated code is built with -march=native, whose AVX-512 valgrind cannot
#    execute): errors and definitely/indirectly lost bytes, which must be 0.
# 2. heaptrack of `dcw run --in-process` (generated code inside dcw), pure and onednn: bytes not freed
#    at exit (library singletons such as protobuf's descriptor pool are all that may remain).
# 3. build/bench/open_close_bench over the models, 50 cycles: heap in use after every 10.
# valgrind and heaptrack are Debian packages (apt-get install valgrind heaptrack).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dcw=$root/build/app/dcw
models=("$@")
[ ${#models[@]} -gt 0 ] || models=("$root/build/models/resnet18.onnx" "$root/build/models/mobilenet_v2.onnx"
                                   "$root/build/models/transformer_encoder.onnx")
for tool in valgrind heaptrack heaptrack_print; do
  command -v $tool >/dev/null || { echo "leak_check: $tool is missing (apt-get install valgrind heaptrack)" >&2; exit 2; }
done
[ -x "$dcw" ] || { echo "leak_check: build dcw first (scripts/build.sh)" >&2; exit 2; }
out=$root/build/bench/leaks
mkdir -p "$out"
status=0
model=${models[0]}
echo "model for the CLI checks: $model"
for cmd in "codegen $model -o $out/code" "run --random 1 $model"; do
  log=$out/valgrind-${cmd%% *}.log
  if valgrind --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
      --error-exitcode=9 "$dcw" $cmd >"$log" 2>&1; then :; else status=1; fi
  printf 'valgrind dcw %-8s %s; %s; %s\n' "${cmd%% *}:" "$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$log")" \
    "$(grep -o 'definitely lost: .* blocks' "$log")" "$(grep -o 'indirectly lost: .* blocks' "$log")"
done
for prefer in pure onednn; do
  rm -f "$out/heaptrack-$prefer".*
  heaptrack -o "$out/heaptrack-$prefer" "$dcw" run --in-process --prefer $prefer --random 1 "$model" >"$out/heaptrack-$prefer.log" 2>&1 || status=1
  printf 'heaptrack dcw run --in-process --prefer %-6s %s, %s\n' "$prefer:" \
    "$(heaptrack_print -f "$out/heaptrack-$prefer".*zst 2>/dev/null | grep -o 'peak heap memory consumption: .*')" \
    "$(heaptrack_print -f "$out/heaptrack-$prefer".*zst 2>/dev/null | grep -o 'total memory leaked: .*') (not freed at exit)"
done
echo "dcw-gui, open and close ${#models[@]} models in turn, 50 cycles:"
"$root/build/bench/open_close_bench" "${models[@]}" --cycles 50 2>/dev/null || status=1
exit $status
