#!/usr/bin/env python3
"""Small ONNX models for the controlflow_graph transformation tests (InlineNestedSDFG, StateFusion,
ConvBatchNormFolding, MatMulAddToGemm, GeluFusion, SiluFusion, AddFusion, ActivationFusion). Run with
/usr/bin/python3; writes into tests/data/transforms/controlflow_graph/. Deterministic (fixed seeds);
new models go at the end, so the earlier files stay byte for byte the same."""
import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "transforms", "controlflow_graph")
rng = np.random.default_rng(1234)


def save(graph, name, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="dcw-tests")
    onnx.checker.check_model(model)
    model = onnx.shape_inference.infer_shapes(model)
    onnx.save(model, os.path.join(OUT, name))


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# Relu -> Add: a two-op chain (the intermediate is a transient).
save(helper.make_graph(
    [helper.make_node("Relu", ["X"], ["R"], name="relu"), helper.make_node("Add", ["R", "B"], ["Y"], name="add")],
    "relu_add",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 4]), helper.make_tensor_value_info("B", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 4])]), "relu_add.onnx")

# MatMul -> Add with a constant bias [N] (a linear layer).
save(helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["T"], name="mm"), helper.make_node("Add", ["T", "bias"], ["Y"], name="add")],
    "matmul_add",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 4])],
    [numpy_helper.from_array(f32(5, 4), "W"), numpy_helper.from_array(f32(4), "bias")]), "matmul_add.onnx")

# MatMul -> Add with a non-constant bias [3, 1] as the first Add operand.
save(helper.make_graph(
    [helper.make_node("MatMul", ["A", "B"], ["T"], name="mm"), helper.make_node("Add", ["C", "T"], ["Y"], name="add")],
    "matmul_add_input_bias",
    [helper.make_tensor_value_info("A", TensorProto.FLOAT, [3, 6]), helper.make_tensor_value_info("B", TensorProto.FLOAT, [6, 4]),
     helper.make_tensor_value_info("C", TensorProto.FLOAT, [3, 1])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 4])]), "matmul_add_input_bias.onnx")

# MatMul -> Add where the MatMul output is also a graph output (must not fuse).
save(helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["T"], name="mm"), helper.make_node("Add", ["T", "bias"], ["Y"], name="add")],
    "matmul_add_shared",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 4]), helper.make_tensor_value_info("T", TensorProto.FLOAT, [3, 4])],
    [numpy_helper.from_array(f32(5, 4), "W"), numpy_helper.from_array(f32(4), "bias")]), "matmul_add_shared.onnx")


def conv_bn(name, with_bias, pads, strides):
    nodes = [helper.make_node("Conv", ["X", "W"] + (["cb"] if with_bias else []), ["C"], name="conv",
                              kernel_shape=[3, 3], pads=pads, strides=strides),
             helper.make_node("BatchNormalization", ["C", "scale", "beta", "mean", "var"], ["Y"], name="bn", epsilon=1e-3)]
    inits = [numpy_helper.from_array(f32(4, 3, 3, 3), "W"),
             numpy_helper.from_array(f32(4) * 0.5 + 1.0, "scale"), numpy_helper.from_array(f32(4), "beta"),
             numpy_helper.from_array(f32(4), "mean"),
             numpy_helper.from_array((np.abs(f32(4)) + 0.5).astype(np.float32), "var")]
    if with_bias:
        inits.append(numpy_helper.from_array(f32(4), "cb"))
    oh = (6 + pads[0] + pads[2] - 3) // strides[0] + 1
    ow = (7 + pads[1] + pads[3] - 3) // strides[1] + 1
    save(helper.make_graph(nodes, name, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 6, 7])],
                           [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 4, oh, ow])], inits), name + ".onnx")


conv_bn("conv_bn", True, [1, 1, 1, 1], [1, 1])
conv_bn("conv_bn_nobias", False, [0, 1, 0, 1], [2, 1])

# Conv -> BatchNormalization with a non-constant scale (must not fold).
save(helper.make_graph(
    [helper.make_node("Conv", ["X", "W"], ["C"], name="conv", kernel_shape=[1, 1]),
     helper.make_node("BatchNormalization", ["C", "scale", "beta", "mean", "var"], ["Y"], name="bn")],
    "conv_bn_input_scale",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 3, 3]), helper.make_tensor_value_info("scale", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 3, 3])],
    [numpy_helper.from_array(f32(2, 2, 1, 1), "W"), numpy_helper.from_array(f32(2), "beta"),
     numpy_helper.from_array(f32(2), "mean"), numpy_helper.from_array((np.abs(f32(2)) + 0.5).astype(np.float32), "var")]),
    "conv_bn_input_scale.onnx")

