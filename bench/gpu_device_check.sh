#!/usr/bin/env bash
# The checks of DCW's CUDA target that need an NVIDIA GPU, in one run (issue 16): what cuda-sim and
# nvcc without a GPU cannot show. Meant for a lent GPU machine, where time is short, so every stage has
# its own time limit, logs to OUT and the next stage runs whatever the last one gave.
#
#   bench/gpu_device_check.sh CARRY [OUT]
#
# DCW_CHECK_STAGES (default 234) chooses the stages after the first, which always runs: "4" alone times
# against PyTorch; DCW_GPU_BENCH_MODELS passes --models to gpu_vs_torch.py.
# About 11 minutes with the defaults (the node suite 330 s beside stage 3's 300 s, then 300 s of latency);
# DCW_CHECK_NODE_SECONDS, DCW_CHECK_STAGE3_SECONDS and DCW_GPU_BENCH_SECONDS change the limits. 746 of the
# 932 node cases fitted in 240 s with 12 jobs on an H200 machine's 16 cores.
#
# CARRY holds bin/dcw and bin/dcw-worker (built elsewhere), lib/ (the shared libraries dcw needs that the
# GPU machine may lack: libonnx, libonnx_proto, libprotobuf), node.tgz (the ONNX backend node cases of
# libonnx-testdata) and models/*.onnx (real architectures exported by torch). The machine needs nvcc, a
# host g++, and python3 with numpy, onnx, onnxruntime and torch (the peers).
#
# Stages (correctness ones side by side, the timed one alone):
#   1. the machine: GPU, driver, nvcc, g++, cuBLAS;
#   2. `dcw test-onnx --target cuda` over every node case (against the suite's expected outputs);
#   3. in four groups side by side: single cuDNN calls (CARRY/cudnn-cases, if there) and pure kernels only;
#      CNNs, a transformer encoder and an LSTM after `dcw optimize --target cuda` (cuDNN's fused convolution,
#      block reductions); real architectures as imported; each against ONNX Runtime on the same random inputs;
#      `dcw grad --target cuda` of LeNet against PyTorch's gradients (tests/data/autodiff);
#      `dcw profile --target cuda` (kernels on the GPU track); compute-sanitizer's racecheck and memcheck
#      on a small CNN;
#   4. bench/gpu_vs_torch.py (latency against PyTorch eager and torch.compile).
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
carry="$(cd "${1:?usage: gpu_device_check.sh CARRY [OUT]}" && pwd)"
out="${2:-${OUT:-/tmp/gpu-check}}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
dcw="$carry/bin/dcw"
target="${DCW_CHECK_TARGET:-cuda}"  # cuda-sim tries this script out on a machine without a GPU
chmod +x "$carry/bin/"* 2>/dev/null
stage() { echo "== $* ($(date +%T))"; }
work=/tmp/gpu-check-work
rm -rf "$work" && mkdir -p "$work"

