#!/usr/bin/python3
"""Writes the fixtures of tests/data/sequences: models whose ONNX sequences the graph fixes, as list
code exports them (core/onnx/StaticSequences.h resolves them into tensor ops), and one it cannot fix.
Their batch dims are dynamic; compare_sequences_with_onnxruntime runs the first ones against ONNX
Runtime and tst_StaticSequences checks what they import as. The last two take and return sequences
and optionals (core/onnx/InterfaceValue.h): tst_StaticSequences runs them specialized to their inputs.

usage: sequence_models.py  (writes into tests/data/sequences)
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sequences")


def save(nodes, name, inputs, outputs, inits=(), opset=15):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def scalar(name, v):
    return helper.make_tensor(name, TensorProto.INT64, [], [v])


def list_stack():
    # [a, b] + insert c at -1 (before b), erase the first, stack on a new last axis, and the list's length.
    a = helper.make_tensor_value_info("A", TensorProto.FLOAT, ["batch", 3])
    b = helper.make_tensor_value_info("B", TensorProto.FLOAT, ["batch", 3])
    c = helper.make_tensor_value_info("C", TensorProto.FLOAT, ["batch", 3])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 3, 2])
    n = helper.make_tensor_value_info("N", TensorProto.INT64, [])
    nodes = [
        helper.make_node("SequenceConstruct", ["A", "B"], ["s1"]),
        helper.make_node("SequenceInsert", ["s1", "C", "minus1"], ["s2"]),
        helper.make_node("SequenceErase", ["s2", "zero"], ["s3"]),
        helper.make_node("ConcatFromSequence", ["s3"], ["Y"], axis=-1, new_axis=1),
        helper.make_node("SequenceLength", ["s2"], ["N"]),
    ]
    save(nodes, "list_stack", [a, b, c], [y, n], [scalar("minus1", -1), scalar("zero", 0)])


def split_pieces():
    # torch.split(x, 4, dim=1) on 10 columns (pieces 4, 4, 2), the last piece, and unbind(0) of a
    # static [3, 10] weight added back together.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 10])
    last = helper.make_tensor_value_info("last", TensorProto.FLOAT, ["batch", 2])
    total = helper.make_tensor_value_info("rows", TensorProto.FLOAT, [10])
    w = helper.make_tensor("W", TensorProto.FLOAT, [3, 10], [0.1 * i for i in range(30)])
    nodes = [
        helper.make_node("SplitToSequence", ["X", "four"], ["pieces"], axis=1),
        helper.make_node("SequenceAt", ["pieces", "minus1"], ["last_raw"]),
        helper.make_node("Relu", ["last_raw"], ["last"]),
        helper.make_node("SplitToSequence", ["W"], ["wrows"], axis=0, keepdims=0),
        helper.make_node("SequenceAt", ["wrows", "zero"], ["r0"]),
        helper.make_node("SequenceAt", ["wrows", "two"], ["r2"]),
        helper.make_node("ReduceSum", ["X", "zero1"], ["xs"], keepdims=0),
        helper.make_node("Add", ["r0", "r2"], ["r02"]),
        helper.make_node("Add", ["r02", "xs"], ["rows"]),
    ]
    save(nodes, "split_pieces", [x], [last, total],
         [w, scalar("four", 4), scalar("minus1", -1), scalar("zero", 0), scalar("two", 2),
          helper.make_tensor("zero1", TensorProto.INT64, [1], [0])])


def runtime_position():
    # SequenceAt at a position known only at run time: not resolvable, refused naming the node.
    a = helper.make_tensor_value_info("A", TensorProto.FLOAT, [2])
    b = helper.make_tensor_value_info("B", TensorProto.FLOAT, [2])
    i = helper.make_tensor_value_info("I", TensorProto.INT64, [])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])
    nodes = [helper.make_node("SequenceConstruct", ["A", "B"], ["s"]),
             helper.make_node("SequenceAt", ["s", "I"], ["Y"], name="pick_at_runtime")]
    save(nodes, "runtime_position", [a, b, i], [y])


def sequence_interface():
    # A sequence in, a sequence out: each element through Relu(e) * x (SequenceMap), then x inserted at a
    # position given as an input, and the new length.
    seq = helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, ["n"])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])
    pos = helper.make_tensor_value_info("pos", TensorProto.INT64, [])
    out = helper.make_tensor_sequence_value_info("out", TensorProto.FLOAT, ["n"])
    length = helper.make_tensor_value_info("length", TensorProto.INT64, [])
    body = helper.make_graph(
        [helper.make_node("Relu", ["e"], ["r"]), helper.make_node("Mul", ["r", "f"], ["m"])], "scale",
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["n"]), helper.make_tensor_value_info("f", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("m", TensorProto.FLOAT, ["n"])])
    nodes = [
        helper.make_node("SequenceMap", ["seq", "x"], ["mapped"], body=body),
        helper.make_node("SequenceInsert", ["mapped", "x", "pos"], ["out"]),
        helper.make_node("SequenceLength", ["out"], ["length"]),
    ]
    save(nodes, "sequence_interface", [seq, x, pos], [out, length], opset=17)


def optional_interface():
    # An optional tensor in: y = maybe + x where it holds one, x where it is empty; and whether it held one.
    maybe = helper.make_value_info("maybe", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [3])))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    has = helper.make_tensor_value_info("has", TensorProto.BOOL, [])
    then_g = helper.make_graph([helper.make_node("OptionalGetElement", ["maybe"], ["v"]), helper.make_node("Add", ["v", "x"], ["sum"])],
                               "present", [], [helper.make_tensor_value_info("sum", TensorProto.FLOAT, [3])])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["same"])], "absent", [],
                               [helper.make_tensor_value_info("same", TensorProto.FLOAT, [3])])
    nodes = [
        helper.make_node("OptionalHasElement", ["maybe"], ["has"]),
        helper.make_node("If", ["has"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    save(nodes, "optional_interface", [maybe, x], [y, has], opset=17)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    list_stack()
    split_pieces()
    runtime_position()
    sequence_interface()
    optional_interface()
