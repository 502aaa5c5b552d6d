#!/usr/bin/env python3
"""Small ONNX models for the controlflow_graph transformation tests (InlineNestedSDFG, StateFusion,
ConvBatchNormFolding, MatMulAddToGemm). Run with /usr/bin/python3; writes into
tests/data/transforms/controlflow_graph/. Deterministic (fixed seeds)."""
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
