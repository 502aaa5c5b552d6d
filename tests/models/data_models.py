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


def shuffle_views():
    # ShuffleNet's channel shuffle and a flatten: relu -> reshape -> transpose -> reshape -> relu -> flatten
    # -> unsqueeze -> squeeze -> neg. Each reshaping op of a row-major transient can become a view.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 4, 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 128])
    split = helper.make_tensor("split_shape", TensorProto.INT64, [5], [1, 2, 4, 4, 4])
    merge = helper.make_tensor("merge_shape", TensorProto.INT64, [4], [1, 8, 4, 4])
    zero = helper.make_tensor("axis0", TensorProto.INT64, [1], [0])
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="Relu_in"),
        helper.make_node("Reshape", ["a", "split_shape"], ["b"], name="Reshape_split"),
        helper.make_node("Transpose", ["b"], ["c"], name="Transpose_shuffle", perm=[0, 2, 1, 3, 4]),
        helper.make_node("Reshape", ["c", "merge_shape"], ["d"], name="Reshape_merge"),
        helper.make_node("Relu", ["d"], ["e"], name="Relu_mid"),
        helper.make_node("Flatten", ["e"], ["f"], name="Flatten_f", axis=1),
        helper.make_node("Unsqueeze", ["f", "axis0"], ["g"], name="Unsqueeze_g"),
        helper.make_node("Squeeze", ["g", "axis0"], ["h"], name="Squeeze_h"),
        helper.make_node("Neg", ["h"], ["Y"], name="Neg_out"),
    ]
    save(helper.make_graph(nodes, "shuffle_views", [x], [y], initializer=[split, merge, zero]), "shuffle_views")


def slice_views():
    # Slices and a split of a row-major transient a = relu(X), X [1, 8, 4, 4], each read by a Neg:
    # channels 4:8 and the split's [2, 6] channels are contiguous blocks of a (views); a slice of the
    # last dim and one with step 2 are not; channel 1 of a reshape to [1, 2, 4, 4, 4] is a block of the
    # view, so of a.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 4, 4])
    outs = {"Y_hi": [1, 4, 4, 4], "Y_p": [1, 2, 4, 4], "Y_q": [1, 6, 4, 4], "Y_w": [1, 8, 4, 2], "Y_t": [1, 4, 4, 4],
            "Y_u": [1, 1, 4, 4, 4]}
    ys = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outs.items()]
    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)
    init = [ints("hi_s", [4]), ints("hi_e", [8]), ints("ax1", [1]), ints("w_s", [0]), ints("w_e", [2]), ints("ax3", [3]),
            ints("t_s", [0]), ints("t_e", [8]), ints("t_step", [2]), ints("split", [2, 6]), ints("r_shape", [1, 2, 4, 4, 4]),
            ints("u_s", [1]), ints("u_e", [2])]
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="Relu_in"),
        helper.make_node("Slice", ["a", "hi_s", "hi_e", "ax1"], ["hi"], name="Slice_hi"),
        helper.make_node("Split", ["a", "split"], ["p", "q"], name="Split_pq", axis=1),
        helper.make_node("Slice", ["a", "w_s", "w_e", "ax3"], ["w"], name="Slice_w"),
        helper.make_node("Slice", ["a", "t_s", "t_e", "ax1", "t_step"], ["t"], name="Slice_t"),
        helper.make_node("Reshape", ["a", "r_shape"], ["r"], name="Reshape_r"),
        helper.make_node("Slice", ["r", "u_s", "u_e", "ax1"], ["u"], name="Slice_u"),
    ] + [helper.make_node("Neg", [src], [n], name="Neg_" + src) for src, n in zip(["hi", "p", "q", "w", "t", "u"], outs)]
    save(helper.make_graph(nodes, "slice_views", [x], ys, initializer=init), "slice_views")


