#!/usr/bin/python3
"""Small ONNX models (float64) for tst_Autodiff: one op (or a small composition) per model, every
differentiable operand a graph input, integer operands and shapes as initializers. Every output is
multiplied by a fixed random weight so that the gradient of the summed output is not trivial.
Run: /usr/bin/python3 tests/models/autodiff_models.py tests/data/autodiff [names...]"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
rng = np.random.default_rng(1234)
D = TensorProto.DOUBLE


def vi(name, shape, t=D):
    return helper.make_tensor_value_info(name, t, shape)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def model(name, nodes, inputs, outputs, inits=(), opset=OPSET, types=None):
    """inputs: [(name, shape)], outputs: [(name, shape)] of the op; each op output o is weighted into o + '_w'.
    types: element types of inputs that are not D, by name."""
    nodes = list(nodes)
    inits = list(inits)
    outs = []
    for o, shape in outputs:
        w = rng.uniform(0.5, 1.5, size=shape)
        inits.append(const(o + "_wt", w))
        nodes.append(helper.make_node("Mul", [o, o + "_wt"], [o + "_w"]))
        outs.append(vi(o + "_w", shape))
    g = helper.make_graph(nodes, name, [vi(n, s, (types or {}).get(n, D)) for n, s in inputs], outs, initializer=inits,
                          value_info=[vi(o, shape) for o, shape in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="dcw-autodiff-tests")
    onnx.checker.check_model(m)
    return m


def N(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, **attrs)


def loop_accumulate():
    """ONNX Loop, trip count 3 (a constant), carried y: y = y * x + w per iteration; also a scan output
    of every iteration's y."""
    body = helper.make_graph(
        [N("Mul", ["y_in", "x"], ["t"]), N("Add", ["t", "w"], ["y_out"]), N("Identity", ["cond_in"], ["cond_out"]),
         N("Identity", ["y_out"], ["y_scan"])],
        "body", [vi("iter", [], TensorProto.INT64), vi("cond_in", [], TensorProto.BOOL), vi("y_in", [2, 3])],
        [vi("cond_out", [], TensorProto.BOOL), vi("y_out", [2, 3]), vi("y_scan", [2, 3])])
    return model("loop_accumulate", [N("Loop", ["trip", "", "y0"], ["y", "ys"], body=body)],
                 [("y0", [2, 3]), ("x", [2, 3]), ("w", [2, 3])], [("y", [2, 3]), ("ys", [3, 2, 3])],
                 [const("trip", np.array(3, dtype=np.int64))])


def loop_while():
    """ONNX Loop without a trip count: runs while sum(y) < 10 (a data-dependent count; refused)."""
    body = helper.make_graph(
        [N("Mul", ["y_in", "x"], ["y_out"]), N("ReduceSum", ["y_out"], ["total"], keepdims=0), N("Less", ["total", "limit"], ["cond_out"])],
        "body", [vi("iter", [], TensorProto.INT64), vi("cond_in", [], TensorProto.BOOL), vi("y_in", [2])],
        [vi("cond_out", [], TensorProto.BOOL), vi("y_out", [2])], initializer=[const("limit", np.array(10.0))])
    return model("loop_while", [N("Loop", ["", "go", "y0"], ["y"], body=body)], [("y0", [2]), ("x", [2])], [("y", [2])],
                 [const("go", np.array(True))])


