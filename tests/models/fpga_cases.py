#!/usr/bin/python3
"""Writes the small ONNX models (opset 17, fixed shapes) that the FPGA targets are checked on: an MLP
and small CNNs, run through `dcw run --target fpga-sim` (C-simulation of the generated HLS kernels)
against ONNX Runtime by the ctest compare_fpga_sim_with_onnxruntime. Each model's name says what it holds.

usage: fpga_cases.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(17)


def model(name, nodes, inputs, outputs, initializers):
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs]
    inits = [numpy_helper.from_array(np.asarray(v, dtype=np.float32), n) for n, v in initializers.items()]
    m = helper.make_model(helper.make_graph(nodes, name, ins, outs, initializer=inits), opset_imports=[helper.make_opsetid("", 17)])
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    return name, m


def w(*shape, scale=0.3):
    return rng.standard_normal(shape) * scale


def cases():
    n = helper.make_node
    out = []
    # MLP: 64 -> 128 -> 64 -> 10, ReLU between, softmax at the end (Gemm with transB, MatMul + Add).
    out.append(model("mlp_gemm_relu_softmax", [
        n("Gemm", ["x", "w1", "b1"], ["h1"], transB=1), n("Relu", ["h1"], ["a1"]),
        n("MatMul", ["a1", "w2"], ["m2"]), n("Add", ["m2", "b2"], ["h2"]), n("Relu", ["h2"], ["a2"]),
        n("Gemm", ["a2", "w3", "b3"], ["logits"]), n("Softmax", ["logits"], ["y"], axis=1)],
        [("x", [4, 64])], ["y"],
        {"w1": w(128, 64), "b1": w(128), "w2": w(128, 64), "b2": w(64), "w3": w(64, 10), "b3": w(10)}))
    # Small CNN: conv 3x3 (pad 1) + ReLU + max pool, conv 3x3 stride 2 + ReLU, global average pool,
    # flatten, a classifier.
    out.append(model("cnn_conv_relu_pool_gap_gemm", [
        n("Conv", ["x", "c1", "cb1"], ["y1"], pads=[1, 1, 1, 1]), n("Relu", ["y1"], ["r1"]),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        n("Conv", ["p1", "c2", "cb2"], ["y2"], strides=[2, 2], pads=[1, 1, 1, 1]), n("Relu", ["y2"], ["r2"]),
        n("GlobalAveragePool", ["r2"], ["g"]), n("Flatten", ["g"], ["f"]),
        n("Gemm", ["f", "fc", "fb"], ["y"], transB=1)],
        [("x", [2, 3, 16, 16])], ["y"],
        {"c1": w(8, 3, 3, 3), "cb1": w(8), "c2": w(16, 8, 3, 3), "cb2": w(16), "fc": w(10, 16), "fb": w(10)}))
    # A CNN block with a residual add and batch normalization (inference), average pooling.
    out.append(model("cnn_residual_batchnorm", [
        n("Conv", ["x", "c1", "cb1"], ["y1"], pads=[1, 1, 1, 1]),
        n("BatchNormalization", ["y1", "s", "b", "m", "v"], ["n1"]), n("Relu", ["n1"], ["r1"]),
        n("Conv", ["r1", "c2", "cb2"], ["y2"], pads=[1, 1, 1, 1]), n("Add", ["y2", "x"], ["z"]), n("Relu", ["z"], ["r2"]),
        n("AveragePool", ["r2"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        [("x", [1, 4, 8, 8])], ["y"],
        {"c1": w(4, 4, 3, 3), "cb1": w(4), "s": 1 + w(4, scale=0.1), "b": w(4), "m": w(4), "v": 1 + np.abs(w(4)),
         "c2": w(4, 4, 3, 3), "cb2": w(4)}))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, m in cases():
        onnx.save(m, os.path.join(sys.argv[1], name + ".onnx"))


if __name__ == "__main__":
    main()
