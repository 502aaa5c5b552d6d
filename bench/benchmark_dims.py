#!/usr/bin/python3
"""The dynamic dims the benchmarks fix for a model: batch 1 and every other dim 1, the sequence 128 for
BERT and 64 for others (the LSTM). One place for latency_vs_ort.sh, largest_layers.sh and layers_vs_ort.sh.
  bench/benchmark_dims.py MODEL.onnx dcw   ->  --dim=batch=1 --dim=sequence=128   (dcw's options; empty without)
  bench/benchmark_dims.py MODEL.onnx ort   ->  batch=1,sequence=128                (ONNX Runtime's --dims; "-" without)
"""
import os
import sys

import onnx

if len(sys.argv) != 3 or sys.argv[2] not in ("dcw", "ort"):
    sys.exit("usage: benchmark_dims.py MODEL.onnx dcw|ort")
path, form = sys.argv[1], sys.argv[2]
try:
    model = onnx.load(path, load_external_data=False)
except Exception as e:  # a clear error naming the file, not a traceback
    sys.exit(f"benchmark_dims.py: {path}: not a readable ONNX model ({e})")
seq = 128 if "bert" in os.path.basename(path) else 64
names = []
for i in model.graph.input:
    for d in i.type.tensor_type.shape.dim:
        if d.dim_param and d.dim_param not in names:
            names.append(d.dim_param)
values = {n: seq if n == "sequence" else 1 for n in names}
if form == "dcw":
    print(" ".join(f"--dim={n}={v}" for n, v in values.items()))
else:
    print(",".join(f"{n}={v}" for n, v in values.items()) or "-")