# Batched MatMul -> Add (3-D: must not become a Gemm).
save(helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["T"], name="mm"), helper.make_node("Add", ["T", "bias"], ["Y"], name="add")],
    "matmul3d_add",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3, 4])],
    [numpy_helper.from_array(f32(5, 4), "W"), numpy_helper.from_array(f32(4), "bias")]), "matmul3d_add.onnx")

# Conv -> BatchNormalization in training mode (opset 15: training_mode=1, running stats as outputs).
save(helper.make_graph(
    [helper.make_node("Conv", ["X", "W"], ["C"], name="conv", kernel_shape=[1, 1]),
     helper.make_node("BatchNormalization", ["C", "scale", "beta", "mean", "var"], ["Y", "rm", "rv"], name="bn",
                      training_mode=1)],
    "conv_bn_training",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 3, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 3, 3]),
     helper.make_tensor_value_info("rm", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("rv", TensorProto.FLOAT, [2])],
    [numpy_helper.from_array(f32(2, 2, 1, 1), "W"), numpy_helper.from_array(f32(2), "scale"),
     numpy_helper.from_array(f32(2), "beta"), numpy_helper.from_array(f32(2), "mean"),
     numpy_helper.from_array((np.abs(f32(2)) + 0.5).astype(np.float32), "var")]),
    "conv_bn_training.onnx", opset=15)


# ---- Epilogue fusions (GeluFusion, AddFusion, ActivationFusion) ----

def conv_node(name, x, w, out, bias=None, **attrs):
    return helper.make_node("Conv", [x, w] + ([bias] if bias else []), [out], name=name, **attrs)


# Conv -> Relu.
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", "cb", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["T"], ["Y"], name="relu")],
    "conv_relu", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 6, 7])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 6, 7])],
    [numpy_helper.from_array(f32(4, 3, 3, 3), "W"), numpy_helper.from_array(f32(4), "cb")]), "conv_relu.onnx")

# ResNet's block end: Conv -> Add(T, skip) -> Relu, the skip a model input.
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", "cb", kernel_shape=[1, 1]), helper.make_node("Add", ["T", "S"], ["U"], name="add"),
     helper.make_node("Relu", ["U"], ["Y"], name="relu")],
    "conv_add_relu", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 5, 5]),
                      helper.make_tensor_value_info("S", TensorProto.FLOAT, [1, 4, 5, 5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 5, 5])],
    [numpy_helper.from_array(f32(4, 3, 1, 1), "W"), numpy_helper.from_array(f32(4), "cb")]), "conv_add_relu.onnx")

# One Conv per activation, each with its own output (ReLU6 as Clip with constant bounds, opset 17).
acts = [("Relu", {}, []), ("LeakyRelu", {"alpha": 0.2}, []), ("Elu", {"alpha": 0.7}, []), ("Sigmoid", {}, []), ("Tanh", {}, []),
        ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, []), ("HardSwish", {}, []), ("Softplus", {}, []), ("Clip", {}, ["lo", "hi"])]
nodes, outs, inits = [], [], [numpy_helper.from_array(np.array(0.0, np.float32), "lo"), numpy_helper.from_array(np.array(6.0, np.float32), "hi")]
for k, (op, attrs, extra) in enumerate(acts):
    inits.append(numpy_helper.from_array((f32(3, 1, 3, 3) * 2).astype(np.float32), f"W{k}"))
    nodes.append(conv_node(f"conv{k}", "X", f"W{k}", f"T{k}", group=3, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node(op, [f"T{k}"] + extra, [f"Y{k}"], name=op.lower(), **attrs))
    outs.append(helper.make_tensor_value_info(f"Y{k}", TensorProto.FLOAT, [2, 3, 4, 4]))
save(helper.make_graph(nodes, "conv_activations", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 8, 7])], outs, inits),
     "conv_activations.onnx")

# A transformer's feed-forward input: MatMul -> Add(bias, T) -> GELU as PyTorch exports it (Div, Erf, Add, Mul, Mul).
# X [batch, rows, k] times W [k, n] (scaled by `scale`).
def matmul_bias_gelu(name, batch, rows, k, n, scale=1):
    save(helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["T"], name="mm"), helper.make_node("Add", ["bias", "T"], ["H"], name="add"),
         helper.make_node("Div", ["H", "sqrt2"], ["D"], name="div"), helper.make_node("Erf", ["D"], ["E"], name="Erf"),
         helper.make_node("Add", ["E", "one"], ["A"], name="add1"), helper.make_node("Mul", ["H", "A"], ["M"], name="mul"),
         helper.make_node("Mul", ["M", "half"], ["Y"], name="mul1")],
        name, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [batch, rows, k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [batch, rows, n])],
        [numpy_helper.from_array(scale * f32(k, n), "W"), numpy_helper.from_array(f32(n), "bias"),
         numpy_helper.from_array(np.array(1.4142135, np.float32), "sqrt2"), numpy_helper.from_array(np.array(1.0, np.float32), "one"),
         numpy_helper.from_array(np.array(0.5, np.float32), "half")]), name + ".onnx")


