#!/usr/bin/env bash
# Benchmark: import cost of a ~100 MB model.
#
#   bench/inspect_resnet50.sh [DCW_BINARY]        (default: build/app/dcw)
#
# Runs `dcw inspect resnet50.onnx` 5 times under /usr/bin/time, then prints the model size,
# the wall time and peak RSS of each run, their medians, and the ratio of median peak RSS to file size.
#
# The model is build/models/resnet50.onnx when that file exists. Otherwise it is
# $DCW_BENCH_DIR/resnet50.onnx (default build/bench/resnet50.onnx), exported there with
# tests/models/export_torch_models.py --only resnet50 (random init, needs Debian's /usr/bin/python3
# with python3-torch/python3-torchvision; takes a few seconds) if it is missing.
# DCW_BENCH_RUNS overrides the number of runs (default 5).
#
# /usr/bin/time (GNU time, used for '%e %M': wall seconds and peak RSS in KiB) comes from the Debian
# package `time`. If it is missing, this script installs it with `apt-get install -y time` (through sudo
# when not root).
set -euo pipefail

die() { echo "inspect_resnet50: $*" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dcw=${1:-$root/build/app/dcw}
case $dcw in /*) ;; */*) dcw=$PWD/$dcw ;; esac   # resolve a relative path against the caller's cwd
runs=${DCW_BENCH_RUNS:-5}
bench_dir=${DCW_BENCH_DIR:-$root/build/bench}
case $bench_dir in /*) ;; *) bench_dir=$PWD/$bench_dir ;; esac
python=/usr/bin/python3

# --- the model --------------------------------------------------------------------------------
if [[ -f $root/build/models/resnet50.onnx ]]; then
    model=$root/build/models/resnet50.onnx
else
    model=$bench_dir/resnet50.onnx
    if [[ ! -s $model ]]; then
        [[ -x $python ]] || die "$python not found; it is needed to export resnet50.onnx (Debian python3-torch)"
        echo "exporting resnet50.onnx into $bench_dir ..."
        mkdir -p "$bench_dir"
        "$python" "$root/tests/models/export_torch_models.py" "$bench_dir" --only resnet50 \
            || die "export of resnet50.onnx failed"
    fi
fi
[[ -s $model ]] || die "model $model is missing or empty"
size_bytes=$(stat -c %s "$model")

# --- the tools --------------------------------------------------------------------------------
if [[ ! -x /usr/bin/time ]]; then
    echo "/usr/bin/time is missing; installing Debian package 'time' ..."
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get install -y time >/dev/null || die "could not install package 'time' (apt-get install time)"
fi
if [[ ! -e $dcw ]]; then
    die "dcw binary not found at '$dcw'. Build it first (cmake --build build) or pass its path as the first argument. The model is ready at $model"
fi
[[ -x $dcw ]] || die "'$dcw' is not executable"

# --- the runs ---------------------------------------------------------------------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'model     %s\nsize      %.1f MB\nbinary    %s\n' "$model" "$(awk -v b="$size_bytes" 'BEGIN{print b/1e6}')" "$dcw"
printf '%-4s %10s %14s\n' run wall_s peak_rss_MB
for ((i = 1; i <= runs; i++)); do
    # Run in the model's folder so the command line is literally `dcw inspect resnet50.onnx`.
    if ! (cd "$(dirname "$model")" && /usr/bin/time -o "$tmp/time.$i" -f '%e %M' \
              "$dcw" inspect "$(basename "$model")" >"$tmp/out.$i" 2>&1); then
        echo "run $i: dcw inspect failed; its output ends with:" >&2
        tail -n 20 "$tmp/out.$i" >&2
        [[ -f $tmp/time.$i ]] && tail -n 2 "$tmp/time.$i" >&2
        exit 1
    fi
    read -r wall rss_kib < <(tail -n 1 "$tmp/time.$i")
    printf '%-4s %10.2f %14.1f\n' "$i" "$wall" "$(awk -v k="$rss_kib" 'BEGIN{print k*1024/1e6}')"
    echo "$wall $rss_kib" >>"$tmp/all"
done

median() {  # median of column $1 of $tmp/all
    cut -d' ' -f"$1" "$tmp/all" | sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
med_wall=$(median 1)
med_rss_kib=$(median 2)
awk -v w="$med_wall" -v k="$med_rss_kib" -v b="$size_bytes" 'BEGIN{
    rss_mb = k * 1024 / 1e6; file_mb = b / 1e6
    printf "median wall      %.2f s\n", w
    printf "median peak RSS  %.1f MB\n", rss_mb
    printf "peak RSS / file  %.2f\n", rss_mb / file_mb
}'
