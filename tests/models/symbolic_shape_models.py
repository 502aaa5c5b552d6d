#!/usr/bin/python3
"""Small ONNX models whose shapes are computed at run time from dynamic input dims, the way exporters
write them (tests/tst_SymbolicShapes.cpp, and the `compare_symbolic_with_onnxruntime` test at two
sizes). ONNX's own shape inference leaves their intermediate dims unknown ("unk__N" or no rank).
Run with /usr/bin/python3 from the repository root; writes tests/data/symbolic/*.onnx (a few KB each)."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "symbolic")
rng = np.random.default_rng(7)


def save(nodes, name, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="dcw-tests")
    model.ir_version = 7
    onnx.checker.check_model(model)
    os.makedirs(OUT, exist_ok=True)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def ints(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def weights(name, *shape):
    return numpy_helper.from_array(rng.uniform(-0.5, 0.5, shape).astype(np.float32), name)


def attention_heads():
    # BERT-style: X[batch, seq, 32] -> MatMul -> Reshape to [batch, seq, 4, 8] with the target taken
    # from Shape(X) -> Gather -> Unsqueeze -> Concat, Transpose, then back with a -1: [batch, seq, 32].
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", "seq", 32])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", "seq", 32])
    nodes = [
        helper.make_node("MatMul", ["X", "W"], ["q"]),
        helper.make_node("Shape", ["X"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["b"], axis=0),
        helper.make_node("Gather", ["s", "i1"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
        helper.make_node("Concat", ["b1", "n1", "heads"], ["target"], axis=0),
        helper.make_node("Reshape", ["q", "target"], ["split"], name="split_heads"),
        helper.make_node("Transpose", ["split"], ["t"], perm=[0, 2, 1, 3]),
        helper.make_node("Softmax", ["t"], ["p"], axis=-1),
        helper.make_node("Transpose", ["p"], ["back"], perm=[0, 2, 1, 3]),
        helper.make_node("Concat", ["b1", "minus1", "width"], ["target2"], axis=0),
        helper.make_node("Reshape", ["back", "target2"], ["Y"], name="merge_heads"),
    ]
    inits = [weights("W", 32, 32), helper.make_tensor("i0", TensorProto.INT64, [], [0]),
             helper.make_tensor("i1", TensorProto.INT64, [], [1]), ints("ax0", [0]), ints("heads", [4, 8]),
             ints("minus1", [-1]), ints("width", [32])]
    save(nodes, "attention_heads", [x], [y], inits)


def conv_dynamic():
    # X[N, 3, H, W] -> Conv(3x3, stride 2, pad 1) -> MaxPool(2x2, stride 2) -> Resize x2 -> Add -> Slice
    # to the input's width (Shape -> Slice -> Concat) -> GlobalAveragePool -> Flatten -> Gemm.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3, "H", "W"])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 5])
    f = helper.make_tensor_value_info("F", TensorProto.FLOAT, ["N", 8, "h", "w"])
    nodes = [
        helper.make_node("Conv", ["X", "K", "B"], ["c"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Resize", ["p", "", "scales"], ["u"], mode="nearest"),
        helper.make_node("Shape", ["r"], ["rs"]),
        helper.make_node("Slice", ["rs", "two", "four"], ["hw"]),
        helper.make_node("Slice", ["r", "zeros2", "hw", "axes23"], ["rcut"]),
        helper.make_node("Slice", ["u", "zeros2", "hw", "axes23"], ["ucut"]),
        helper.make_node("Add", ["rcut", "ucut"], ["F"]),
        helper.make_node("GlobalAveragePool", ["F"], ["g"]),
        helper.make_node("Flatten", ["g"], ["fl"], axis=1),
        helper.make_node("Gemm", ["fl", "G", "gb"], ["Y"], transB=1),
    ]
    inits = [weights("K", 8, 3, 3, 3), weights("B", 8), weights("G", 5, 8), weights("gb", 5),
             numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"), ints("two", [2]), ints("four", [4]),
             ints("zeros2", [0, 0]), ints("axes23", [2, 3])]
    save(nodes, "conv_dynamic", [x], [y, f], inits)


def paddle_slice_opset9():
    # paddle2onnx at opset 9: Shape -> Cast(int32) -> Slice (attributes) -> Cast(int64) -> Concat with a
    # constant -> Reshape; the batch is dynamic. ONNX's inference gives the Reshape no rank at all.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["p2o.DynamicDimension.0", 6, 2, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["p2o.DynamicDimension.1", 4])
    nodes = [
        helper.make_node("GlobalAveragePool", ["x"], ["g"]),
        helper.make_node("Shape", ["g"], ["s"]),
        helper.make_node("Cast", ["s"], ["s32"], to=TensorProto.INT32),
        helper.make_node("Slice", ["s32"], ["first"], starts=[0], ends=[1], axes=[0]),
        helper.make_node("Cast", ["first"], ["first64"], to=TensorProto.INT64),
        helper.make_node("Constant", [], ["width"], value=helper.make_tensor("w", TensorProto.INT64, [1], [6])),
        helper.make_node("Concat", ["first64", "width"], ["target"], axis=0),
        helper.make_node("Reshape", ["g", "target"], ["flat"]),
        helper.make_node("MatMul", ["flat", "M"], ["y"]),
    ]
    save(nodes, "paddle_slice_opset9", [x], [y], [weights("M", 6, 4)], opset=9)


def positions_range():
    # Position ids as exporters write them: Range(0, Shape(ids)[1], 1) -> Unsqueeze -> Expand to the ids'
    # shape -> Gather from an embedding table, added to the token embedding.
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "sequence"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "sequence", 8])
    nodes = [
        helper.make_node("Shape", ["ids"], ["s"]),
        helper.make_node("Gather", ["s", "i1"], ["n"], axis=0),
        helper.make_node("Range", ["zero", "n", "one"], ["pos"]),
        helper.make_node("Unsqueeze", ["pos", "ax0"], ["pos2"]),
        helper.make_node("Expand", ["pos2", "s"], ["posb"]),
        helper.make_node("Gather", ["P", "posb"], ["pe"], axis=0),
        helper.make_node("Gather", ["E", "ids"], ["te"], axis=0),
        helper.make_node("Add", ["te", "pe"], ["y"]),
    ]
    inits = [helper.make_tensor("i1", TensorProto.INT64, [], [1]), helper.make_tensor("zero", TensorProto.INT64, [], [0]),
             helper.make_tensor("one", TensorProto.INT64, [], [1]), ints("ax0", [0]), weights("P", 64, 8), weights("E", 64, 8)]
    save(nodes, "positions_range", [ids], [y], inits)


def if_reads_outer_weight():
    # PyTorch's export of a branch on a score: If(sum(X) >= 0) then Gemm(X, W) else Gemm(X, V) with the
    # weights initializers of the main graph that the branches read (they carry no type of their own
    # inside the branches); the batch is dynamic.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 3])
    then_out = helper.make_tensor_value_info("t", TensorProto.FLOAT, None)
    else_out = helper.make_tensor_value_info("e", TensorProto.FLOAT, None)
    then_g = helper.make_graph([helper.make_node("Gemm", ["X", "W"], ["t"], transB=1)], "then", [], [then_out])
    else_g = helper.make_graph([helper.make_node("Gemm", ["X", "V"], ["e"], transB=1),], "else", [], [else_out])
    nodes = [
        helper.make_node("ReduceSum", ["X"], ["s"], keepdims=0),
        helper.make_node("GreaterOrEqual", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["Y"], then_branch=then_g, else_branch=else_g),
    ]
    inits = [weights("W", 3, 4), weights("V", 3, 4), helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])]
    save(nodes, "if_reads_outer_weight", [x], [y], inits)


def rank_branch():
    # TorchScript's `if x.dim() == 2: y = relu(x) else: y = x.squeeze(0)`: an If on Size(Shape(X)) == 2.
    # The inputs' rank decides it (then_branch); the other branch would give another rank.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 4])
    then_g = helper.make_graph([helper.make_node("Relu", ["X"], ["r"])], "then", [],
                               [helper.make_tensor_value_info("r", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Squeeze", ["X", "ax0"], ["q"])], "else", [],
                               [helper.make_tensor_value_info("q", TensorProto.FLOAT, None)])
    nodes = [
        helper.make_node("Shape", ["X"], ["s"]),
        helper.make_node("Size", ["s"], ["rank"]),
        helper.make_node("Equal", ["rank", "two"], ["is2"]),
        helper.make_node("If", ["is2"], ["b"], name="rank_if", then_branch=then_g, else_branch=else_g),
        helper.make_node("Mul", ["b", "W"], ["Y"]),
    ]
    inits = [helper.make_tensor("two", TensorProto.INT64, [], [2]), ints("ax0", [0]), weights("W", 4)]
    save(nodes, "rank_branch", [x], [y], inits)


def squaring_chain():
    # Shape arithmetic that squares its value 40 times (t = (t + M) * t): the exact dim would be an
    # expression of 2^40 terms. DCW follows it while it stays small, then leaves the dim unknown; the
    # Reshape's output is then data-dependent (refused at run time, naming the node), not a hang.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", "M"])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None])
    nodes = [helper.make_node("Shape", ["X"], ["n"], start=0, end=1),
             helper.make_node("Shape", ["X"], ["m"], start=1, end=2),
             helper.make_node("Add", ["n", "m"], ["t0"])]
    for i in range(1, 41):
        nodes.append(helper.make_node("Add", [f"t{i - 1}", "m"], [f"a{i}"]))
        nodes.append(helper.make_node("Mul", [f"a{i}", f"t{i - 1}"], [f"t{i}"]))
    nodes.append(helper.make_node("Reshape", ["X", "t40"], ["Y"], name="reshape_chain"))
    save(nodes, "squaring_chain", [x], [y], opset=15)


def value_length():
    # A length given as an input, as the expanded window functions write it: Range(0.0, float(N), 1.0)
    # (float arithmetic on a whole number), and an Expand to [N, 4]. Their dims are N's value.
    n = helper.make_tensor_value_info("N", TensorProto.INT64, [])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None])
    z = helper.make_tensor_value_info("Z", TensorProto.FLOAT, [None, 4])
    nodes = [
        helper.make_node("Cast", ["N"], ["nf"], to=TensorProto.FLOAT),
        helper.make_node("Range", ["zero", "nf", "one"], ["r"]),
        helper.make_node("Mul", ["r", "step"], ["angle"]),
        helper.make_node("Cos", ["angle"], ["Y"]),
        helper.make_node("Unsqueeze", ["N", "ax0"], ["n1"]),
        helper.make_node("Concat", ["n1", "four"], ["zshape"], axis=0),
        helper.make_node("Expand", ["W", "zshape"], ["Z"]),
    ]
    inits = [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]), helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
             helper.make_tensor("step", TensorProto.FLOAT, [], [0.785]), ints("ax0", [0]), ints("four", [4]), weights("W", 1, 4)]
    save(nodes, "value_length", [n], [y, z], inits)


def conv_same_dynamic():
    # TensorFlow-style SAME padding over dynamic H and W: the pads are expressions of the dims with floor
    # division (SAME_UPPER k=3 s=2; SAME_LOWER k=4 s=3), which the unspecialized program computes at run time.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3, "H", "W"])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 2, None, None])
    nodes = [
        helper.make_node("Conv", ["X", "W1", "B1"], ["c"], kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Conv", ["r", "W2"], ["Y"], kernel_shape=[4, 4], strides=[3, 3], auto_pad="SAME_LOWER"),
    ]
    save(nodes, "conv_same_dynamic", [x], [y], [weights("W1", 6, 3, 3, 3), weights("B1", 6), weights("W2", 2, 6, 4, 4)])


def pool_ceil_dynamic():
    # ceil_mode pools over dynamic H and W, as torchvision's SqueezeNet and GoogLeNet export them (k3 s2:
    # the last window always starts inside), and one whose last window may start in the right padding
    # (k2 s2, end pads 1: dropped where the dims say so, a comparison in the dim's expression).
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 2, "H", "W"])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 2, None, None])
    nodes = [
        helper.make_node("MaxPool", ["X"], ["m"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        helper.make_node("AveragePool", ["m"], ["Y"], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1),
    ]
    save(nodes, "pool_ceil_dynamic", [x], [y])


def rate_branch():
    # As Silero VAD branches on its sample rate: If(SR == 16000) takes the first 4 columns of X through
    # Relu, else the first 2 doubled; the branches' outputs differ in shape, so only SR's value decides
    # the output's shape (the program is specialized to it).
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 8])
    sr = helper.make_tensor_value_info("SR", TensorProto.INT64, [])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, None])
    then_g = helper.make_graph([helper.make_node("Slice", ["X", "zero", "four", "one"], ["x4"]),
                                helper.make_node("Relu", ["x4"], ["r"])], "wide", [],
                               [helper.make_tensor_value_info("r", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Slice", ["X", "zero", "two", "one"], ["x2"]),
                                helper.make_node("Add", ["x2", "x2"], ["d"])], "narrow", [],
                               [helper.make_tensor_value_info("d", TensorProto.FLOAT, None)])
    nodes = [
        helper.make_node("Equal", ["SR", "rate16k"], ["wide"]),
        helper.make_node("If", ["wide"], ["Y"], name="rate_if", then_branch=then_g, else_branch=else_g),
    ]
    inits = [helper.make_tensor("rate16k", TensorProto.INT64, [], [16000]), ints("zero", [0]), ints("two", [2]),
             ints("four", [4]), ints("one", [1])]
    save(nodes, "rate_branch", [x, sr], [y], inits)


def loop_trip_input():
    # A Loop run M times, M an input, with no condition: the running sum acc += X and a scan output of
    # 2 * acc per iteration, so the scan has M rows (M's value).
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Add", ["acc_in", "X"], ["acc_out"]),
         helper.make_node("Mul", ["acc_out", "two"], ["scan"])],
        "accumulate",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("scan", TensorProto.FLOAT, [3])])
    nodes = [helper.make_node("Loop", ["M", "", "init"], ["final", "scans"], name="trip_loop", body=body)]
    save(nodes, "loop_trip_input",
         [helper.make_tensor_value_info("M", TensorProto.INT64, []), helper.make_tensor_value_info("X", TensorProto.FLOAT, [3]),
          helper.make_tensor_value_info("init", TensorProto.FLOAT, [3])],
         [helper.make_tensor_value_info("final", TensorProto.FLOAT, [3]),
          helper.make_tensor_value_info("scans", TensorProto.FLOAT, [None, 3])],
         [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])], opset=17)


if __name__ == "__main__":
    attention_heads()
    conv_dynamic()
    paddle_slice_opset9()
    positions_range()
    if_reads_outer_weight()
    rank_branch()
    squaring_chain()
    value_length()
    conv_same_dynamic()
    pool_ceil_dynamic()
    rate_branch()
    loop_trip_input()