def if_branch():
    """ONNX If on the differentiated path, its condition a run-time input (refused: conditionals are not
    reversed; an If on a constant condition is imported as the branch it takes)."""
    then_g = helper.make_graph([N("Mul", ["x", "two"], ["t"])], "then", [], [vi("t", [2])], initializer=[const("two", np.array(2.0))])
    else_g = helper.make_graph([N("Add", ["x", "one"], ["e"])], "else", [], [vi("e", [2])], initializer=[const("one", np.array(1.0))])
    return model("if_branch", [N("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], [("x", [2]), ("c", [])],
                 [("y", [2])], types={"c": TensorProto.BOOL})


def scan_model(name, op):
    """ONNX Scan over 4 steps: state s [2] = s op x_t, scan output the state after every step."""
    body = helper.make_graph([N(op, ["s_in", "x_t"], ["s_out"]), N("Identity", ["s_out"], ["y_t"])], "body",
                             [vi("s_in", [2]), vi("x_t", [2])], [vi("s_out", [2]), vi("y_t", [2])])
    return model(name, [N("Scan", ["s0", "X"], ["s", "Y"], body=body, num_scan_inputs=1)],
                 [("s0", [2]), ("X", [4, 2])], [("s", [2]), ("Y", [4, 2])])


def models():
    M = {}
    M["matmul"] = model("matmul", [N("MatMul", ["A", "B"], ["y"])], [("A", [3, 4]), ("B", [4, 2])], [("y", [3, 2])])
    M["matmul_batched"] = model("matmul_batched", [N("MatMul", ["A", "B"], ["y"])], [("A", [2, 3, 4]), ("B", [4, 2])], [("y", [2, 3, 2])])
    M["gemm"] = model("gemm", [N("Gemm", ["A", "B", "C"], ["y"], alpha=0.7, beta=1.3)],
                      [("A", [3, 4]), ("B", [4, 2]), ("C", [2])], [("y", [3, 2])])
    M["gemm_trans"] = model("gemm_trans", [N("Gemm", ["A", "B", "C"], ["y"], transA=1, transB=1)],
                            [("A", [4, 3]), ("B", [2, 4]), ("C", [3, 2])], [("y", [3, 2])])
    M["add_bcast"] = model("add_bcast", [N("Add", ["A", "B"], ["y"])], [("A", [2, 3, 4]), ("B", [3, 1])], [("y", [2, 3, 4])])
    M["sub_bcast"] = model("sub_bcast", [N("Sub", ["A", "B"], ["y"])], [("A", [2, 3]), ("B", [3])], [("y", [2, 3])])
    M["mul_bcast"] = model("mul_bcast", [N("Mul", ["A", "B"], ["y"])], [("A", [2, 3]), ("B", [1, 3])], [("y", [2, 3])])
    M["div_bcast"] = model("div_bcast", [N("Div", ["A", "B"], ["y"])], [("A", [2, 3]), ("B", [3])], [("y", [2, 3])])
    for op, attrs in [("Relu", {}), ("LeakyRelu", {"alpha": 0.1}), ("Sigmoid", {}), ("Tanh", {}), ("Exp", {}), ("Log", {}),
                      ("Sqrt", {}), ("Erf", {})]:
        M[op.lower()] = model(op.lower(), [N(op, ["X"], ["y"], **attrs)], [("X", [3, 4])], [("y", [3, 4])])
    M["pow"] = model("pow", [N("Pow", ["X", "Y"], ["y"])], [("X", [3, 4]), ("Y", [4])], [("y", [3, 4])])
    M["softmax"] = model("softmax", [N("Softmax", ["X"], ["y"], axis=-1)], [("X", [2, 5])], [("y", [2, 5])])
    M["softmax_axis0"] = model("softmax_axis0", [N("Softmax", ["X"], ["y"], axis=0)], [("X", [3, 4])], [("y", [3, 4])])
    M["logsoftmax"] = model("logsoftmax", [N("LogSoftmax", ["X"], ["y"], axis=-1)], [("X", [2, 5])], [("y", [2, 5])])
    M["reducesum"] = model("reducesum", [N("ReduceSum", ["X", "axes"], ["y"], keepdims=0)], [("X", [2, 3, 4])], [("y", [2, 4])],
                           [const("axes", np.array([1], dtype=np.int64))])
    M["reducemean"] = model("reducemean", [N("ReduceMean", ["X"], ["y"], axes=[0, 2], keepdims=1)], [("X", [2, 3, 4])], [("y", [1, 3, 1])])
    M["reducemax"] = model("reducemax", [N("ReduceMax", ["X"], ["y"], axes=[1], keepdims=0)], [("X", [3, 5])], [("y", [3])])
    M["reshape"] = model("reshape", [N("Reshape", ["X", "shape"], ["y"])], [("X", [2, 3, 4])], [("y", [4, 6])],
                         [const("shape", np.array([4, 6], dtype=np.int64))])
    M["transpose"] = model("transpose", [N("Transpose", ["X"], ["y"], perm=[2, 0, 1])], [("X", [2, 3, 4])], [("y", [4, 2, 3])])
    M["concat"] = model("concat", [N("Concat", ["A", "B"], ["y"], axis=1)], [("A", [2, 3]), ("B", [2, 2])], [("y", [2, 5])])
    M["split"] = model("split", [N("Split", ["X", "split"], ["y0", "y1"], axis=1)], [("X", [2, 5])], [("y0", [2, 2]), ("y1", [2, 3])],
                       [const("split", np.array([2, 3], dtype=np.int64))])
    M["slice"] = model("slice", [N("Slice", ["X", "starts", "ends", "axes", "steps"], ["y"])], [("X", [4, 6])], [("y", [2, 2])],
                       [const("starts", np.array([1, 5], dtype=np.int64)), const("ends", np.array([3, 0], dtype=np.int64)),
                        const("axes", np.array([0, 1], dtype=np.int64)), const("steps", np.array([1, -2], dtype=np.int64))])
    M["gather"] = model("gather", [N("Gather", ["X", "ind"], ["y"], axis=0)], [("X", [4, 3])], [("y", [3, 3])],
                        [const("ind", np.array([2, 0, 2], dtype=np.int64))])
    M["where"] = model("where", [N("Where", ["cond", "A", "B"], ["y"])], [("A", [2, 3]), ("B", [2, 3])], [("y", [2, 3])],
                       [const("cond", np.array([[True, False, True], [False, False, True]]))])
    M["clip"] = model("clip", [N("Clip", ["X", "lo", "hi"], ["y"])], [("X", [3, 4])], [("y", [3, 4])],
                      [const("lo", np.array(-0.4)), const("hi", np.array(0.5))])
    M["expand"] = model("expand", [N("Expand", ["X", "shape"], ["y"])], [("X", [3, 1])], [("y", [2, 3, 4])],
                        [const("shape", np.array([2, 3, 4], dtype=np.int64))])
    M["squeeze"] = model("squeeze", [N("Squeeze", ["X", "axes"], ["y"])], [("X", [3, 1, 4])], [("y", [3, 4])],
                         [const("axes", np.array([1], dtype=np.int64))])
    M["unsqueeze"] = model("unsqueeze", [N("Unsqueeze", ["X", "axes"], ["y"])], [("X", [3, 4])], [("y", [3, 1, 4])],
                           [const("axes", np.array([1], dtype=np.int64))])
    M["flatten"] = model("flatten", [N("Flatten", ["X"], ["y"], axis=2)], [("X", [2, 3, 2, 2])], [("y", [6, 4])])
    M["conv"] = model("conv", [N("Conv", ["X", "W", "B"], ["y"], pads=[1, 1, 1, 1])],
                      [("X", [1, 2, 4, 4]), ("W", [3, 2, 3, 3]), ("B", [3])], [("y", [1, 3, 4, 4])])
    M["conv_grouped"] = model("conv_grouped", [N("Conv", ["X", "W"], ["y"], group=2, strides=[2, 1], pads=[1, 0, 1, 0], dilations=[1, 2])],
                              [("X", [1, 4, 5, 5]), ("W", [4, 2, 3, 2])], [("y", [1, 4, 3, 3])])
    M["maxpool"] = model("maxpool", [N("MaxPool", ["X"], ["y"], kernel_shape=[2, 2], strides=[2, 2])], [("X", [1, 2, 4, 4])], [("y", [1, 2, 2, 2])])
    M["averagepool"] = model("averagepool", [N("AveragePool", ["X"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
                             [("X", [1, 2, 4, 4])], [("y", [1, 2, 4, 4])])
    M["globalaveragepool"] = model("globalaveragepool", [N("GlobalAveragePool", ["X"], ["y"])], [("X", [1, 3, 3, 3])], [("y", [1, 3, 1, 1])])
    M["batchnorm"] = model("batchnorm", [N("BatchNormalization", ["X", "scale", "B", "mean", "var"], ["y"], epsilon=1e-3)],
                           [("X", [2, 3, 2, 2]), ("scale", [3]), ("B", [3])], [("y", [2, 3, 2, 2])],
                           [const("mean", rng.uniform(-0.5, 0.5, 3)), const("var", rng.uniform(0.5, 1.5, 3))])
    M["batchnorm_training"] = model("batchnorm_training",
                                    [N("BatchNormalization", ["X", "scale", "B", "mean", "var"], ["y"], epsilon=1e-3, training_mode=1)],
                                    [("X", [2, 3, 2, 2]), ("scale", [3]), ("B", [3])], [("y", [2, 3, 2, 2])],
                                    [const("mean", rng.uniform(-0.5, 0.5, 3)), const("var", rng.uniform(0.5, 1.5, 3))])
    M["layernorm"] = model("layernorm", [N("LayerNormalization", ["X", "scale", "B"], ["y"], axis=-1, epsilon=1e-5)],
                           [("X", [2, 3, 4]), ("scale", [4]), ("B", [4])], [("y", [2, 3, 4])])
    M["gelu"] = model("gelu", [N("Div", ["X", "sqrt2"], ["t0"]), N("Erf", ["t0"], ["t1"]), N("Add", ["t1", "one"], ["t2"]),
                               N("Mul", ["X", "t2"], ["t3"]), N("Mul", ["t3", "half"], ["y"])],
                      [("X", [3, 4])], [("y", [3, 4])],
                      [const("sqrt2", np.array(np.sqrt(2.0))), const("one", np.array(1.0)), const("half", np.array(0.5))])
    M["einsum"] = model("einsum", [N("Einsum", ["A", "B"], ["y"], equation="bij,bjk->bik")],
                        [("A", [2, 3, 4]), ("B", [2, 4, 2])], [("y", [2, 3, 2])])
    M["cast"] = model("cast", [N("Cast", ["X"], ["y"], to=D)], [("X", [3, 4])], [("y", [3, 4])])
    M["dropout"] = model("dropout", [N("Dropout", ["X"], ["y"])], [("X", [3, 4])], [("y", [3, 4])])
    M["softmax_cross_entropy"] = model("softmax_cross_entropy", [N("SoftmaxCrossEntropyLoss", ["X", "labels"], ["y"], reduction="mean")],
                                       [("X", [3, 5])], [("y", [])], [const("labels", np.array([1, 4, 0], dtype=np.int64))])
    M["nll"] = model("nll", [N("LogSoftmax", ["X"], ["lp"], axis=1), N("NegativeLogLikelihoodLoss", ["lp", "labels"], ["y"], reduction="mean")],
                     [("X", [3, 5])], [("y", [])], [const("labels", np.array([2, 0, 3], dtype=np.int64))])
    M["mse"] = model("mse", [N("Sub", ["A", "B"], ["d"]), N("Mul", ["d", "d"], ["sq"]), N("ReduceMean", ["sq"], ["y"], keepdims=0)],
                     [("A", [3, 4]), ("B", [3, 4])], [("y", [])])
    M["mlp"] = model("mlp", [N("Gemm", ["X", "W1", "b1"], ["h"]), N("Relu", ["h"], ["a"]), N("Gemm", ["a", "W2", "b2"], ["s"]),
                             N("SoftmaxCrossEntropyLoss", ["s", "labels"], ["y"])],
                     [("X", [4, 6]), ("W1", [6, 8]), ("b1", [8]), ("W2", [8, 3]), ("b2", [3])], [("y", [])],
                     [const("labels", np.array([0, 2, 1, 2], dtype=np.int64))])
    # Loops (reversed by autodiff, per-iteration values stored).
    M["loop_accumulate"] = loop_accumulate()
    M["scan_cumsum"] = scan_model("scan_cumsum", "Add")
    M["scan_cumprod"] = scan_model("scan_cumprod", "Mul")
    T, B, I, H = 3, 2, 3, 4
    for op, G in [("RNN", 1), ("GRU", 3), ("LSTM", 4)]:
        ins = [("X", [T, B, I]), ("W", [1, G * H, I]), ("R", [1, G * H, H]), ("B", [1, 2 * G * H]), ("initial_h", [1, B, H])]
        names = ["X", "W", "R", "B", "", "initial_h"]
        if op == "LSTM":
            ins.append(("initial_c", [1, B, H]))
            names.append("initial_c")
        M[op.lower()] = model(op.lower(), [N(op, names, ["Y", "Y_h"], hidden_size=H)], ins, [("Y", [T, 1, B, H]), ("Y_h", [1, B, H])])
    # Refused: a loop whose trip count depends on data, a conditional.
    M["loop_while"] = loop_while()
    M["if_branch"] = if_branch()
    # A loop running backwards (t = T-1 .. 0).
    M["rnn_reverse"] = model("rnn_reverse", [N("RNN", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H, direction="reverse")],
                             [("X", [T, B, I]), ("W", [1, H, I]), ("R", [1, H, H]), ("B", [1, 2 * H])],
                             [("Y", [T, 1, B, H]), ("Y_h", [1, B, H])])
    # A model with an integer output next to a float one (refusal tests).
    g = helper.make_graph([N("ArgMax", ["X"], ["idx"], axis=1, keepdims=0), N("Relu", ["X"], ["y"])], "int_output",
                          [vi("X", [3, 4])], [vi("idx", [3], TensorProto.INT64), vi("y", [3, 4])])
    M["int_output"] = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="dcw-autodiff-tests")
    return M


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "autodiff")
    only = set(sys.argv[2:])  # optional: the names of the models to write (default: all)
    os.makedirs(out, exist_ok=True)
    for name, m in models().items():
        if only and name not in only:
            continue
        onnx.save(m, os.path.join(out, name + ".onnx"))
    print("models written to", out)


if __name__ == "__main__":
    main()