matmul_bias_gelu("matmul_bias_gelu", 2, 3, 5, 6)

# GELU written the other ways round: x * (1/sqrt(2)); halving as Mul(x, 0.5) then Mul(., 1 + erf).
save(helper.make_graph(
    [helper.make_node("Mul", ["rsqrt2", "X"], ["D"], name="scale"), helper.make_node("Erf", ["D"], ["E"], name="erf"),
     helper.make_node("Add", ["one", "E"], ["A"], name="add1"), helper.make_node("Mul", ["X", "half"], ["H"], name="halve"),
     helper.make_node("Mul", ["A", "H"], ["Y"], name="mul")],
    "gelu_variant", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, 9])], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4, 9])],
    [numpy_helper.from_array(np.array(0.70710678, np.float32), "rsqrt2"), numpy_helper.from_array(np.array(1.0, np.float32), "one"),
     numpy_helper.from_array(np.array(0.5, np.float32), "half")]), "gelu_variant.onnx")

# Not GELU: the Div is by 2.
save(helper.make_graph(
    [helper.make_node("Div", ["X", "two"], ["D"], name="div"), helper.make_node("Erf", ["D"], ["E"], name="erf"),
     helper.make_node("Add", ["E", "one"], ["A"], name="add1"), helper.make_node("Mul", ["X", "A"], ["M"], name="mul"),
     helper.make_node("Mul", ["M", "half"], ["Y"], name="mul1")],
    "not_gelu", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, 9])], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4, 9])],
    [numpy_helper.from_array(np.array(2.0, np.float32), "two"), numpy_helper.from_array(np.array(1.0, np.float32), "one"),
     numpy_helper.from_array(np.array(0.5, np.float32), "half")]), "not_gelu.onnx")

# Gemm (transB) -> HardSwish, as MobileNetV3's classifier (torch writes alpha and beta 1 explicitly).
save(helper.make_graph(
    [helper.make_node("Gemm", ["X", "W", "b"], ["T"], name="gemm", alpha=1.0, beta=1.0, transB=1), helper.make_node("HardSwish", ["T"], ["Y"], name="hardswish")],
    "gemm_hardswish", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 8])], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 5])],
    [numpy_helper.from_array((f32(5, 8) * 2).astype(np.float32), "W"), numpy_helper.from_array(f32(5), "b")]), "gemm_hardswish.onnx")

# Refusals: Conv -> Relu -> Add (the activation comes before the sum); the conv's result also a model
# output; an Add that broadcasts the conv's result.
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", kernel_shape=[1, 1]), helper.make_node("Relu", ["T"], ["R"], name="relu"),
     helper.make_node("Add", ["R", "S"], ["Y"], name="add")],
    "conv_relu_add", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 3, 3]),
                      helper.make_tensor_value_info("S", TensorProto.FLOAT, [1, 2, 3, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 3, 3])], [numpy_helper.from_array(f32(2, 2, 1, 1), "W")]), "conv_relu_add.onnx")
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", kernel_shape=[1, 1]), helper.make_node("Relu", ["T"], ["Y"], name="relu")],
    "conv_relu_shared", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 3, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 3, 3]), helper.make_tensor_value_info("T", TensorProto.FLOAT, [1, 2, 3, 3])],
    [numpy_helper.from_array(f32(2, 2, 1, 1), "W")]), "conv_relu_shared.onnx")
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", kernel_shape=[3, 3]), helper.make_node("Add", ["T", "S"], ["Y"], name="add")],
    "conv_add_broadcasts_result", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 3, 3]),
                                   helper.make_tensor_value_info("S", TensorProto.FLOAT, [1, 2, 4, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 4, 4])], [numpy_helper.from_array(f32(2, 2, 3, 3), "W")]),
    "conv_add_broadcasts_result.onnx")

# MatMul -> Add(bias) -> Add(residual): one Z per fused op, so the second Add stays.
save(helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["T"], name="mm"), helper.make_node("Add", ["T", "bias"], ["H"], name="add"),
     helper.make_node("Add", ["H", "R"], ["Y"], name="residual")],
    "matmul_bias_residual", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 5]),
                             helper.make_tensor_value_info("R", TensorProto.FLOAT, [2, 3, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3, 4])],
    [numpy_helper.from_array(f32(5, 4), "W"), numpy_helper.from_array(f32(4), "bias")]), "matmul_bias_residual.onnx")

