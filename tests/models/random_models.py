#!/usr/bin/python3
"""Small ONNX models of the random ops (tests/tst_Random.cpp): their outputs are checked by
distribution (mean, variance, range), not against ONNX Runtime, whose generator is its own.
Run with /usr/bin/python3 from the repository root; writes tests/data/random/*.onnx."""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "random")


def save(nodes, name, inputs, outputs, inits=(), opset=15):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="dcw-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    os.makedirs(OUT, exist_ok=True)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def generators():
    # U ~ uniform [-2, 3) (seeded), N ~ normal(1, 2) (seeded), V ~ uniform [0, 1) in X's shape (unseeded),
    # B ~ Bernoulli(P) elementwise.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [200, 100])
    p = helper.make_tensor_value_info("P", TensorProto.FLOAT, [200, 100])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [200, 100]) for n in ("U", "N", "V")]
    outs.append(helper.make_tensor_value_info("B", TensorProto.FLOAT, [200, 100]))
    nodes = [
        helper.make_node("RandomUniform", [], ["U"], name="uniform", shape=[200, 100], low=-2.0, high=3.0, seed=7.0,
                         dtype=TensorProto.FLOAT),
        helper.make_node("RandomNormal", [], ["N"], name="normal", shape=[200, 100], mean=1.0, scale=2.0, seed=7.0,
                         dtype=TensorProto.FLOAT),
        helper.make_node("RandomUniformLike", ["X"], ["V"], name="uniform_like"),
        helper.make_node("Bernoulli", ["P"], ["B"], name="bernoulli", seed=3.0),
    ]
    save(nodes, "generators", [x, p], outs)


def training_dropout():
    # Dropout with a run-time training_mode and ratio 0.25: Y and the mask.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [100, 200])
    t = helper.make_tensor_value_info("training", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [100, 200])
    m = helper.make_tensor_value_info("mask", TensorProto.BOOL, [100, 200])
    ratio = helper.make_tensor("ratio", TensorProto.FLOAT, [], [0.25])
    nodes = [helper.make_node("Dropout", ["X", "ratio", "training"], ["Y", "mask"], name="dropout", seed=5)]
    save(nodes, "training_dropout", [x, t], [y, m], [ratio])


def multinomial():
    # 4 rows of log-probabilities (a run-time input), 5,000 draws per row, int64 classes.
    x = helper.make_tensor_value_info("L", TensorProto.FLOAT, [4, 3])
    y = helper.make_tensor_value_info("Y", TensorProto.INT64, [4, 5000])
    nodes = [helper.make_node("Multinomial", ["L"], ["Y"], name="multinomial", sample_size=5000, seed=11.0,
                              dtype=TensorProto.INT64)]
    save(nodes, "multinomial", [x], [y])


if __name__ == "__main__":
    generators()
    training_dropout()
    multinomial()
