#!/usr/bin/env bash
# Benchmark: one training step (forward + backward + SGD update) of LeNet-5 (batch 2, 1x28x28) and of
# a transformer encoder layer (d_model 16, 2 heads, seq 4, batch 2) in DCW versus PyTorch, 2 threads
# each, on this machine; and the memory the backward pass keeps alive on the transformer layer when
# every intermediate is stored versus when the largest ones are recomputed.
#
#   bench/train_vs_torch.sh [DCW_BINARY]        (default: build/app/dcw)
#
# DCW: `dcw train --steps N` prints the mean run time per step, compile excluded (one warm-up run of
# the same command first fills the kernel cache). PyTorch: the same model and initial weights
# (tests/models/autodiff_references.py), torch.optim.SGD, N steps after 5 warm-up steps, with
# torch.set_num_threads(2). Memory: `dcw grad --report-memory` (autodiff's count of forward
# intermediates kept for the backward pass) and the peak RSS of each run (GNU time, `%M`).
# DCW_BENCH_STEPS overrides N (default 200).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
dcw="${1:-$here/build/app/dcw}"
refs="$here/tests/data/autodiff"
steps="${DCW_BENCH_STEPS:-200}"
[ -x "$dcw" ] || { echo "train_vs_torch: no dcw binary at $dcw" >&2; exit 2; }
export OMP_NUM_THREADS=2

dcw_step_ms() { # model data
  "$dcw" train "$refs/$1/model.onnx" --loss loss --optimizer sgd --lr 0.01 --steps 3 --data "$2" --threads 2 >/dev/null
  "$dcw" train "$refs/$1/model.onnx" --loss loss --optimizer sgd --lr 0.01 --steps "$steps" --data "$2" --threads 2 |
    sed -n 's/.* \([0-9.]*\) ms per step$/\1/p'
}

torch_step_ms() { # model
  /usr/bin/python3 - "$1" "$steps" "$here/tests/models" <<'PY'
import sys, time, torch
sys.path.insert(0, sys.argv[3])
import autodiff_references as ar
torch.set_num_threads(2)
name, steps = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
model, args, _, _, _ = ar.make(name)
model.eval()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
def step():
    opt.zero_grad(); loss = model(*args); loss.backward(); opt.step()
for _ in range(5): step()
t0 = time.perf_counter()
for _ in range(steps): step()
print(f"{(time.perf_counter() - t0) * 1e3 / steps:.3f}")
PY
}

echo "one training step (SGD), 2 threads, mean of $steps steps, compile excluded"
printf "%-20s %12s %12s %8s\n" model "DCW ms" "PyTorch ms" ratio
for m in lenet transformer_layer; do
  data="$refs/$m"; [ "$m" = lenet ] && data="$refs/lenet_train"
  d=$(dcw_step_ms "$m" "$data"); t=$(torch_step_ms "$m")
  printf "%-20s %12s %12s %8s\n" "$m" "$d" "$t" "$(awk -v a="$d" -v b="$t" 'BEGIN{printf "%.2f", a/b}')"
done

echo
echo "transformer_layer: memory kept for the backward pass (d loss / d x and all weights)"
model="$refs/transformer_layer/model.onnx"
wrt="x layer.self_attn.in_proj_weight layer.self_attn.out_proj.weight layer.linear1.weight layer.linear2.weight"
out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
rss() { /usr/bin/time -f '%M' -o "$out/rss" "$@" >"$out/log" && echo "$(cat "$out/rss") KiB peak RSS"; }
store=$(rss "$dcw" grad "$model" --of loss --wrt $wrt --inputs "$refs/transformer_layer" --outputs "$out/s" --report-memory --threads 2)
echo "store all:  $(sed -n 's/^backward keeps alive: //p' "$out/log");  $store"
# Recompute every stored intermediate that is computed (not a Constant node's output).
recompute=$(sed -n 's/^  stored //p' "$out/log" | grep -v 'Constant' | tr '\n' ' ')
rec=$(rss "$dcw" grad "$model" --of loss --wrt $wrt --inputs "$refs/transformer_layer" --outputs "$out/r" --report-memory --threads 2 --recompute $recompute)
echo "recompute:  $(sed -n 's/^backward keeps alive: //p' "$out/log");  $rec"
echo "recomputed: $recompute"
