#!/usr/bin/python3
"""Small ONNX models for the "Data" transformation suites (tests/tst_DeadDataflowElimination.cpp,
tests/tst_ConstantFolding.cpp, ...). Run with /usr/bin/python3 from the repository root; writes
tests/data/transforms/data/*.onnx (a few hundred bytes each)."""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "transforms", "data")


def save(graph, name, opset=13):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="dcw-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    os.makedirs(OUT, exist_ok=True)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def dead_branch():
    # Y = relu(X) is the output; U = neg(exp(X)) is computed but never used (dead).
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, 5])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4, 5])
    nodes = [
        helper.make_node("Relu", ["X"], ["Y"], name="Relu_live"),
        helper.make_node("Exp", ["X"], ["T"], name="Exp_dead"),
        helper.make_node("Neg", ["T"], ["U"], name="Neg_dead"),
    ]
    save(helper.make_graph(nodes, "dead_branch", [x], [y]), "dead_branch")


def shape_chain():
    # Y = reshape(relu(X), concat(shape(X)[0:1], [-1])): the shape arithmetic folds to constant [2, 12].
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 12])
    idx = helper.make_tensor("idx", TensorProto.INT64, [1], [0])
    rest = helper.make_tensor("rest", TensorProto.INT64, [1], [-1])
    nodes = [
        helper.make_node("Shape", ["X"], ["s"], name="Shape_x"),
        helper.make_node("Gather", ["s", "idx"], ["g"], name="Gather_0", axis=0),
        helper.make_node("Concat", ["g", "rest"], ["target"], name="Concat_t", axis=0),
        helper.make_node("Relu", ["X"], ["r"], name="Relu_x"),
        helper.make_node("Reshape", ["r", "target"], ["Y"], name="Reshape_y"),
    ]
    save(helper.make_graph(nodes, "shape_chain", [x], [y], initializer=[idx, rest]), "shape_chain")


if __name__ == "__main__":
    dead_branch()
    shape_chain()
