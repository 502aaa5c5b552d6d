#!/usr/bin/env bash
# Latency of `dcw bench` against ONNX Runtime (../shared/peers/ort) on the same models, same thread
# count, in one run: prints both medians and the ratio per model.
#   bench/latency_vs_ort.sh [DCW_BINARY] MODEL.onnx...
# Environment: THREADS (default 2), REPEAT (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
dcw=build/app/dcw
if [ $# -gt 0 ] && [ -x "$1" ] && [[ "$1" != *.onnx ]]; then dcw=$1; shift; fi
[ -x "$dcw" ] || { echo "error: $dcw not found; build first (scripts/build.sh)" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: $0 [DCW_BINARY] MODEL.onnx..." >&2; exit 2; }
ort=../shared/peers/ort
threads=${THREADS:-2}
repeat=${REPEAT:-10}
printf '%-36s %12s %12s %8s %10s\n' model dcw_ms ort_ms ratio compile_s
for m in "$@"; do
  d=$("$dcw" bench "$m" --threads "$threads" --warmup 2 --repeat "$repeat" --json)
  o=$("$ort" "$m" --bench --threads "$threads" --warmup 2 --repeat "$repeat" | tail -1)
  /usr/bin/python3 - "$m" "$d" "$o" <<'PY'
import json, os, sys
m, d, o = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
print(f"{os.path.basename(m):36s} {d['median_ms']:12.3f} {o['median_ms']:12.3f} {d['median_ms'] / o['median_ms']:8.1f} {d['compile_s']:10.2f}")
PY
done
