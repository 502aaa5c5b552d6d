#!/bin/sh
# profile_overhead: the cost of profiling timers. For each model, the median latency of the compiled
# model without instrumentation (`dcw bench`, which generates the code exactly as without profiling)
# against the median wall time of the same runs with timers on every nested SDFG node, i.e. every
# expanded ONNX op (`dcw profile --instrument nodes --no-counters`); both measure Executor::run on the
# same random inputs (seed 0) after the same warm-up. The two alternate for ROUNDS rounds and the median
# over rounds is kept, so that drift of the machine hits both alike; the best (minimum) run of each is
# printed too, since on a shared machine the minimum is the less noisy of the two. Goal: overhead under 5%.
#
#   bench/profile_overhead.sh [MODEL...]     (defaults: tiny_resnet and, when exported, resnet18 and mobilenet_v2)
#   environment: DCW (the dcw binary, default build/app/dcw), REPEAT (runs per measurement, default 30),
#                ROUNDS (default 3), INSTRUMENT (default nodes), THREADS (default: all cores), DCW_CACHE_DIR as usual.
set -eu
cd "$(dirname "$0")/.."
DCW=${DCW:-build/app/dcw}
REPEAT=${REPEAT:-30}
ROUNDS=${ROUNDS:-3}
INSTRUMENT=${INSTRUMENT:-nodes}
THREADS=${THREADS:-0}
if [ $# -eq 0 ]; then
  set -- resources/examples/tiny_resnet.onnx
  for m in build/models/resnet18.onnx build/models/mobilenet_v2.onnx; do [ -f "$m" ] && set -- "$@" "$m"; done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-24s %10s %10s %8s %10s | %10s %10s %10s\n' model "off ms" "$INSTRUMENT ms" ratio overhead "off min" "on min" "min ovh"

for model in "$@"; do
  : >"$tmp/off"
  : >"$tmp/on"
  : >"$tmp/offmin"
  : >"$tmp/onmin"
  r=0
  while [ $r -lt "$ROUNDS" ]; do
    "$DCW" bench "$model" --threads "$THREADS" --warmup 3 --repeat "$REPEAT" --json >"$tmp/bench.json"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median_ms"])' "$tmp/bench.json" >>"$tmp/off"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["min_ms"])' "$tmp/bench.json" >>"$tmp/offmin"
    "$DCW" profile "$model" --threads "$THREADS" --instrument "$INSTRUMENT" --no-counters --no-peaks --warmup 3 \
      --repeat "$REPEAT" --report "$tmp/report.json" >/dev/null
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_ms"]["median"])' "$tmp/report.json" >>"$tmp/on"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_ms"]["min"])' "$tmp/report.json" >>"$tmp/onmin"
    r=$((r + 1))
  done
  off=$(median <"$tmp/off")
  on=$(median <"$tmp/on")
  offmin=$(sort -g "$tmp/offmin" | head -1)
  onmin=$(sort -g "$tmp/onmin" | head -1)
  awk -v m="$(basename "$model")" -v a="$off" -v b="$on" -v c="$offmin" -v d="$onmin" \
    'BEGIN { printf "%-24s %10.3f %10.3f %8.3f %9.1f%% | %10.3f %10.3f %9.1f%%\n", m, a, b, b / a, (b / a - 1) * 100, c, d, (d / c - 1) * 100 }'
done
