#!/usr/bin/env bash
# Achieved GFLOP/s of the largest convolutions and GEMMs of ResNet-50 and BERT-base after `dcw optimize`
# (oneDNN), from `dcw profile --instrument nodes`, against the machine's measured peaks: oneDNN's sgemm
# (2048^3, the float32 roof a library reaches here) and the FMA loop. Prints, per model, the N elements
# with the most floating-point work, their median time, GFLOP/s and share of each peak. The sgemm peak
# is measured again in each run: "% sgemm" is against the highest ever measured here (the roof the
# profiler draws), "% run" against this run's measurement, taken on the machine as loaded as it was
# when the elements were timed (a shared host's speed moves with its neighbours' work). With ROUNDS=N,
# N profiles of each model: each element's best median over them (as bench/latency_vs_ort.sh keeps each
# side's best median), "% run" against the best of the rounds' sgemm measurements, and the medians of
# every round listed after the table.
#   bench/largest_layers.sh [DCW_BINARY] [MODEL.onnx...]   (default: resnet50 and bert_base of build/bench-models)
# Environment: THREADS (default 2), REPEAT (default 20), TOP (default 5), ROUNDS (default 1), MODELS_DIR.
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
  reports=()
  for round in $(seq "${ROUNDS:-1}"); do
    "$dcw" profile "$m" $dims --script "$work/$name.dcws" --threads "${THREADS:-2}" --repeat "${REPEAT:-20}" --warmup 3 \
      --instrument nodes --remeasure-peaks --report "$work/$name.$round.json" >/dev/null
    reports+=("$work/$name.$round.json")
  done
  /usr/bin/python3 - "$name" "${TOP:-5}" "${reports[@]}" <<'PY'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[3:]]
mach = runs[0]["machine"]
sgemm = max(r["machine"].get("peak_gflop_per_s_float32_sgemm", 0.0) for r in runs)
fma = max(r["machine"].get("peak_gflop_per_s_float32_fma", 0.0) for r in runs)
nows = [r["machine"].get("gflop_per_s_float32_sgemm_this_run", 0.0) for r in runs]
now = max(nows)
print(f"{sys.argv[1]}: {mach['threads']} threads; peaks: oneDNN sgemm {sgemm:.1f} GFLOP/s (the highest measured; "
      f"{', '.join(f'{n:.1f}' for n in nows)} in {'this run' if len(runs) == 1 else 'these rounds'}), FMA loop {fma:.1f} GFLOP/s")
rows = [(k, v) for k, v in runs[0]["elements"].items() if v.get("kind") != "model" and v.get("flops", 0) > 0 and not v.get("cost_estimated", False)]
rows.sort(key=lambda kv: -kv[1]["flops"] / max(kv[1].get("calls", 1), 1))
print(f"  {'element':44} {'GFLOP':>7} {'ms':>8} {'GFLOP/s':>8} {'% sgemm':>8} {'% run':>6} {'% FMA':>6}")
for k, v in rows[: int(sys.argv[2])]:
    calls = max(v.get("calls", 1), 1)
    medians = [r["elements"][k]["time_ms"]["median"] for r in runs if k in r["elements"]]
    ms = min(medians)
    g = v["flops"] / calls / ms / 1e6
    print(f"  {k:44} {v['flops'] / calls / 1e9:7.3f} {ms:8.3f} {g:8.1f} {100 * g / sgemm if sgemm else 0:7.0f}% {100 * g / now if now else 0:5.0f}% {100 * g / fma if fma else 0:5.0f}%")
if len(runs) > 1:
    for k, v in rows[: int(sys.argv[2])]:
        print(f"  {k}: medians of the rounds " + ", ".join(f"{r['elements'][k]['time_ms']['median']:.3f}" for r in runs if k in r["elements"]) + " ms")
PY
done