# EfficientNet's Conv -> SiLU as exported: Sigmoid(T), Mul(T, S) (SiluFusion, then ActivationFusion).
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", "cb", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), helper.make_node("Sigmoid", ["T"], ["S"], name="Sigmoid"),
     helper.make_node("Mul", ["T", "S"], ["Y"], name="mul")],
    "conv_silu", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 6, 5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 6, 5])],
    [numpy_helper.from_array(f32(4, 3, 3, 3), "W"), numpy_helper.from_array(f32(4), "cb")]), "conv_silu.onnx")

# A squeeze-and-excitation gate, X * Sigmoid(G): no SiLU.
save(helper.make_graph(
    [helper.make_node("Sigmoid", ["G"], ["S"], name="sigmoid"), helper.make_node("Mul", ["X", "S"], ["Y"], name="mul")],
    "sigmoid_gate", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4, 3, 3]),
                     helper.make_tensor_value_info("G", TensorProto.FLOAT, [1, 4, 3, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 3, 3])]), "sigmoid_gate.onnx")

# Conv -> Add(T, S[1, 1, H, W]) -> Relu: a spatial broadcast oneDNN's post-ops do not take.
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", kernel_shape=[1, 1]), helper.make_node("Add", ["T", "S"], ["U"], name="add"),
     helper.make_node("Relu", ["U"], ["Y"], name="relu")],
    "conv_add_spatial", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 4, 5]),
                         helper.make_tensor_value_info("S", TensorProto.FLOAT, [1, 1, 4, 5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 4, 5])], [numpy_helper.from_array(f32(2, 3, 1, 1), "W")]),
    "conv_add_spatial.onnx")

# A small CNN block for ChannelsLast: Conv -> Relu -> B; B -> MaxPool -> C and B -> Reshape (a reader
# that takes row-major arrays only); C -> depthwise Conv -> D; Add(D, C) -> E; Concat(E, C) -> F;
# BatchNormalization -> G; GlobalAveragePool -> H[1, 16, 1, 1]; Flatten -> Y.
save(helper.make_graph(
    [conv_node("conv", "X", "W1", "A", "b1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["A"], ["B"], name="relu"),
     helper.make_node("MaxPool", ["B"], ["C"], name="pool", kernel_shape=[2, 2]),
     helper.make_node("Reshape", ["B", "flat"], ["Y2"], name="reshape"),
     conv_node("dwconv", "C", "W2", "D", group=8, kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
     helper.make_node("Add", ["D", "C"], ["E"], name="add"),
     helper.make_node("Concat", ["E", "C"], ["F"], name="concat", axis=1),
     helper.make_node("BatchNormalization", ["F", "s", "o", "mu", "var"], ["G"], name="bn"),
     helper.make_node("GlobalAveragePool", ["G"], ["H"], name="gap"),
     helper.make_node("Flatten", ["H"], ["Y"], name="flatten")],
    "channels_last_block", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 9, 7])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 16]), helper.make_tensor_value_info("Y2", TensorProto.FLOAT, [1, 504])],
    [numpy_helper.from_array(f32(8, 3, 3, 3), "W1"), numpy_helper.from_array(f32(8), "b1"),
     numpy_helper.from_array(f32(8, 1, 3, 3), "W2"), numpy_helper.from_array(np.array([1, 504], np.int64), "flat"),
     numpy_helper.from_array(f32(16), "s"), numpy_helper.from_array(f32(16), "o"), numpy_helper.from_array(f32(16), "mu"),
     numpy_helper.from_array((np.abs(f32(16)) + 0.5).astype(np.float32), "var")]), "channels_last_block.onnx")

# DenseNet's layer entry: BatchNormalization -> Relu -> 1x1 Conv (the BN cannot fold into a convolution
# before it); and the same BN ending in LeakyRelu, which oneDNN's fused batch normalization refuses.
bn_inits = [numpy_helper.from_array(f32(6), "s"), numpy_helper.from_array(f32(6), "o"), numpy_helper.from_array(f32(6), "mu"),
            numpy_helper.from_array((np.abs(f32(6)) + 0.5).astype(np.float32), "var"), numpy_helper.from_array(f32(4, 6, 1, 1), "W")]
save(helper.make_graph(
    [helper.make_node("BatchNormalization", ["X", "s", "o", "mu", "var"], ["T"], name="bn", epsilon=1e-3),
     helper.make_node("Relu", ["T"], ["R"], name="relu"), conv_node("conv", "R", "W", "Y", kernel_shape=[1, 1])],
    "bn_relu_conv", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 6, 5, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 4, 5, 4])], bn_inits), "bn_relu_conv.onnx")
