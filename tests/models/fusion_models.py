#!/usr/bin/python3
"""Small ONNX models for the fusion transformation tests (tests/tst_*Fusion*.cpp).

Writes tests/data/transforms/fusion/*.onnx (a few hundred bytes each). Run from anywhere:
    /usr/bin/python3 tests/models/fusion_models.py
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "transforms", "fusion")


def save(name, nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="dcw-fusion-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def t(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def main():
    os.makedirs(OUT, exist_ok=True)
    s = [3, 4, 5]
    # Add -> Relu: a two-op chain with two external inputs.
    save("add_relu", [helper.make_node("Add", ["X", "Y"], ["T"], name="add"),
                      helper.make_node("Relu", ["T"], ["Z"], name="relu")],
         [t("X", s), t("Y", s)], [t("Z", s)])
    # Mul -> Sigmoid -> Mul (X reused at both ends), then Tanh: a four-op chain.
    save("mul_sigmoid_mul_tanh", [helper.make_node("Mul", ["X", "Y"], ["T1"], name="mul1"),
                                  helper.make_node("Sigmoid", ["T1"], ["T2"], name="sigmoid"),
                                  helper.make_node("Mul", ["T2", "X"], ["T3"], name="mul2"),
                                  helper.make_node("Tanh", ["T3"], ["Z"], name="tanh")],
         [t("X", s), t("Y", s)], [t("Z", s)])
    # float64 LeakyRelu -> Neg -> Exp, with an attribute.
    save("leakyrelu_neg_exp_f64", [helper.make_node("LeakyRelu", ["X"], ["T1"], name="leaky", alpha=0.2),
                                   helper.make_node("Neg", ["T1"], ["T2"], name="neg"),
                                   helper.make_node("Exp", ["T2"], ["Z"], name="exp")],
         [t("X", s, TensorProto.DOUBLE)], [t("Z", s, TensorProto.DOUBLE)])
    # Broadcasting Add ([3,4,5] + [5]) -> Relu: refused (shapes differ).
    save("add_bcast_relu", [helper.make_node("Add", ["X", "B"], ["T"], name="add"),
                            helper.make_node("Relu", ["T"], ["Z"], name="relu")],
         [t("X", s), t("B", [5])], [t("Z", s)])
    # Add whose result feeds two ops: refused (the intermediate is read twice).
    save("add_two_readers", [helper.make_node("Add", ["X", "Y"], ["T"], name="add"),
                             helper.make_node("Relu", ["T"], ["Z1"], name="relu"),
                             helper.make_node("Sigmoid", ["T"], ["Z2"], name="sigmoid")],
         [t("X", s), t("Y", s)], [t("Z1", s), t("Z2", s)])
    # GELU's tanh form as torch writes it before opset 20 (nn.GELU(approximate="tanh")), with its
    # scalar constants as initializers and the halving of X beside the tanh branch: one fused subgraph.
    import math
    consts = [helper.make_tensor(n, TensorProto.FLOAT, [], [v]) for n, v in
              [("three", 3.0), ("kappa", 0.044715), ("beta", math.sqrt(2 / math.pi)), ("one", 1.0), ("half", 0.5)]]
    graph = helper.make_graph(
        [helper.make_node("Pow", ["X", "three"], ["P"], name="pow"),
         helper.make_node("Mul", ["P", "kappa"], ["Q"], name="mul_kappa"),
         helper.make_node("Add", ["X", "Q"], ["R"], name="add_x"),
         helper.make_node("Mul", ["R", "beta"], ["S"], name="mul_beta"),
         helper.make_node("Tanh", ["S"], ["T"], name="tanh"),
         helper.make_node("Add", ["T", "one"], ["U"], name="add_one"),
         helper.make_node("Mul", ["X", "half"], ["H"], name="half_x"),
         helper.make_node("Mul", ["H", "U"], ["Z"], name="mul_out")],
        "gelu_tanh", [t("X", s)], [t("Z", s)], initializer=consts)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="dcw-fusion-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, "gelu_tanh.onnx"))


if __name__ == "__main__":
    main()
