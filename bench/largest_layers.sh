#!/usr/bin/env bash
# Achieved GFLOP/s of the largest convolutions and GEMMs of ResNet-50 and BERT-base after `dcw optimize`
# (oneDNN), from `dcw profile --instrument nodes`, against the machine's measured peaks: oneDNN's sgemm
# (2048^3, the float32 roof a library reaches here) and the FMA loop. Prints, per model, the N elements
# with the most floating-point work, their median time, GFLOP/s and share of each peak. The sgemm peak
# is measured again in each run: "% sgemm" is against the highest ever measured here (the roof the
# profiler draws), "% run" against this run's measurement, taken on the machine as loaded as it was
# when the elements were timed (a shared host's speed moves with its neighbours' work).
#   bench/largest_layers.sh [DCW_BINARY] [MODEL.onnx...]   (default: resnet50 and bert_base of build/bench-models)
# Environment: THREADS (default 2), REPEAT (default 20), TOP (default 5), MODELS_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
dcw=build/app/dcw
if [ $# -gt 0 ] && [ -x "$1" ] && [[ "$1" != *.onnx ]]; then dcw=$1; shift; fi
[ -x "$dcw" ] || { echo "error: $dcw not found; build first (scripts/build.sh)" >&2; exit 2; }
dir=${MODELS_DIR:-build/bench-models}
models=("$@")
[ ${#models[@]} -gt 0 ] || models=("$dir/resnet50.onnx" "$dir/bert_base.onnx")
for m in "${models[@]}"; do
  [ -f "$m" ] || { echo "error: $m not found (bench/export_architectures.py $dir makes it)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for m in "${models[@]}"; do
  name=$(basename "$m" .onnx)
  dims=$(/usr/bin/python3 bench/benchmark_dims.py "$m" dcw)
  # shellcheck disable=SC2086
  "$dcw" optimize "$m" $dims --script-out "$work/$name.dcws" >/dev/null 2>&1
  # shellcheck disable=SC2086
  "$dcw" profile "$m" $dims --script "$work/$name.dcws" --threads "${THREADS:-2}" --repeat "${REPEAT:-20}" --warmup 3 \
    --instrument nodes --remeasure-peaks --report "$work/$name.json" >/dev/null
  /usr/bin/python3 - "$work/$name.json" "$name" "${TOP:-5}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
mach = r["machine"]
sgemm, fma = mach.get("peak_gflop_per_s_float32_sgemm", 0.0), mach.get("peak_gflop_per_s_float32_fma", 0.0)
now = mach.get("gflop_per_s_float32_sgemm_this_run", 0.0)
print(f"{sys.argv[2]}: {mach['threads']} threads; peaks: oneDNN sgemm {sgemm:.1f} GFLOP/s (the highest measured; {now:.1f} in this run), FMA loop {fma:.1f} GFLOP/s")
rows = [(k, v) for k, v in r["elements"].items() if v.get("kind") != "model" and v.get("flops", 0) > 0 and not v.get("cost_estimated", False)]
rows.sort(key=lambda kv: -kv[1]["flops"] / max(kv[1].get("calls", 1), 1))
print(f"  {'element':44} {'GFLOP':>7} {'ms':>8} {'GFLOP/s':>8} {'% sgemm':>8} {'% run':>6} {'% FMA':>6}")
for k, v in rows[: int(sys.argv[3])]:
    calls = max(v.get("calls", 1), 1)
    g = v["gflop_per_s"]
    print(f"  {k:44} {v['flops'] / calls / 1e9:7.3f} {v['time_ms']['median']:8.3f} {g:8.1f} {100 * g / sgemm if sgemm else 0:7.0f}% {100 * g / now if now else 0:5.0f}% {100 * g / fma if fma else 0:5.0f}%")
PY
done
