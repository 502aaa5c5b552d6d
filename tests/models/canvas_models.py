#!/usr/bin/python3
"""Writes tests/data/canvas: models whose shape on the canvas matters to a GUI test.

wide_branches.onnx: one input feeding 24 parallel branches (Relu, Sigmoid or Tanh, then Mul by 2)
summed at the end, so the laid-out graph is far wider than a window and its input sits at the top,
in the middle (tst_MainWindow checks that the first view shows it).

usage: canvas_models.py  (writes into tests/data/canvas)
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "canvas")


def wide_branches():
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [8])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [8])
    nodes, outs = [], []
    for i in range(24):
        act = ["Relu", "Sigmoid", "Tanh"][i % 3]
        nodes.append(helper.make_node(act, ["X"], [f"a{i}"], name=f"branch{i}_{act}"))
        nodes.append(helper.make_node("Mul", [f"a{i}", "two"], [f"m{i}"], name=f"branch{i}_Mul"))
        outs.append(f"m{i}")
    nodes.append(helper.make_node("Sum", outs, ["Y"], name="sum_branches"))
    graph = helper.make_graph(nodes, "wide_branches", [x], [y], initializer=[helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, "wide_branches.onnx"))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    wide_branches()