def attention_heads():
    # Self-attention over X [1, 8, 24] with 2 heads of 12 (as torch exports nn.MultiheadAttention): one
    # product with the fused QKV weights, Slices of its last dim, Reshapes to heads, Transposes to
    # [1, heads, 8, 12] (K to [1, heads, 12, 8]), Q scaled by a Div, QK^T, Softmax, times V, Transpose and
    # Reshape back. K's and V's slices and transposes feed the matmuls alone (strided views); Q's transpose
    # feeds the Div (a row-major reader). W_n, a slice of the last dim read by Neg, is refused.
    import numpy as np
    rng = np.random.default_rng(3)
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 24])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 8, 24])
    yn = helper.make_tensor_value_info("Y_n", TensorProto.FLOAT, [1, 8, 4])
    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)
    init = [helper.make_tensor("W", TensorProto.FLOAT, [24, 72], rng.uniform(-0.5, 0.5, 24 * 72).astype(np.float32).tolist()),
            helper.make_tensor("scale", TensorProto.FLOAT, [], [3.4641016]),
            ints("q_s", [0]), ints("q_e", [24]), ints("k_s", [24]), ints("k_e", [48]), ints("v_s", [48]), ints("v_e", [72]),
            ints("n_s", [60]), ints("n_e", [64]), ints("ax2", [2]), ints("heads", [1, 8, 2, 12]), ints("merged", [1, 8, 24])]
    nodes = [helper.make_node("MatMul", ["X", "W"], ["qkv"], name="MatMul_qkv")]
    for h, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [helper.make_node("Slice", ["qkv", h + "_s", h + "_e", "ax2"], [h], name="Slice_" + h),
                  helper.make_node("Reshape", [h, "heads"], [h + "4"], name="Reshape_" + h),
                  helper.make_node("Transpose", [h + "4"], [h + "t"], name="Transpose_" + h, perm=perm)]
    nodes += [
        helper.make_node("Div", ["qt", "scale"], ["qs"], name="Div_q"),
        helper.make_node("MatMul", ["qs", "kt"], ["s"], name="MatMul_qk"),
        helper.make_node("Softmax", ["s"], ["p"], name="Softmax_p", axis=-1),
        helper.make_node("MatMul", ["p", "vt"], ["o"], name="MatMul_pv"),
        helper.make_node("Transpose", ["o"], ["ot"], name="Transpose_o", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ot", "merged"], ["Y"], name="Reshape_o"),
        helper.make_node("Slice", ["qkv", "n_s", "n_e", "ax2"], ["n"], name="Slice_n"),
        helper.make_node("Neg", ["n"], ["Y_n"], name="Neg_n"),
    ]
    save(helper.make_graph(nodes, "attention_heads", [x], [y, yn], initializer=init), "attention_heads")


def viewed_slice():
    # A slice that is one block (channels 4:8 of relu(X)) whose result a Reshape flattens, as ConvNeXt's
    # classifier flattens a transpose that moves nothing: once the reshape is a view of the slice, the
    # slice cannot become a view itself (a view does not show a view).
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 4, 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 64])
    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="Relu_in"),
        helper.make_node("Slice", ["a", "hi_s", "hi_e", "ax1"], ["hi"], name="Slice_hi"),
        helper.make_node("Reshape", ["hi", "flat"], ["r"], name="Reshape_r"),
        helper.make_node("Neg", ["r"], ["Y"], name="Neg_r"),
    ]
    save(helper.make_graph(nodes, "viewed_slice", [x], [y],
                           initializer=[ints("hi_s", [4]), ints("hi_e", [8]), ints("ax1", [1]), ints("flat", [1, 64])]), "viewed_slice")


def slice_of_slice():
    # Channels 2:8 of relu(X), then channels 3:6 of that (Silero VAD's STFT takes the imaginary half of
    # a slice): once the first is a view of a block, the second is a block of that view, so of relu(X)
    # from channel 5 on.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 4, 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3, 4, 4])
    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="Relu_in"),
        helper.make_node("Slice", ["a", "s1_s", "s1_e", "ax1"], ["s1"], name="Slice_s1"),
        helper.make_node("Slice", ["s1", "s2_s", "s2_e", "ax1"], ["s2"], name="Slice_s2"),
        helper.make_node("Neg", ["s2"], ["Y"], name="Neg_s2"),
    ]
    init = [ints("s1_s", [2]), ints("s1_e", [8]), ints("s2_s", [3]), ints("s2_e", [6]), ints("ax1", [1])]
    save(helper.make_graph(nodes, "slice_of_slice", [x], [y], initializer=init), "slice_of_slice")


def convnext_block():
    # A ConvNeXt block as torchvision exports it, between two convolutions: depthwise Conv -> Transpose
    # to NHWC -> LayerNorm -> MatMul/Add -> Relu -> MatMul/Add -> Transpose back to NCHW -> Mul (layer
    # scale) -> residual Add. With the NCHW arrays channels-last, both Transposes copy in memory order.
    import numpy as np
    rng = np.random.default_rng(5)
    f32 = lambda name, *shape: helper.make_tensor(name, TensorProto.FLOAT, list(shape), rng.standard_normal(shape).astype(np.float32).ravel())
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 6, 5])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 6, 5])
    nodes = [
        helper.make_node("Conv", ["X", "W0", "b0"], ["Z"], name="Conv_stem", kernel_shape=[1, 1]),
        helper.make_node("Conv", ["Z", "W1", "b1"], ["A"], name="Conv_dw", kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=8),
        helper.make_node("Transpose", ["A"], ["P"], name="Transpose_in", perm=[0, 2, 3, 1]),
        helper.make_node("LayerNormalization", ["P", "g", "be"], ["L"], name="LayerNorm", axis=-1, epsilon=1e-6),
        helper.make_node("MatMul", ["L", "W2"], ["H0"], name="MatMul_up"),
        helper.make_node("Add", ["H0", "b2"], ["H"], name="Add_b2"),
        helper.make_node("Relu", ["H"], ["R"], name="Relu"),
        helper.make_node("MatMul", ["R", "W3"], ["M0"], name="MatMul_down"),
        helper.make_node("Add", ["M0", "b3"], ["M"], name="Add_b3"),
        helper.make_node("Transpose", ["M"], ["T"], name="Transpose_out", perm=[0, 3, 1, 2]),
        helper.make_node("Mul", ["T", "gamma"], ["S"], name="Mul_scale"),
        helper.make_node("Add", ["Z", "S"], ["U"], name="Add_residual"),
        helper.make_node("Conv", ["U", "W4"], ["Y"], name="Conv_head", kernel_shape=[1, 1]),
    ]
    init = [f32("W0", 8, 3, 1, 1), f32("b0", 8), f32("W1", 8, 1, 3, 3), f32("b1", 8), f32("g", 8), f32("be", 8),
            f32("W2", 8, 16), f32("b2", 16), f32("W3", 16, 8), f32("b3", 8), f32("gamma", 8, 1, 1), f32("W4", 4, 8, 1, 1)]
    save(helper.make_graph(nodes, "convnext_block", [x], [y], initializer=init), "convnext_block", opset=17)


if __name__ == "__main__":
    dead_branch()
    shape_chain()
    shuffle_views()
    slice_views()
    viewed_slice()
    slice_of_slice()
    attention_heads()
    convnext_block()
