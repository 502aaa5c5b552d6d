#!/usr/bin/env bash
# Benchmark: how DCW scales with the number of nodes (issue 14: import, validation, analysis,
# serialization and code generation must stay near-linear).
#
#   bench/scale_chain.sh [DCW_BINARY]        (default: build/app/dcw)
#
# Generates plain chains of N Relu nodes (x -> Relu -> Relu -> ... -> y, float[1,16], opset 17) with
# Debian's /usr/bin/python3 and python3-onnx, then runs on each, once, under /usr/bin/time:
#   dcw inspect chainN.onnx                       import + validation + summary
#   dcw convert chainN.onnx -o chainN.dcw.json    import + validation + serialization
#   dcw codegen chainN.onnx -o chainN.code        import + expansion + the pipeline + C++ generation
# and prints the wall time and peak RSS of each, and microseconds per node. Near-linear scaling shows
# as a flat us/node column; a quadratic spot doubles it with every doubling of N.
#
# DCW_SCALE_SIZES overrides the sizes (default "10000 50000 100000"); DCW_BENCH_DIR the folder for the
# models and outputs (default build/bench/scale); DCW_BENCH_TIMEOUT the limit per command in seconds
# (default 900; a command that runs out prints "timeout" and the script goes on).
# /usr/bin/time (GNU time, '%e %M': wall seconds and peak RSS in KiB) comes from the Debian package
# `time`; the script installs it with apt-get when it is missing, as bench/inspect_resnet50.sh does.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh" scale_chain scale "$@"
sizes=${DCW_SCALE_SIZES:-10000 50000 100000}

# --- the models ------------------------------------------------------------------------------------
for n in $sizes; do
    [[ $n =~ ^[0-9]+$ && $n -gt 0 ]] || die "size '$n' is not a positive number"
    model=$bench_dir/chain$n.onnx
    [[ -s $model ]] && continue
    "$python" - "$n" "$model" <<'EOF' || die "generating chain$n.onnx failed"
import sys
import onnx
from onnx import helper, TensorProto
n, path = int(sys.argv[1]), sys.argv[2]
nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"], name=f"r{i}") for i in range(n)]
graph = helper.make_graph(nodes, "chain",
                          [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [1, 16])],
                          [helper.make_tensor_value_info(f"t{n}", TensorProto.FLOAT, [1, 16])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
EOF
done

# --- the runs --------------------------------------------------------------------------------------
printf 'binary    %s\nmodels    %s\n\n' "$dcw" "$bench_dir"
printf '%-8s %-8s %10s %12s %10s\n' nodes command wall_s peak_rss_MB us/node
for n in $sizes; do
    model=$bench_dir/chain$n.onnx
    for cmd in inspect convert codegen; do
        case $cmd in
            inspect) args=(inspect "$model") ;;
            convert) args=(convert "$model" -o "$bench_dir/chain$n.dcw.json") ;;
            codegen) rm -rf "$bench_dir/chain$n.code"; args=(codegen "$model" -o "$bench_dir/chain$n.code") ;;
        esac
        if ! timed_dcw "chain$n.onnx" "${args[@]}"; then
            printf '%-8s %-8s %10s %12s %10s\n' "$n" "$cmd" "timeout" "-" "-"
            continue
        fi
        awk -v n="$n" -v c="$cmd" -v w="$wall" -v k="$rss_kib" \
            'BEGIN{printf "%-8s %-8s %10.2f %12.1f %10.1f\n", n, c, w, k*1024/1e6, w*1e6/n}'
    done
done