save(helper.make_graph(
    [helper.make_node("BatchNormalization", ["X", "s", "o", "mu", "var"], ["T"], name="bn"),
     helper.make_node("LeakyRelu", ["T"], ["Y"], name="leaky", alpha=0.1)],
    "bn_leakyrelu", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 6, 5, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 6, 5, 4])], bn_inits[:4]), "bn_leakyrelu.onnx")

# DenseNet's layer: Concat of the block input, an earlier layer's output and a convolution's along the
# channels -> BatchNormalization -> Relu -> 1x1 Conv (ConcatBatchNormFusion: the BN, with its Relu once
# ActivationFusion made it a FusedBatchNormalization, folds into the copy); a BN without activation;
# and refusals: a Concat along H, a concatenation the model also returns.
cbn_inits = [numpy_helper.from_array(f32(6, 6, 3, 3), "Wg"), numpy_helper.from_array(f32(15), "s"), numpy_helper.from_array(f32(15), "o"),
             numpy_helper.from_array(f32(15), "mu"), numpy_helper.from_array((np.abs(f32(15)) + 0.5).astype(np.float32), "var"),
             numpy_helper.from_array(f32(4, 15, 1, 1), "W")]
save(helper.make_graph(
    [conv_node("convg", "X0", "Wg", "G", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
     helper.make_node("Concat", ["X0", "X1", "G"], ["C"], name="concat", axis=1),
     helper.make_node("BatchNormalization", ["C", "s", "o", "mu", "var"], ["T"], name="bn", epsilon=1e-3),
     helper.make_node("Relu", ["T"], ["R"], name="relu"), conv_node("conv", "R", "W", "Y", kernel_shape=[1, 1])],
    "concat_bn_relu_conv", [helper.make_tensor_value_info("X0", TensorProto.FLOAT, [2, 6, 5, 4]),
                            helper.make_tensor_value_info("X1", TensorProto.FLOAT, [2, 3, 5, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 4, 5, 4])], cbn_inits), "concat_bn_relu_conv.onnx")
save(helper.make_graph(
    [helper.make_node("Concat", ["X0", "X1"], ["C"], name="concat", axis=-3),
     helper.make_node("BatchNormalization", ["C", "s", "o", "mu", "var"], ["Y"], name="bn")],
    "concat_bn", [helper.make_tensor_value_info("X0", TensorProto.FLOAT, [2, 9, 5, 4]),
                  helper.make_tensor_value_info("X1", TensorProto.FLOAT, [2, 6, 5, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 15, 5, 4])], cbn_inits[1:5]), "concat_bn.onnx")
save(helper.make_graph(
    [helper.make_node("Concat", ["X0", "X1"], ["C"], name="concat", axis=2),
     helper.make_node("BatchNormalization", ["C", "s", "o", "mu", "var"], ["Y"], name="bn")],
    "concat_h_bn", [helper.make_tensor_value_info("X0", TensorProto.FLOAT, [2, 15, 2, 4]),
                    helper.make_tensor_value_info("X1", TensorProto.FLOAT, [2, 15, 3, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 15, 5, 4])], cbn_inits[1:5]), "concat_h_bn.onnx")
save(helper.make_graph(
    [helper.make_node("Concat", ["X0", "X1"], ["C"], name="concat", axis=1),
     helper.make_node("BatchNormalization", ["C", "s", "o", "mu", "var"], ["Y"], name="bn")],
    "concat_bn_shared", [helper.make_tensor_value_info("X0", TensorProto.FLOAT, [2, 9, 5, 4]),
                         helper.make_tensor_value_info("X1", TensorProto.FLOAT, [2, 6, 5, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 15, 5, 4]), helper.make_tensor_value_info("C", TensorProto.FLOAT, [2, 15, 5, 4])],
    cbn_inits[1:5]), "concat_bn_shared.onnx")

# A squeeze-and-excitation block as torchvision exports EfficientNet's (SqueezeExcitationFusion):
# GlobalAveragePool -> Conv 1x1 -> Relu -> Conv 1x1 -> Sigmoid -> S[1, 8, 1, 1]; Mul(S, X) -> T;
# then a 3x3 convolution (pads 1, bias) of T and a residual Add of X. `se_block_shared` also returns T
# (another reader); `se_block_grouped` convolves T in 2 groups; `se_block_per_image` has a batch of 2
# (each image its own scale).
def se_block(name, batch=1, group=1, t_out=False):
    inits = [numpy_helper.from_array(f32(4, 8, 1, 1), "W1"), numpy_helper.from_array(f32(4), "b1"),
             numpy_helper.from_array(f32(8, 4, 1, 1), "W2"), numpy_helper.from_array(f32(8), "b2"),
             numpy_helper.from_array(f32(8, 8 // group, 3, 3), "W"), numpy_helper.from_array(f32(8), "cb")]
    outs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [batch, 8, 12, 10])]
    if t_out:
        outs.append(helper.make_tensor_value_info("T", TensorProto.FLOAT, [batch, 8, 12, 10]))
    save(helper.make_graph(
        [helper.make_node("GlobalAveragePool", ["X"], ["P"], name="pool"), conv_node("fc1", "P", "W1", "Q", "b1", kernel_shape=[1, 1]),
         helper.make_node("Relu", ["Q"], ["R"], name="relu"), conv_node("fc2", "R", "W2", "G", "b2", kernel_shape=[1, 1]),
         helper.make_node("Sigmoid", ["G"], ["S"], name="sigmoid"), helper.make_node("Mul", ["S", "X"], ["T"], name="scale"),
         conv_node("project", "T", "W", "U", "cb", kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=group),
         helper.make_node("Add", ["U", "X"], ["Y"], name="residual")],
        name, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [batch, 8, 12, 10])], outs, inits), name + ".onnx")


