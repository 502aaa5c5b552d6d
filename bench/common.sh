# Shared setup of the benchmark scripts that generate ONNX models and time dcw on them under
# /usr/bin/time (scale_chain.sh, deep_nesting.sh). Source it with the script's name and its default
# output folder (under build/bench):
#   source "$(dirname "${BASH_SOURCE[0]}")/common.sh" NAME FOLDER "$@"
# It defines die() and sets root (the checkout), dcw (the first argument or build/app/dcw, absolute),
# limit (DCW_BENCH_TIMEOUT, default 900 s per command), bench_dir (DCW_BENCH_DIR, default
# build/bench/FOLDER, created) and python (Debian's /usr/bin/python3, with python3-onnx checked).
# GNU time ('%e %M': wall seconds, peak RSS in KiB) comes from the Debian package `time`, installed
# with apt-get when missing. Also timed_dcw (below).
bench_name=$1
die() { echo "$bench_name: $*" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dcw=${3:-$root/build/app/dcw}
case $dcw in /*) ;; */*) dcw=$PWD/$dcw ;; esac
limit=${DCW_BENCH_TIMEOUT:-900}
bench_dir=${DCW_BENCH_DIR:-$root/build/bench/$2}
case $bench_dir in /*) ;; *) bench_dir=$PWD/$bench_dir ;; esac
python=/usr/bin/python3

[[ -x $python ]] || die "$python not found; it generates the models (Debian python3-onnx)"
"$python" -c 'import onnx' 2>/dev/null || die "python3-onnx is missing (apt-get install python3-onnx)"
if [[ ! -x /usr/bin/time ]]; then
    echo "/usr/bin/time is missing; installing Debian package 'time' ..."
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get install -y time >/dev/null || die "could not install package 'time' (apt-get install time)"
fi
[[ -e $dcw ]] || die "dcw binary not found at '$dcw'. Build it first (scripts/build.sh) or pass its path"
[[ -x $dcw ]] || die "'$dcw' is not executable"
mkdir -p "$bench_dir"

# timed_dcw WHAT ARGS...: runs `dcw ARGS` under GNU time and the limit, setting `wall` (seconds) and
# `rss_kib` (peak). Returns 1 when it ran out of time (the caller prints "timeout"); when dcw fails,
# prints the end of its output naming WHAT and ends the script.
bench_tmp=$(mktemp -d)
trap 'rm -rf "$bench_tmp"' EXIT
timed_dcw() {
    local what=$1 rc=0
    shift
    /usr/bin/time -o "$bench_tmp/time" -f '%e %M' timeout "$limit" "$dcw" "$@" >"$bench_tmp/out" 2>&1 || rc=$?
    [[ $rc -eq 124 ]] && return 1
    if [[ $rc -ne 0 ]]; then
        echo "dcw $1 on $what failed (exit $rc); its output ends with:" >&2
        tail -n 5 "$bench_tmp/out" >&2
        exit 1
    fi
    read -r wall rss_kib < <(tail -n 1 "$bench_tmp/time")
}
