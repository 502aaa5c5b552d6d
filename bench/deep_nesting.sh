#!/usr/bin/env bash
# Benchmark: code generation of deeply nested control flow (issue 14: bodies nested 1,000 deep must
# import and generate, not run out of stack or time).
#
#   bench/deep_nesting.sh [DCW_BINARY]        (default: build/app/dcw)
#
# Generates, with Debian's /usr/bin/python3 and python3-onnx, an If whose then-branch holds an If
# whose then-branch holds ... D bodies deep (the innermost a Relu, every else-branch a Neg; the model
# of tests/tst_LargeModels.cpp), then runs on each, once, under /usr/bin/time:
#   dcw inspect nestD.onnx               import + validation + summary
#   dcw codegen nestD.onnx -o nestD.code import + expansion (one level of bodies per round) + the
#                                        pipeline + C++ generation + writing the code and source map
# and prints the wall time, peak RSS and the size of what codegen wrote. Expect time and output to
# grow with the square of D, not linearly: each level's expansion copies and renumbers the bodies
# below it, the code is indented one step per block, and the source map names every element by its
# full path, which grows with the depth.
#
# DCW_NEST_DEPTHS overrides the depths (default "250 500 1000"); DCW_BENCH_DIR the folder for the
# models and outputs (default build/bench/nesting); DCW_BENCH_TIMEOUT the limit per command in
# seconds (default 900; a command that runs out prints "timeout" and the script goes on).
# /usr/bin/time comes from the Debian package `time`; the script installs it when it is missing.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh" deep_nesting nesting "$@"
depths=${DCW_NEST_DEPTHS:-250 500 1000}

# --- the models ------------------------------------------------------------------------------------
for d in $depths; do
    [[ $d =~ ^[0-9]+$ && $d -gt 0 ]] || die "depth '$d' is not a positive number"
    model=$bench_dir/nest$d.onnx
    [[ -s $model ]] && continue
    "$python" - "$d" "$model" <<'EOF' || die "generating nest$d.onnx failed"
import sys
import onnx
from onnx import helper, TensorProto
depth, path = int(sys.argv[1]), sys.argv[2]
def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)
body = helper.make_graph([helper.make_node("Relu", ["x"], [f"y{depth}"], name=f"relu{depth}")],
                         f"then{depth}", [], [value(f"y{depth}", TensorProto.FLOAT, [4])])
for level in range(depth - 1, -1, -1):
    out = "y" if level == 0 else f"y{level}"
    orelse = helper.make_graph([helper.make_node("Neg", ["x"], [f"e{level}"], name=f"neg{level}")],
                               f"else{level}", [], [value(f"e{level}", TensorProto.FLOAT, [4])])
    node = helper.make_node("If", ["c"], [out], name=f"if{level}", then_branch=body, else_branch=orelse)
    inputs = [value("c", TensorProto.BOOL, []), value("x", TensorProto.FLOAT, [4])] if level == 0 else []
    body = helper.make_graph([node], "nested" if level == 0 else f"then{level}", inputs,
                             [value(out, TensorProto.FLOAT, [4])])
model = helper.make_model(body, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
with open(path, "wb") as f:  # not onnx.save: its external-data scan recurses per level
    f.write(model.SerializeToString())
EOF
done

# --- the runs --------------------------------------------------------------------------------------
printf 'binary    %s\nmodels    %s\n\n' "$dcw" "$bench_dir"
printf '%-7s %-8s %10s %12s %12s\n' depth command wall_s peak_rss_MB output_MB
for d in $depths; do
    model=$bench_dir/nest$d.onnx
    for cmd in inspect codegen; do
        out=$bench_dir/nest$d.code
        case $cmd in
            inspect) args=(inspect "$model") ;;
            codegen) rm -rf "$out"; args=(codegen "$model" -o "$out") ;;
        esac
        if ! timed_dcw "nest$d.onnx" "${args[@]}"; then
            printf '%-7s %-8s %10s %12s %12s\n' "$d" "$cmd" "timeout" "-" "-"
            continue
        fi
        bytes=0
        [[ $cmd == codegen ]] && bytes=$(du -sb "$out" | cut -f1)
        awk -v d="$d" -v c="$cmd" -v w="$wall" -v k="$rss_kib" -v b="$bytes" \
            'BEGIN{printf "%-7s %-8s %10.2f %12.1f %12s\n", d, c, w, k*1024/1e6, (c == "codegen" ? sprintf("%.1f", b/1e6) : "-")}'
        [[ $cmd == codegen ]] && rm -rf "$out" # hundreds of MB at 1,000 deep
    done
done
