#!/usr/bin/env bash
# Benchmark: the canvas at scale (issue 18: a 50,000-node graph opens in < 5 s, pans and zooms at
# >= 30 fps, under 2 GB). Runs build/bench/canvas_bench on
#   - generated ResNet-like chains of 5k, 20k and 50k ops (DCW_CANVAS_SIZES): flat (no module names,
#     weights as graph inputs: every node drawn), and named as torch exports them (--modules: weights
#     folded into their ops, 10 stages of 50-op blocks) with the groups closed, then all open;
#   - real models (DCW_CANVAS_MODELS, default the exported BERT-base and ResNet-50 in build/bench-models,
#     and BERT-large when exported: bench/export_architectures.py build/bench-models bert_large) with
#     their groups closed (the first view) and all open,
# one at a time, and prints a table: visible nodes, open (load + first paint: the first view), first
# paint, opening every group from there (laid out and painted), opening one group, mean frame times panning at 100 %, 35 % and whole-graph fitted and zooming from fit to 100 %
# and back, and peak memory.
#
#   bench/canvas_scale.sh [CANVAS_BENCH]     (default: build/bench/canvas_bench)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${1:-$root/build/bench/canvas_bench}
[[ -x $bench ]] || { echo "canvas_scale: $bench not found; build it first (ninja -C build canvas_bench)" >&2; exit 2; }
sizes=${DCW_CANVAS_SIZES:-5000 20000 50000}
models=${DCW_CANVAS_MODELS:-$(ls "$root"/build/bench-models/{bert_base,bert_large,resnet50}.onnx 2>/dev/null || true)}
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}

printf '%-30s %7s %8s %8s %9s %9s %9s %8s %8s %8s %7s\n' case nodes open_ms paint_ms expand_ms toggle_ms pan100_ms pan35_ms fit_ms zoom_ms peak_MB
run() { # NAME ARGS...
    local name=$1; shift
    local out
    if ! out=$(timeout 900 "$bench" "$@" 2>/dev/null); then
        printf '%-30s failed (%s)\n' "$name" "$*"
        return
    fi
    awk -v name="$name" '
        /^visible nodes/ { nodes = $3 }
        /^open / { open = $2 }
        /^first paint/ { paint = $3 }
        /^toggle one node/ { toggle = $4 }
        /^expand all/ { expand = $3 }
        /^pan at 100%/ { pan100 = $5 }
        /^pan at 35%/ { pan35 = $5 }
        /^pan at fit/ { fit = $6 }
        /^zoom fit/ { zoom = $6 }
        /^peak memory/ { peak = $3 }
        END { printf "%-30s %7s %8s %8s %9s %9s %9s %8s %8s %8s %7s\n", name, nodes, open, paint, (expand == "" ? "-" : expand), (toggle == "" ? "-" : toggle), pan100, pan35, fit, zoom, peak }
    ' <<<"$out"
}
for n in $sizes; do
    run "chain $n, flat" --synthetic "$n"
    run "chain $n, modules closed" --synthetic "$n" --modules
    run "chain $n, modules open" --synthetic "$n" --modules --expand-all
done
for m in $models; do
    run "$(basename "$m" .onnx), groups closed" "$m"
    run "$(basename "$m" .onnx), groups open" "$m" --expand-all
done
