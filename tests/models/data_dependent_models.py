#!/usr/bin/python3
"""Writes the fixtures of tests/data/datadependent: models whose output sizes depend on the values
(NonZero, Compress with a run-time condition, Unique, NonMaxSuppression), with dynamic batch dims and
ops after the data-dependent one, as detection and token-filtering models use them. ctest
compare_datadependent_* runs them against ONNX Runtime at two input sizes, from the .onnx and from the
saved .dcw.json; tst_DynamicExtent checks what they import as, and that a count in a subgraph is refused.

usage: data_dependent_models.py  (writes into tests/data/datadependent)
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "datadependent")


def save(nodes, name, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def ints(name, values, dims=None):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)] if dims is None else dims, values)


def floats(name, values, dims=None):
    return helper.make_tensor(name, TensorProto.FLOAT, [len(values)] if dims is None else dims, values)


def nonzero_chain():
    # The positions of the positive elements, as [K, 2] rows, their values and their sum.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 5])
    pos = helper.make_tensor_value_info("positions", TensorProto.INT64, [None, 2])
    vals = helper.make_tensor_value_info("values", TensorProto.FLOAT, [None])
    total = helper.make_tensor_value_info("total", TensorProto.FLOAT, [])
    count = helper.make_tensor_value_info("count", TensorProto.INT64, [1])
    nodes = [
        helper.make_node("Greater", ["X", "zero"], ["mask"]),
        helper.make_node("NonZero", ["mask"], ["nz"]),
        helper.make_node("Transpose", ["nz"], ["positions"], perm=[1, 0]),
        helper.make_node("GatherND", ["X", "positions"], ["values"]),
        helper.make_node("ReduceSum", ["values"], ["total"], keepdims=0),
        helper.make_node("Shape", ["values"], ["count"]),
    ]
    save(nodes, "nonzero_chain", [x], [pos, vals, total, count], [floats("zero", [0.0], [])])


def compress_unique():
    # The columns with a positive maximum, times two; the distinct values of floor(2x) with their
    # first positions, inverse and counts.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 6])
    kept = helper.make_tensor_value_info("kept", TensorProto.FLOAT, ["batch", None])
    u = helper.make_tensor_value_info("distinct", TensorProto.FLOAT, [None])
    idx = helper.make_tensor_value_info("first", TensorProto.INT64, [None])
    inv = helper.make_tensor_value_info("inverse", TensorProto.INT64, [None])
    cnt = helper.make_tensor_value_info("counts", TensorProto.INT64, [None])
    rows = helper.make_tensor_value_info("rows", TensorProto.FLOAT, [None, 6])
    nodes = [
        helper.make_node("ReduceMax", ["X"], ["colmax"], axes=[0], keepdims=0),
        helper.make_node("Greater", ["colmax", "zero"], ["cond"]),
        helper.make_node("Compress", ["X", "cond"], ["c"], axis=1),
        helper.make_node("Mul", ["c", "two"], ["kept"]),
        helper.make_node("Mul", ["X", "two"], ["x2"]),
        helper.make_node("Floor", ["x2"], ["fl"]),
        helper.make_node("Unique", ["fl"], ["distinct", "first", "inverse", "counts"], sorted=1),
        helper.make_node("Floor", ["X"], ["rowfl"]),
        helper.make_node("Unique", ["rowfl"], ["rows", "", "", ""], axis=0, sorted=0),
    ]
    save(nodes, "compress_unique", [x], [kept, u, idx, inv, cnt, rows], [floats("zero", [0.0], []), floats("two", [2.0], [])])


def detections():
    # NonMaxSuppression over dynamic boxes, then the selected boxes gathered by their indices.
    boxes = helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, "n", 4])
    scores = helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 2, "n"])
    sel = helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3])
    chosen = helper.make_tensor_value_info("chosen", TensorProto.FLOAT, [None, 4])
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "min_score"], ["selected"]),
        helper.make_node("Gather", ["selected", "two"], ["which"], axis=1),
        helper.make_node("Squeeze", ["boxes", "zero"], ["all"]),
        helper.make_node("Gather", ["all", "which"], ["chosen"], axis=0),
    ]
    save(nodes, "detections", [boxes, scores], [sel, chosen],
         [ints("max_out", [3], []), floats("iou", [0.3], []), floats("min_score", [0.0], []), ints("two", [2], []),
          ints("zero", [0])])


def in_subgraph():
    # NonZero in an If branch: its count could not shape what follows the If (refused, naming it).
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("Y", TensorProto.INT64, [1, None])
    then = helper.make_graph([helper.make_node("NonZero", ["X"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.INT64, [1, None])])
    other = helper.make_graph([helper.make_node("Shape", ["X"], ["e0"]), helper.make_node("Unsqueeze", ["e0", "zero"], ["e"])],
                              "else", [], [helper.make_tensor_value_info("e", TensorProto.INT64, [1, 1])])
    save([helper.make_node("If", ["c"], ["Y"], then_branch=then, else_branch=other)], "in_subgraph", [x, c], [y], [ints("zero", [0])])


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    nonzero_chain()
    compress_unique()
    detections()
    in_subgraph()