se_block("se_block")
se_block("se_block_shared", t_out=True)
se_block("se_block_grouped", group=2)
se_block("se_block_per_image", batch=2)

# Activations wide enough for DCW's pass after a oneDNN call (PostOps.h: 4096 elements or more; 32768
# or more on several threads), with an odd element count (the pass's scalar tail) and large
# pre-activations (weights scaled up: the exponential's clamps):
# `conv_silu_wide`: Conv 3x3 (13 channels at 53x53 = 36517 values) -> SiLU as exported -> Conv 1x1 -> Y,
# so the SiLU's result is a transient (channels-last under auto-optimize).
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", "cb", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), helper.make_node("Sigmoid", ["T"], ["S"], name="Sigmoid"),
     helper.make_node("Mul", ["T", "S"], ["U"], name="mul"), conv_node("project", "U", "W2", "Y", "cb2", kernel_shape=[1, 1])],
    "conv_silu_wide", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 53, 53])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 5, 53, 53])],
    [numpy_helper.from_array(30 * f32(13, 3, 3, 3), "W"), numpy_helper.from_array(f32(13), "cb"),
     numpy_helper.from_array(f32(5, 13, 1, 1), "W2"), numpy_helper.from_array(f32(5), "cb2")]), "conv_silu_wide.onnx")

# `matmul_bias_gelu_wide`: a feed-forward input of 2 x 70 x 50 = 7000 values, GELU as PyTorch exports it.
matmul_bias_gelu("matmul_bias_gelu_wide", 2, 70, 40, 50, scale=3)

# `channel_shuffles`: ShuffleNet's channel shuffle after a concatenation (Concat -> Reshape into groups ->
# Transpose(0, 2, 1, 3, 4) -> Reshape back), pieces a = Relu(X) and b = Neg(Z) of [2, 4, 3, 5]:
# concat1 (two pieces, then a Sigmoid) and concat3 (three pieces a, b, a into 3 groups, the model's
# output) are shuffles; concat_perm transposes the last two dims instead, concat_shared's concatenation
# is also read by a Neg, and concat_groups splits the 8 channels into 4 groups of 2 (not one per piece).
def channel_shuffles():
    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)
    inits = [ints("g2", [2, 2, 4, 3, 5]), ints("m8", [2, 8, 3, 5]), ints("g3", [2, 3, 4, 3, 5]), ints("m12", [2, 12, 3, 5]),
             ints("g4", [2, 4, 2, 3, 5])]
    swap = [0, 2, 1, 3, 4]

    def shuffle(name, pieces, groups, merged, perm, out):
        return [helper.make_node("Concat", pieces, ["t_" + name], name="concat_" + name, axis=1),
                helper.make_node("Reshape", ["t_" + name, groups], ["u_" + name], name="split_" + name),
                helper.make_node("Transpose", ["u_" + name], ["v_" + name], name="transpose_" + name, perm=perm),
                helper.make_node("Reshape", ["v_" + name, merged], [out], name="merge_" + name)]

    nodes = [helper.make_node("Relu", ["X"], ["a"], name="relu_a"), helper.make_node("Neg", ["Z"], ["b"], name="neg_b")]
    nodes += shuffle("1", ["a", "b"], "g2", "m8", swap, "y1") + [helper.make_node("Sigmoid", ["y1"], ["Y1"], name="sig1")]
    nodes += shuffle("3", ["a", "b", "a"], "g3", "m12", swap, "Y3")
    nodes += shuffle("perm", ["a", "b"], "g2", "m8", [0, 1, 2, 4, 3], "Y_perm")
    nodes += shuffle("shared", ["a", "b"], "g2", "m8", swap, "Y_shared") + [helper.make_node("Neg", ["t_shared"], ["Y_t"], name="neg_shared")]
    nodes += shuffle("groups", ["a", "b"], "g4", "m8", swap, "Y_groups")
    outs = {"Y1": [2, 8, 3, 5], "Y3": [2, 12, 3, 5], "Y_perm": [2, 8, 3, 5], "Y_shared": [2, 8, 3, 5], "Y_t": [2, 8, 3, 5],
            "Y_groups": [2, 8, 3, 5]}
    save(helper.make_graph(nodes, "channel_shuffles",
                           [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 4, 3, 5]) for n in ("X", "Z")],
                           [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outs.items()], inits),
         "channel_shuffles.onnx")


