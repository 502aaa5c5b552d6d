#!/usr/bin/python3
"""Writes ONNX models (opset 17) whose ops `dcw optimize` fuses into dcw's fused ops (GeluFusion,
AddFusion, ActivationFusion: core/expansions/FusedOp.h) and runs with oneDNN post-ops: every fused
activation (SiLU and GELU recognised first), Z summed (same shape: the sum post-op) or broadcast (a bias: the matmul's bias or a binary
post-op), on convolutions, depthwise and transposed convolutions, batched and vector matmuls and Gemm.
The ctest compare_fused_with_onnxruntime runs them through `dcw optimize` + `dcw run` against ONNX
Runtime and against dcw's pure path. Each model's name says what it holds.

usage: fusion_cases.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(11)


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


def act(op, x, y, **attrs):
    extra = ["lo", "hi"] if op == "Clip" else []
    return helper.make_node(op, [x] + extra, [y], **attrs)


def gelu(x, y):
    return [helper.make_node("Div", [x, "sqrt2"], [y + "_d"]), helper.make_node("Erf", [y + "_d"], [y + "_e"]),
            helper.make_node("Add", [y + "_e", "one"], [y + "_a"]), helper.make_node("Mul", [x, y + "_a"], [y + "_m"]),
            helper.make_node("Mul", [y + "_m", "half"], [y])]


GELU_CONSTANTS = {"sqrt2": np.float32(1.4142135), "one": np.float32(1.0), "half": np.float32(0.5)}


def cases():
    out = []
    # Conv + each activation (depthwise, strided, padded), ReLU6 as Clip with constant bounds.
    for op, attrs in [("Relu", {}), ("LeakyRelu", {"alpha": 0.1}), ("Elu", {"alpha": 0.8}), ("Sigmoid", {}), ("Tanh", {}),
                      ("HardSigmoid", {"alpha": 0.25, "beta": 0.45}), ("HardSwish", {}), ("Softplus", {}), ("Clip", {})]:
        inits = {"W": w(6, 1, 3, 3, scale=1.0), "B": w(6)}
        if op == "Clip":
            inits.update(lo=np.float32(0.0), hi=np.float32(6.0))
        out.append(model(f"fused_conv_depthwise_{op.lower()}",
                         [helper.make_node("Conv", ["X", "W", "B"], ["T"], group=6, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
                          act(op, "T", "Y", **attrs)], [("X", [1, 6, 11, 10])], ["Y"], inits))
    # EfficientNet's Conv -> SiLU (Sigmoid, Mul), then a residual Add.
    out.append(model("fused_conv_silu_residual",
                     [helper.make_node("Conv", ["X", "W", "B"], ["T"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      helper.make_node("Sigmoid", ["T"], ["S"]), helper.make_node("Mul", ["T", "S"], ["U"]),
                      helper.make_node("Conv", ["U", "W2"], ["V"], kernel_shape=[1, 1]), helper.make_node("Add", ["V", "X"], ["Y"])],
                     [("X", [1, 6, 7, 7])], ["Y"], {"W": w(10, 6, 3, 3), "B": w(10), "W2": w(6, 10, 1, 1)}))
    # ResNet's bottleneck end: two convs added (one of them fused with the sum), then Relu.
    out.append(model("fused_conv_add_conv_relu",
                     [helper.make_node("Conv", ["X", "W1", "B1"], ["T1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      helper.make_node("Conv", ["X", "W2"], ["T2"], kernel_shape=[1, 1]),
                      helper.make_node("Add", ["T1", "T2"], ["S"]), helper.make_node("Relu", ["S"], ["Y"])],
                     [("X", [1, 5, 9, 8])], ["Y"], {"W1": w(16, 5, 3, 3), "B1": w(16), "W2": w(16, 5, 1, 1)}))
    # Identity skip: Relu(Conv(X) + X), the skip a model input (Z copied into the output first).
    out.append(model("fused_conv_identity_skip_relu",
                     [helper.make_node("Conv", ["X", "W", "B"], ["T"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      helper.make_node("Add", ["X", "T"], ["S"]), helper.make_node("Relu", ["S"], ["Y"])],
                     [("X", [2, 8, 7, 7])], ["Y"], {"W": w(8, 8, 3, 3), "B": w(8)}))
    # A per-channel Add after a bias-less Conv (binary post-op), then HardSwish.
    out.append(model("fused_conv_channel_add_hardswish",
                     [helper.make_node("Conv", ["X", "W"], ["T"], kernel_shape=[1, 1]), helper.make_node("Add", ["T", "c"], ["S"]),
                      helper.make_node("HardSwish", ["S"], ["Y"])],
                     [("X", [1, 4, 6, 6])], ["Y"], {"W": w(12, 4, 1, 1, scale=1.0), "c": w(1, 12, 1, 1)}))
    out.append(model("fused_convtranspose_leakyrelu",
                     [helper.make_node("ConvTranspose", ["X", "W", "B"], ["T"], strides=[2, 2], pads=[1, 1, 1, 1]),
                      act("LeakyRelu", "T", "Y", alpha=0.2)], [("X", [1, 4, 5, 6])], ["Y"], {"W": w(4, 3, 3, 3), "B": w(3)}))
    # Transformer feed-forward: MatMul -> Add(bias) -> GELU -> MatMul -> Add(bias) -> Add(residual).
    out.append(model("fused_matmul_bias_gelu_residual",
                     [helper.make_node("MatMul", ["X", "W1"], ["T1"]), helper.make_node("Add", ["b1", "T1"], ["H"])] + gelu("H", "G") +
                     [helper.make_node("MatMul", ["G", "W2"], ["T2"]), helper.make_node("Add", ["T2", "b2"], ["U"]),
                      helper.make_node("Add", ["U", "X"], ["Y"])],
                     [("X", [1, 7, 16])], ["Y"], {"W1": w(16, 32), "b1": w(32), "W2": w(32, 16), "b2": w(16), **GELU_CONSTANTS}))
    # Sequence-first linear layer ([seq, batch 1, features] x W + bias, Relu): one 2-D product with bias.
    out.append(model("fused_matmul_sequence_first_bias_relu",
                     [helper.make_node("MatMul", ["X", "W"], ["T"]), helper.make_node("Add", ["T", "b"], ["S"]),
                      helper.make_node("Relu", ["S"], ["Y"])], [("X", [6, 1, 16])], ["Y"], {"W": w(16, 24), "b": w(24)}))
    # MatMul + residual of the output's shape (sum post-op), then Tanh.
    out.append(model("fused_matmul_residual_tanh",
                     [helper.make_node("MatMul", ["X", "W"], ["T"]), helper.make_node("Add", ["T", "R"], ["S"]),
                      helper.make_node("Tanh", ["S"], ["Y"])], [("X", [2, 3, 5, 8]), ("R", [2, 3, 5, 6])], ["Y"], {"W": w(8, 6)}))
    # A vector times a batch of matrices (Y drops M), + bias, Relu.
    out.append(model("fused_matmul_vector_bias_relu",
                     [helper.make_node("MatMul", ["A", "W"], ["T"]), helper.make_node("Add", ["T", "b"], ["S"]),
                      helper.make_node("Relu", ["S"], ["Y"])], [("A", [7])], ["Y"], {"W": w(2, 7, 3), "b": w(3)}))
    # Gemm (transB, C) -> Relu and Gemm -> Add(residual) -> Sigmoid.
    out.append(model("fused_gemm_relu",
                     [helper.make_node("Gemm", ["X", "W", "C"], ["T"], transB=1), helper.make_node("Relu", ["T"], ["Y"])],
                     [("X", [4, 9])], ["Y"], {"W": w(5, 9), "C": w(5)}))
    out.append(model("fused_gemm_residual_sigmoid",
                     [helper.make_node("Gemm", ["X", "W"], ["T"]), helper.make_node("Add", ["T", "R"], ["S"]),
                      helper.make_node("Sigmoid", ["S"], ["Y"])], [("X", [4, 9]), ("R", [4, 6])], ["Y"], {"W": w(9, 6)}))
    # DenseNet's layer: Concat(X, Conv(X)) -> BatchNormalization -> Relu -> 1x1 Conv (the BN and Relu one
    # oneDNN batch normalization with fuse_norm_relu, channels-last between the convolutions).
    out.append(model("fused_concat_batchnorm_relu_conv",
                     [helper.make_node("Conv", ["X", "W1"], ["G"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      helper.make_node("Concat", ["X", "G"], ["C"], axis=1),
                      helper.make_node("BatchNormalization", ["C", "s", "o", "mu", "var"], ["T"]),
                      helper.make_node("Relu", ["T"], ["R"]), helper.make_node("Conv", ["R", "W2"], ["Y"], kernel_shape=[1, 1])],
                     [("X", [1, 8, 7, 6])], ["Y"],
                     {"W1": w(4, 8, 3, 3), "s": w(12), "o": w(12), "mu": w(12), "var": np.abs(w(12)) + 0.5, "W2": w(5, 12, 1, 1)}))
    # DenseNet's layer with every piece a convolution's (channels-last after `dcw optimize`, so the
    # fused node has DCW's one-pass copy as its second variant: ctests pin each variant), batch 2, one
    # piece of one channel; and a plain Concat of channels-last convolutions (the Concat's own second
    # variant, DCW's copy of whole rows).
    out.append(model("fused_concat_of_convs_batchnorm_relu_conv",
                     [helper.make_node("Conv", ["X", "W1"], ["G1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      helper.make_node("Conv", ["X", "W2"], ["G2"], kernel_shape=[1, 1]),
                      helper.make_node("Conv", ["X", "W3"], ["G3"], kernel_shape=[1, 1]),
                      helper.make_node("Concat", ["G1", "G2", "G3"], ["C"], axis=1),
                      helper.make_node("BatchNormalization", ["C", "s", "o", "mu", "var"], ["T"], epsilon=1e-3),
                      helper.make_node("Relu", ["T"], ["R"]), helper.make_node("Conv", ["R", "W4"], ["Y"], kernel_shape=[1, 1])],
                     [("X", [2, 8, 7, 6])], ["Y"],
                     {"W1": w(16, 8, 3, 3), "W2": w(5, 8, 1, 1), "W3": w(1, 8, 1, 1), "s": w(22), "o": w(22), "mu": w(22),
                      "var": np.abs(w(22)) + 0.5, "W4": w(6, 22, 1, 1)}))
    out.append(model("concat_of_convs_conv",
                     [helper.make_node("Conv", ["X", "W1"], ["G1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      helper.make_node("Conv", ["X", "W2"], ["G2"], kernel_shape=[1, 1]),
                      helper.make_node("Concat", ["G2", "G1"], ["C"], axis=1), helper.make_node("Conv", ["C", "W3"], ["Y"], kernel_shape=[1, 1])],
                     [("X", [2, 8, 7, 6])], ["Y"], {"W1": w(16, 8, 3, 3), "W2": w(3, 8, 1, 1), "W3": w(4, 19, 1, 1)}))
    # A stem as torchvision's: Conv 7x7/2 of the 3-channel NCHW input -> Relu -> MaxPool -> 1x1 Conv ->
    # AveragePool. After `dcw optimize` the first convolution reads plain NCHW and writes channels-last:
    # its plain-activations variant exists only as oneDNN's reference kernel, which the first run must
    # not time (ctest first_run_times_no_reference_kernel).
    out.append(model("fused_stem_conv_relu_pool",
                     [helper.make_node("Conv", ["X", "W1", "B1"], ["T"], kernel_shape=[7, 7], strides=[2, 2], pads=[3, 3, 3, 3]),
                      helper.make_node("Relu", ["T"], ["R"]),
                      helper.make_node("MaxPool", ["R"], ["P"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
                      helper.make_node("Conv", ["P", "W2", "B2"], ["Q"], kernel_shape=[1, 1]),
                      helper.make_node("AveragePool", ["Q"], ["Y"], kernel_shape=[2, 2], strides=[2, 2])],
                     [("X", [1, 3, 64, 64])], ["Y"], {"W1": w(16, 3, 7, 7), "B1": w(16), "W2": w(16, 16, 1, 1), "B2": w(16)}))
    return out


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    written = cases()
    for name, m in written:
        onnx.save(m, os.path.join(outdir, name + ".onnx"))
    print(f"wrote {len(written)} models to {outdir}")


if __name__ == "__main__":
    main()
