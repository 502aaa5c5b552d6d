#!/usr/bin/env bash
# The matrix products, convolutions and poolings of a model after `dcw optimize`, each timed inside the model
# against ONNX Runtime's same layer, in one run: `dcw profile --instrument nodes` on DCW's side, ONNX
# Runtime's own per-node profiler (bench/ort_profile.js) on its side. Layers are matched by their dims:
# a product by M x K x N (with the batch of batched ones), a convolution by its input's and weights' dims,
# a pooling by its input's and output's.
# Each row gives the count per run, both median times per call and their ratio. Where
# bench/largest_layers.sh says how near a layer is to the machine's peak, this says whether the peer does
# better on the same layer in the same conditions (BERT's GEMMs read 340 MB of weights cold each run).
#   bench/layers_vs_ort.sh [DCW_BINARY] [MODEL.onnx]   (default: bert_base of build/bench-models)
# Environment: THREADS (default 2), REPEAT (default 20), MODELS_DIR. Dynamic dims: bench/benchmark_dims.py's.
# DCW's times include the node's fused epilogue (bias, activation, residual); ONNX Runtime's separate ones
# (BiasGelu, Add) are listed apart below the table, and so are its other ops (concat, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
dcw=build/app/dcw
if [ $# -gt 0 ] && [ -x "$1" ] && [[ "$1" != *.onnx ]]; then dcw=$1; shift; fi
[ -x "$dcw" ] || { echo "error: $dcw not found; build first (scripts/build.sh)" >&2; exit 2; }
model=${1:-${MODELS_DIR:-build/bench-models}/bert_base.onnx}
[ -f "$model" ] || { echo "error: $model not found (bench/export_architectures.py makes it)" >&2; exit 2; }
peers=$(../shared/peers/setup.sh) || { echo "error: ONNX Runtime (../shared/peers) could not be set up" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
threads=${THREADS:-2}
repeat=${REPEAT:-20}
read -r -a dcwDims <<<"$(/usr/bin/python3 bench/benchmark_dims.py "$model" dcw)"
ortDims=$(/usr/bin/python3 bench/benchmark_dims.py "$model" ort)
"$dcw" optimize "$model" "${dcwDims[@]}" --script-out "$work/steps.dcws" >/dev/null 2>&1
"$dcw" codegen "$model" "${dcwDims[@]}" --script "$work/steps.dcws" -o "$work/code" >/dev/null 2>&1
"$dcw" profile "$model" "${dcwDims[@]}" --script "$work/steps.dcws" --threads "$threads" --repeat "$repeat" --warmup 3 \
  --instrument nodes --no-peaks --report "$work/dcw.json" >/dev/null 2>&1
../shared/peers/ort "$model" --random 1 --dims "$ortDims" --outputs "$work/io" >/dev/null
trace=$(NODE_PATH="$peers/node_modules" node bench/ort_profile.js "$model" "$work/io" "$threads" 3 "$repeat" "$work/ort")
/usr/bin/python3 - "$work/code/program.cpp" "$work/dcw.json" "$trace" "$(basename "$model" .onnx)" <<'PY'
import collections, json, math, re, statistics, sys
code, report, trace, name = sys.argv[1:5]
# DCW: each oneDNN matrix product's dims from its comment in the generated code, its time from the profile.
shape_of = {}
element = None
for line in open(code):
    m = re.search(r"// C\+\+ tasklet (\S+)", line)
    if m:
        element = m.group(1)
        continue
    m = re.search(r"// oneDNN matmul(?: for Gemm)?: Y\[[0-9x]+\] = A(?:\^T)?\[([0-9x]+)\] x B(?:\^T)?\[([0-9x]+)\]", line)
    if m and element:
        a = [int(v) for v in m.group(1).split("x")]
        b = [int(v) for v in m.group(2).split("x")]
        batch = math.prod(a[:-2]) if len(b) > 2 else 1
        rows = math.prod(a[:-1]) // batch
        shape_of[element] = ("matmul", batch, rows, a[-1], b[-1])
        element = None
        continue
    m = re.search(r"// oneDNN convolution: Y\[[0-9x]+\] from X\[([0-9x]+)\], W\[([0-9x]+)\]", line)
    if m and element:
        shape_of[element] = ("conv", m.group(1), m.group(2))
        element = None
        continue
    m = re.search(r"// oneDNN pooling_(max|avg)\w*: Y\[([0-9x]+)\] from X\[([0-9x]+)\]", line)
    if m and element:
        shape_of[element] = (m.group(1) + "pool", m.group(3), m.group(2))
        element = None
elements = json.load(open(report))["elements"]
dcw = collections.defaultdict(list)
for path, shape in shape_of.items():
    if path in elements:
        dcw[shape].append(elements[path]["time_ms"]["median"] / max(elements[path].get("calls", 1), 1))
# ONNX Runtime: the median of each node's kernel times over the runs, by the dims of its product.
events = [e for e in json.load(open(trace)) if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time")]
per_node = collections.defaultdict(list)
kinds = {}
for e in events:
    args = e.get("args", {})
    per_node[e["name"]].append(e["dur"] / 1000.0)
    kinds[e["name"]] = (args.get("op_name", ""), args.get("input_type_shape", []), args.get("output_type_shape", []))
ort = collections.defaultdict(list)
others = collections.defaultdict(list)
for node, times in per_node.items():
    op, ins, outs = kinds[node]
    dims = [list(s.values())[0] for s in ins if s]
    ys = [list(s.values())[0] for s in outs if s]
    if op in ("MatMul", "FusedMatMul", "Gemm") and dims and ys and len(dims[0]) >= 2 and len(ys[0]) >= 2:
        # Prepacked weights are not listed among the inputs: a product with one listed input, or a 2-D B,
        # folds its batch dims into M (as DCW's does); K is A's last dim, N is Y's.
        a, y = dims[0], ys[0]
        batched = len(dims) >= 2 and len(dims[1]) >= 3
        batch = math.prod(y[:-2]) if batched else 1
        rows = y[-2] if batched else math.prod(y[:-1])
        ort[("matmul", batch, rows, a[-1], y[-1])].append(statistics.median(times))
    elif op in ("MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool") and dims and ys:
        ort[(("max" if "Max" in op else "avg") + "pool", "x".join(map(str, dims[0])), "x".join(map(str, ys[0])))].append(
            statistics.median(times))
    elif op in ("Conv", "FusedConv") and len(dims) >= 2:
        ort[("conv", "x".join(map(str, dims[0])), "x".join(map(str, dims[1])))].append(statistics.median(times))
    else:
        others[op].append(statistics.median(times))
def label(k):
    if k[0] == "matmul":
        return "matmul " + "x".join(str(v) for v in k[1:])
    if k[0] == "conv":
        return f"conv X {k[1]} W {k[2]}"
    return f"{k[0]} X {k[1]} Y {k[2]}"
def work(k):  # sort key: the layer's multiply-adds, roughly
    if k[0] == "matmul":
        return math.prod(k[1:])
    x, w = [int(v) for v in k[1].split("x")], [int(v) for v in k[2].split("x")]
    return math.prod(x) * w[0] * math.prod(w[2:]) if k[0] == "conv" else math.prod(x)
print(f"{name}: matrix products (batch x M x K x N), convolutions and poolings inside the model, median ms per call")
print(f"  {'layer':44} {'count':>5} {'dcw ms':>8} {'ort ms':>8} {'dcw/ort':>8}")
tot_d = tot_o = 0.0
for key in sorted(set(dcw) | set(ort), key=lambda k: -work(k)):
    d, o = dcw.get(key, []), ort.get(key, [])
    md = statistics.median(d) if d else float("nan")
    mo = statistics.median(o) if o else float("nan")
    if d and o:
        tot_d += sum(d)
        tot_o += sum(o)
    print(f"  {label(key):44} {max(len(d), len(o)):5} {md:8.3f} {mo:8.3f} {md / mo if d and o else float('nan'):8.2f}")
print(f"  matched layers in all: dcw {tot_d:.2f} ms, ort {tot_o:.2f} ms per run ({tot_d / tot_o if tot_o else float('nan'):.2f})")
for op in sorted(others, key=lambda o: -sum(others[o])):
    print(f"  ONNX Runtime's other {op} nodes: {len(others[op])} per run, {sum(others[op]):.2f} ms")
PY