channel_shuffles()


# MatMulScaleFusion: attention scores of scaled queries, Div(Q, 2.5) x K, plus a bias-shaped mask [4] (AddFusion
# then adds it after the scale, not as the matmul's bias), times Mul(0.5, V) as the second matmul's B.
# Refusals: a Div of the constant by X2 (c / X2), a Mul by a per-row constant [4, 1], a scaled X2 that a Neg reads too.
def scaled_matmuls():
    t = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
    nodes = [
        helper.make_node("Div", ["Q", "c25"], ["Qs"], name="div"), helper.make_node("MatMul", ["Qs", "K"], ["S0"], name="mm"),
        helper.make_node("Add", ["S0", "mask"], ["S"], name="add"), helper.make_node("Mul", ["half", "V"], ["Vs"], name="mul"),
        helper.make_node("MatMul", ["S", "Vs"], ["Y"], name="mm2"),
        helper.make_node("Div", ["c2", "X2"], ["R"], name="rdiv"), helper.make_node("MatMul", ["R", "K2"], ["Y3"], name="mm3"),
        helper.make_node("Mul", ["X2", "rowc"], ["R2"], name="rowmul"), helper.make_node("MatMul", ["R2", "K2"], ["Y4"], name="mm4"),
        helper.make_node("Mul", ["X2", "c3"], ["R3"], name="shared"), helper.make_node("MatMul", ["R3", "K2"], ["Y5"], name="mm5"),
        helper.make_node("Neg", ["R3"], ["Y6"], name="neg"),
    ]
    inits = [numpy_helper.from_array(np.array(2.5, np.float32), "c25"), numpy_helper.from_array(np.array(0.5, np.float32), "half"),
             numpy_helper.from_array(f32(4), "mask"), numpy_helper.from_array(np.array(2.0, np.float32), "c2"),
             numpy_helper.from_array(np.array(3.0, np.float32), "c3"), numpy_helper.from_array(f32(4, 1), "rowc")]
    save(helper.make_graph(nodes, "scaled_matmuls", [t("Q", [2, 3, 4, 5]), t("K", [2, 3, 5, 4]), t("V", [2, 3, 4, 5]), t("X2", [4, 5]),
                                                   t("K2", [5, 3])],
                           [t("Y", [2, 3, 4, 5]), t("Y3", [4, 3]), t("Y4", [4, 3]), t("Y5", [4, 3]), t("Y6", [4, 5])], inits),
         "scaled_matmuls.onnx")


scaled_matmuls()

# An image network's stem for InputChannelsLast: the model input X -> 7x7 Conv of stride 2 -> Relu ->
# 3x3 MaxPool of stride 2, as ResNet-50 begins (X large enough that the copy runs on the threads).
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", "cb", kernel_shape=[7, 7], strides=[2, 2], pads=[3, 3, 3, 3]),
     helper.make_node("Relu", ["T"], ["R"], name="relu"),
     helper.make_node("MaxPool", ["R"], ["Y"], name="pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
    "stem_7x7", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 112, 104])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 8, 28, 26])],
    [numpy_helper.from_array(f32(8, 3, 7, 7), "W"), numpy_helper.from_array(f32(8), "cb")]), "stem_7x7.onnx")

# ---- LayerNormFusion: a layer norm written as ops, over the last axis of [2, 5, 16] ----