{
stage "1 machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
nvcc --version | tail -2
g++ --version | head -1
ls /usr/local/cuda/lib64 2>/dev/null | grep -E '^libcublas(Lt)?\.so$' || echo "no libcublas.so beside nvcc"
# cuDNN: beside the toolkit, or else the one a Python wheel brought (nvcc finds it through CPATH and
# LIBRARY_PATH, as dcw's cudnnFound() does; the wheel has only libcudnn.so.9, so a link name is made).
if [ ! -f "$(dirname "$(dirname "$(command -v nvcc)")")/include/cudnn.h" ]; then
  h=$(find /usr/local /usr/include /opt -name cudnn.h 2>/dev/null | head -1)
  if [ -n "$h" ]; then
    inc=$(dirname "$h"); lib=$(dirname "$inc")/lib
    mkdir -p "$work/cudnn-link" && ln -sf "$lib/libcudnn.so.9" "$work/cudnn-link/libcudnn.so"
    export CPATH="$inc${CPATH:+:$CPATH}" LIBRARY_PATH="$work/cudnn-link${LIBRARY_PATH:+:$LIBRARY_PATH}" LD_LIBRARY_PATH="$lib:$LD_LIBRARY_PATH"
    echo "cuDNN from $inc"
  else
    echo "no cuDNN here: convolutions run as DCW's kernels"
  fi
fi
"$dcw" --version || { echo "dcw does not start here"; ldd "$dcw"; cat "$out/machine.txt" >&2; exit 1; }
python3 -c "import onnxruntime, onnx, torch; print('onnxruntime', onnxruntime.__version__, 'onnx', onnx.__version__, 'torch', torch.__version__)"

# ONNX Runtime through Python, with the command line of the peer (../shared/peers/ort) that
# tests/models/compare_with_ort.py calls.
cat > "$work/ort" <<'EOF'
#!/usr/bin/env python3
import os, sys
import numpy as np, onnx, onnxruntime as ort
from onnx import numpy_helper
model, ins, outs = sys.argv[1], sys.argv[sys.argv.index("--inputs") + 1], sys.argv[sys.argv.index("--outputs") + 1]
s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
feed = {}
for k, i in enumerate(s.get_inputs()):
    t = onnx.TensorProto(); t.ParseFromString(open(os.path.join(ins, f"input_{k}.pb"), "rb").read())
    feed[i.name] = numpy_helper.to_array(t)
os.makedirs(outs, exist_ok=True)
for k, y in enumerate(s.run(None, feed)):
    open(os.path.join(outs, f"output_{k}.pb"), "wb").write(numpy_helper.from_array(np.asarray(y)).SerializeToString())
EOF
chmod +x "$work/ort"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
stages="${DCW_CHECK_STAGES:-234}"
node_pid=
if [[ "$stages" == *2* ]]; then
tar xzf "$carry/node.tgz" -C "$work"
stage "2 node conformance through --target $target (background)"
( DCW_CACHE_DIR="$work/cache-node" timeout "${DCW_CHECK_NODE_SECONDS:-330}" "$dcw" test-onnx --target "$target" -j 14 "$work/node" ${DCW_CHECK_NODE_FILTER:+--filter "$DCW_CHECK_NODE_FILTER"} > "$out/node_cuda.txt" 2>&1
  echo "exit $?" >> "$out/node_cuda.txt" ) &
node_pid=$!
fi

if [[ "$stages" == *3* ]]; then
stage "3 real models, gradients, profile, sanitizer"
deadline=$(( $(date +%s) + ${DCW_CHECK_STAGE3_SECONDS:-300} ))
cap() { # the time limit of one command: its own, or what is left of stage 3's
  local r=$(( deadline - $(date +%s) )); [ "$r" -lt "$1" ] && echo $(( r > 1 ? r : 1 )) || echo "$1"
}
# Four groups side by side (the machine has 16 cores; nvcc is most of the time), each its own log and cache.
{
  export DCW_CACHE_DIR="$work/cache-models-a"
  if [ -d "$carry/cudnn-cases" ]; then
    echo "-- single cuDNN calls: convolutions, poolings, global poolings, softmaxes, batch normalizations"
    timeout $(cap 100) python3 "$here/tests/models/compare_with_ort.py" "$dcw" "$carry"/cudnn-cases/*.onnx --ort "$work/ort" \
      --dcw-arg=--target --dcw-arg="$target" --expect-in-code "// cuDNN "
  fi
  echo "-- pure implementations only (no cuBLAS, no cuDNN)"
  timeout $(cap 100) python3 "$here/tests/models/compare_with_ort.py" "$dcw" "$carry"/models/transformer_encoder*.onnx "$carry"/models/mobilenet_v2.onnx --ort "$work/ort" \
    --dcw-arg=--target --dcw-arg="$target" --dcw-arg=--prefer --dcw-arg=pure
} > "$work/stage3_a.txt" 2>&1 &
{
  export DCW_CACHE_DIR="$work/cache-models-b"
  echo "-- after dcw optimize --target $target: CNNs with conv + bias + residual + ReLU as one cuDNN fused call"
  timeout $(cap 120) python3 "$here/tests/models/compare_with_ort.py" "$dcw" "$carry"/models/cnn_residual_batchnorm.onnx \
    "$carry"/models/mobilenet_v2.onnx --ort "$work/ort" --optimize --dcw-arg=--target --dcw-arg="$target" \
    --expect-in-code "conv_bias_activation"
  echo "-- after dcw optimize --target $target: a transformer encoder and an LSTM (fused kernels, block reductions)"
  timeout $(cap 120) python3 "$here/tests/models/compare_with_ort.py" "$dcw" "$carry"/models/transformer_encoder.onnx \
    "$carry"/models/lstm.onnx --ort "$work/ort" --optimize --dcw-arg=--target --dcw-arg="$target" --expect-in-code "__global__ void"
} > "$work/stage3_b.txt" 2>&1 &
{
  export DCW_CACHE_DIR="$work/cache-models-c"
  echo "-- real models as imported"
  timeout $(cap 150) python3 "$here/tests/models/compare_with_ort.py" "$dcw" "$carry"/models/*.onnx --ort "$work/ort" \
    --dcw-arg=--target --dcw-arg="$target" --expect-in-code "__global__ void"
} > "$work/stage3_c.txt" 2>&1 &
{
  export DCW_CACHE_DIR="$work/cache-models-d"
  refs="$here/tests/data/autodiff"
  for m in lenet transformer_layer; do
    timeout $(cap 90) "$dcw" grad "$refs/$m/model.onnx" --of loss --wrt $(cat "$refs/$m/wrt.txt") --inputs "$refs/$m" \
      --outputs "$work/grad-$m" --target "$target" > /dev/null || { echo "dcw grad $m failed"; continue; }
    python3 - "$refs/$m" "$work/grad-$m" "$m" <<'EOF'
import os, sys, numpy as np, onnx
from onnx import numpy_helper
def rd(p):
    t = onnx.TensorProto(); t.ParseFromString(open(p, "rb").read()); return numpy_helper.to_array(t)
ref, got, name = sys.argv[1:4]
k, worst = 0, 0.0
while os.path.exists(os.path.join(ref, f"grad_{k}.pb")):
    a, b = rd(os.path.join(got, f"grad_{k}.pb")), rd(os.path.join(ref, f"grad_{k}.pb"))
    worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b)) / max(1e-30, float(np.max(np.abs(b))))))
    k += 1
print(f"grad {name} on the GPU: {k} gradients, worst max|diff|/max|ref| against PyTorch {worst:.3g}", "passed" if worst < 1e-4 else "FAILED")
EOF
  done
  timeout $(cap 90) "$dcw" train "$refs/lenet/model.onnx" --loss loss --optimizer sgd --lr 0.01 --steps 50 --data "$refs/lenet_train" \
    --target "$target" > "$work/train.txt" 2>&1
  tail -2 "$work/train.txt"
  python3 - "$work/train.txt" "$refs/lenet_train/losses.json" <<'EOF'
import json, sys
got = [float(l.split()[3]) for l in open(sys.argv[1]) if l.startswith("step ")]
want = json.load(open(sys.argv[2]))["loss"]
worst = max((abs(a - b) for a, b in zip(got, want)), default=float("inf"))
print(f"train lenet on the GPU: {len(got)} of {len(want)} steps, worst loss difference from PyTorch {worst:.3g}",
      "passed" if len(got) == len(want) and worst < 1e-3 else "FAILED")
EOF
  m="$carry/models/mobilenet_v2.onnx"
  if [ -f "$m" ]; then
    timeout $(cap 90) "$dcw" profile "$m" --target "$target" --repeat 5 --warmup 2 --report "$out/mobilenet_v2_cuda_profile.json" \
      --trace "$work/mobilenet_v2_cuda_trace.json" 2>&1 | tail -15
  fi
  cnn="$carry/models/cnn_residual_batchnorm.onnx"
  if command -v compute-sanitizer > /dev/null; then
    for tool in memcheck racecheck; do
      echo "-- compute-sanitizer --tool $tool on $(basename "$cnn")"
      timeout $(cap 90) compute-sanitizer --tool $tool --error-exitcode 9 "$dcw" run "$cnn" --target "$target" --random 3 --in-process 2>&1 | tail -4
      echo "exit ${PIPESTATUS[0]}"
    done
  fi
} > "$work/stage3_d.txt" 2>&1 &
wait $(jobs -p | grep -vx "${node_pid:-none}")
cat "$work"/stage3_[abcd].txt > "$out/models_cuda.txt"
cat "$out/models_cuda.txt"
fi
if [ -n "$node_pid" ]; then
  wait $node_pid
  stage "2 node conformance: summary"
  grep -vE '^passed' "$out/node_cuda.txt" | tail -40
fi

if [[ "$stages" == *4* ]]; then
  stage "4 latency against PyTorch"
  DCW_CACHE_DIR="$work/cache-bench" PYTHONUNBUFFERED=1 timeout "${DCW_GPU_BENCH_SECONDS:-300}" \
    python3 "$here/bench/gpu_vs_torch.py" "$dcw" --repeat 10 --warmup 3 --profile-dir "$out/profiles" \
    ${DCW_GPU_BENCH_MODELS:+--models "$DCW_GPU_BENCH_MODELS"} 2>&1 | tee "$out/gpu_vs_torch.txt"
fi
stage done
