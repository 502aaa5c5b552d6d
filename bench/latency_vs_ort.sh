#!/usr/bin/env bash
# Latency of DCW against ONNX Runtime (../shared/peers/ort) on the same models, same thread count,
# same inputs (bench/benchmark_dims.py: dynamic dims 1; BERT's sequence 128, the LSTM's 64), in one run. Per model:
#   dcw optimize MODEL --dim ... --script-out S   (oneDNN where it takes a node, then the map pipeline)
#   dcw bench MODEL --script S                     (the optimized program)
#   onnxruntime --bench
# and prints both medians, the ratio dcw/ort (below 1: DCW is faster), compile time, the peak resident
# memory of each side's process in its first turn (DCW: `dcw bench --json`'s peak_rss_mib, the dcw
# process with its model, IR, program and runs, no child process; ONNX Runtime: GNU time's %M of its
# Node.js process running onnxruntime-node), the cores other processes held during dcw's best turn
# (busy: `dcw bench`'s other_busy_cores; from 0.3 up, a shared machine's figures), and at the end the
# geometric mean of the ratios. With PURE=1 it also benches the pure path before and after
# `dcw optimize --prefer pure` and prints that speed-up. With WINOGRAD=1 the optimization opts in to
# oneDNN's Winograd convolution wherever it takes a node (`--prefer onednn_winograd --prefer onednn`; each
# program prints the measured error of every such node against the direct convolution). LAYOUT=blocked
# (or blocked8, none) optimizes with `--layout` so (channels in blocks of 16, BlockedLayout).
#   bench/latency_vs_ort.sh [DCW_BINARY] [MODEL.onnx...]   (no model: bench/export_architectures.py's set;
#                                                           WIDE=1: with its --wide exports, 30 models)
# Environment: THREADS (default 2), REPEAT (default 10), ROUNDS (default 3: turns of dcw then ONNX Runtime, each
# side's best median kept), MODELS_DIR (default build/bench-models), WIDE, PURE, WINOGRAD, LAYOUT, BUSY.
# BUSY=N keeps N cores busy with other processes (busy loops) for the whole run: how each side copes on
# a shared machine (core/support/OpenMpSpin.h; GOMP_SPINCOUNT=300000 gives libgomp's own default back).
# THREADS=auto runs dcw without --threads (its runs follow the cores other processes leave free:
# core/support/FreeCores.h) and ONNX Runtime on all usable cores.
set -euo pipefail
cd "$(dirname "$0")/.."
dcw=build/app/dcw
if [ $# -gt 0 ] && [ -x "$1" ] && [[ "$1" != *.onnx ]]; then dcw=$1; shift; fi
[ -x "$dcw" ] || { echo "error: $dcw not found; build first (scripts/build.sh)" >&2; exit 2; }
ort=../shared/peers/ort
threads=${THREADS:-2}
if [ "$threads" = auto ]; then dcwthreads=(); threads=$(nproc); else dcwthreads=(--threads "$threads"); fi
repeat=${REPEAT:-10}
rounds=${ROUNDS:-3}
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  wide=()
  [ "${WIDE:-0}" = 1 ] && wide=(--wide)
  mapfile -t models < <(/usr/bin/python3 bench/export_architectures.py "${wide[@]}" "${MODELS_DIR:-build/bench-models}")
fi
work=$(mktemp -d)
busy=()
trap '[ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for ((k = 0; k < ${BUSY:-0}; k++)); do
  (while :; do :; done) &
  busy+=($!)
done
[ ${#busy[@]} -eq 0 ] || echo "${#busy[@]} busy loop(s) share the cores for the whole run (BUSY)"
printf '%-24s %10s %10s %7s %9s %8s %8s %8s %6s\n' model dcw_ms ort_ms ratio compile_s onednn dcw_MiB ort_MiB busy
ratios=()
for m in "${models[@]}"; do
  name=$(basename "$m" .onnx)
  read -r -a dims <<<"$(/usr/bin/python3 bench/benchmark_dims.py "$m" dcw)"
  ortdims=()
  spec=$(/usr/bin/python3 bench/benchmark_dims.py "$m" ort)
  [ "$spec" = "-" ] || ortdims=(--dims "$spec")
  prefer=()
  [ "${WINOGRAD:-0}" = 1 ] && prefer=(--prefer onednn_winograd --prefer onednn)
  [ -n "${LAYOUT:-}" ] && prefer+=(--layout "$LAYOUT")
  "$dcw" optimize "$m" "${dims[@]}" "${prefer[@]}" --script-out "$work/$name.dcws" >/dev/null
  onednn=$(grep -c "implementation=onednn" "$work/$name.dcws" || true)
  # Compiled first, into a kernel cache of this run's own (compile_s: a full compilation); the turns
  # below hit that cache.
  compiled=$(DCW_CACHE_DIR="$work/cache" "$dcw" bench "$m" "${dims[@]}" --script "$work/$name.dcws" "${dcwthreads[@]}" --warmup 0 --repeat 1 --json)
  # ROUNDS turns of dcw then ONNX Runtime; each side's best median counts (a burst of other work on a
  # shared machine during one turn then costs neither side the comparison).
  d= o=
  for ((round = 0; round < rounds; round++)); do
    # ONNX Runtime's first turn runs under GNU time (peak memory), when it is installed (Debian package `time`).
    timed=()
    [ "$round" = 0 ] && [ -x /usr/bin/time ] && timed=(/usr/bin/time -f %M -o "$work/rss")
    d+=$(DCW_CACHE_DIR="$work/cache" "$dcw" bench "$m" "${dims[@]}" --script "$work/$name.dcws" "${dcwthreads[@]}" --warmup 2 --repeat "$repeat" --json)$'\n'
    o+=$("${timed[@]}" "$ort" "$m" --bench --threads "$threads" --warmup 2 --repeat "$repeat" "${ortdims[@]}" | tail -1)$'\n'
    [ "$round" = 0 ] && { omib=-; [ -s "$work/rss" ] && omib=$(( $(tail -n 1 "$work/rss") / 1024 )); rm -f "$work/rss"; }
  done
  line=$(/usr/bin/python3 - "$name" "$d" "$o" "$onednn" "$omib" "$compiled" <<'PY'
import json, sys
def best(lines):
    runs = [json.loads(x) for x in lines.splitlines() if x.strip()]
    return min(runs, key=lambda r: r["median_ms"])
n, d, o, k, om = sys.argv[1], best(sys.argv[2]), best(sys.argv[3]), sys.argv[4], sys.argv[5]
first = json.loads(sys.argv[2].splitlines()[0])
dm = str(round(first["peak_rss_mib"])) if "peak_rss_mib" in first else "-"
compile_s = json.loads(sys.argv[6])["compile_s"]  # the compilation into an empty cache
r = d["median_ms"] / o["median_ms"]
busy = d.get("other_busy_cores")  # cores other processes held during dcw's best turn (null: too short to tell)
busy = "-" if busy is None else f"{busy:.1f}"
print(f"{n:24s} {d['median_ms']:10.2f} {o['median_ms']:10.2f} {r:7.2f} {compile_s:9.1f} {k:>8s} {dm:>8s} {om:>8s} {busy:>6s} {r}")
PY
)
  echo "${line% *}"
  ratios+=("${line##* }")
  if [ "${PURE:-0}" = 1 ]; then
    "$dcw" optimize "$m" "${dims[@]}" --prefer pure --script-out "$work/$name.pure.dcws" >/dev/null
    before=$("$dcw" bench "$m" "${dims[@]}" "${dcwthreads[@]}" --warmup 1 --repeat 3 --json)
    after=$("$dcw" bench "$m" "${dims[@]}" --script "$work/$name.pure.dcws" "${dcwthreads[@]}" --warmup 1 --repeat 3 --json)
    /usr/bin/python3 -c 'import json,sys; b,a=(json.loads(x)["median_ms"] for x in sys.argv[1:3]); print("  pure path: %.1f ms -> %.1f ms after dcw optimize --prefer pure (%.2fx)" % (b, a, b / a))' "$before" "$after"
  fi
done
/usr/bin/python3 -c 'import math,sys; r=[float(x) for x in sys.argv[1:]]; print(f"geometric mean of dcw/ort over {len(r)} models: {math.exp(sum(map(math.log,r))/len(r)):.2f} (worst {max(r):.2f})")' "${ratios[@]}"