def layer_norm_nodes(x, axes, square="pow", divide="div", eps_inside=True, beta=True, prefix="ln"):
    n = [helper.make_node("ReduceMean", [x], [f"{prefix}_mu"], name=f"{prefix}/ReduceMean", axes=axes),
         helper.make_node("Sub", [x, f"{prefix}_mu"], [f"{prefix}_d"], name=f"{prefix}/Sub")]
    if square == "pow":
        n.append(helper.make_node("Pow", [f"{prefix}_d", "two"], [f"{prefix}_d2"], name=f"{prefix}/Pow"))
    else:
        n.append(helper.make_node("Mul", [f"{prefix}_d", f"{prefix}_d"], [f"{prefix}_d2"], name=f"{prefix}/Square"))
    n.append(helper.make_node("ReduceMean", [f"{prefix}_d2"], [f"{prefix}_var"], name=f"{prefix}/ReduceMean_1", axes=axes))
    if eps_inside:
        n += [helper.make_node("Add", ["eps", f"{prefix}_var"], [f"{prefix}_ve"], name=f"{prefix}/Add"),
              helper.make_node("Sqrt", [f"{prefix}_ve"], [f"{prefix}_s"], name=f"{prefix}/Sqrt")]
    else:
        n += [helper.make_node("Sqrt", [f"{prefix}_var"], [f"{prefix}_sv"], name=f"{prefix}/Sqrt"),
              helper.make_node("Add", [f"{prefix}_sv", "eps"], [f"{prefix}_s"], name=f"{prefix}/Add")]
    if divide == "div":
        n.append(helper.make_node("Div", [f"{prefix}_d", f"{prefix}_s"], [f"{prefix}_n"], name=f"{prefix}/Div"))
    else:
        n += [helper.make_node("Reciprocal", [f"{prefix}_s"], [f"{prefix}_r"], name=f"{prefix}/Reciprocal"),
              helper.make_node("Mul", [f"{prefix}_r", f"{prefix}_d"], [f"{prefix}_n"], name=f"{prefix}/Mul_r")]
    out = "Y" if not beta else f"{prefix}_g"
    n.append(helper.make_node("Mul", ["gamma", f"{prefix}_n"], [out], name=f"{prefix}/Mul"))
    if beta:
        n.append(helper.make_node("Add", [f"{prefix}_g", "beta"], ["Y"], name=f"{prefix}/Add_1"))
    return n


def layer_norm_model(name, opset, axes=[-1], shape=[2, 5, 16], **kw):
    norm = shape[len(shape) + min(axes):] if min(axes) < 0 else shape[min(axes):]
    inits = [numpy_helper.from_array(np.array(2.0, np.float32), "two")] if kw.get("square", "pow") == "pow" else []
    inits += [numpy_helper.from_array(np.array(1e-5, np.float32), "eps"), numpy_helper.from_array((f32(*norm) * 0.5 + 1).astype(np.float32), "gamma")]
    inits += [numpy_helper.from_array(f32(*norm), "beta")] if kw.get("beta", True) else []
    save(helper.make_graph(layer_norm_nodes("X", axes, **kw), name.replace(".onnx", ""),
                           [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                           [helper.make_tensor_value_info("Y", TensorProto.FLOAT, shape)], inits), name, opset=opset)


layer_norm_model("layernorm_decomposed.onnx", 13)                                             # as torch writes it before opset 17
layer_norm_model("layernorm_square_reciprocal.onnx", 11, square="mul", divide="reciprocal", beta=False)
layer_norm_model("layernorm_two_axes.onnx", 13, axes=[-2, -1])                               # over [5, 16]
layer_norm_model("layernorm_eps_outside.onnx", 13, eps_inside=False)                         # refused: another formula
layer_norm_model("layernorm_middle_axis.onnx", 13, axes=[1], shape=[2, 16, 5])               # refused: not trailing axes

# (Added after every earlier model, so that the seeded weights of those stay what they were.)
# Conv -> HardSigmoid(alpha 1/6, beta 0.5) -> Mul(T, S): HardSwish as torch exports it before opset 14.
save(helper.make_graph(
    [conv_node("conv", "X", "W", "T", "cb", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
     helper.make_node("HardSigmoid", ["T"], ["S"], name="HardSigmoid", alpha=1.0 / 6, beta=0.5),
     helper.make_node("Mul", ["S", "T"], ["Y"], name="mul")],
    "conv_hardswish", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 6, 5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 6, 5])],
    [numpy_helper.from_array(4 * f32(4, 3, 3, 3), "W"), numpy_helper.from_array(f32(4), "cb")]), "conv_hardswish.onnx", opset=13)

# X * HardSigmoid(X) with ONNX's default alpha 0.2: a scaled gate, no HardSwish.
save(helper.make_graph(
    [helper.make_node("HardSigmoid", ["X"], ["S"], name="gate"), helper.make_node("Mul", ["X", "S"], ["Y"], name="mul")],
    "hardsigmoid_default", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4, 3, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 3, 3])]), "hardsigmoid_default.onnx", opset=13)
