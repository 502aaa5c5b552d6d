#!/usr/bin/python3
"""Writes single-op ONNX models (opset 17) that exercise the `onednn` implementations on awkward
shapes: odd extents, groups and depthwise, strides, dilations, asymmetric pads, auto_pad, ceil_mode,
transposed and broadcast operands, weights as initializers and as inputs. Each model's name says
what it holds. compare_with_ort.py runs them through every path and compares.
A model ONNX Runtime cannot run (its CPU LSTM, GRU and RNN take layout 0 only) is written with
NAME.onnx.for-ort beside it: the same function in ops it runs (layout 0 between transposes), which
compare_with_ort.py gives ONNX Runtime instead.

usage: implementation_cases.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def model(name, nodes, inputs, output_shapes, initializers=None, opset=17):
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in output_shapes]
    inits = [numpy_helper.from_array(v if v.dtype.kind == "i" else v.astype(np.float32), n) for n, v in (initializers or {}).items()]
    g = helper.make_graph(nodes, name, ins, outs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    return name, m


def conv(name, x, w, b=True, const=True, op="Conv", **attrs):
    inits = {}
    inputs = [("X", x)]
    names = ["X", "W"]
    wv = rng.standard_normal(w) * 0.3
    if const:
        inits["W"] = wv
    else:
        inputs.append(("W", list(w)))
    if b:
        m_out = w[1] * attrs.get("group", 1) if op == "ConvTranspose" else w[0]
        inits["B"] = rng.standard_normal(m_out) * 0.1
        names.append("B")
    node = helper.make_node(op, names, ["Y"], **attrs)
    return model(name, [node], inputs, [("Y", None)], inits)


def recurrent(name, op, T, B, I, H, direction="forward", layout=0, bias=True, h0=False, c0=False, peepholes=False, const=True,
              outputs=("Y", "Y_h"), lens=False, **attrs):
    """One LSTM, GRU or RNN node: X of layout 0 [T, B, I] or 1 [B, T, I]; W, R (and B, P) initializers
    unless const=False (then graph inputs); initial states as graph inputs; `outputs` a subset of
    Y, Y_h, Y_c (absent ones left out of the node, trailing ones dropped); lens: sequence_lens a
    constant T for every batch entry."""
    G = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    D = 2 if direction == "bidirectional" else 1
    state = [D, B, H] if layout == 0 else [B, D, H]
    inputs = [("X", [T, B, I] if layout == 0 else [B, T, I])]
    inits = {}
    params = {"W": rng.standard_normal((D, G * H, I)) * 0.3, "R": rng.standard_normal((D, G * H, H)) * 0.3}
    if bias:
        params["B"] = rng.standard_normal((D, 2 * G * H)) * 0.3
    if peepholes:
        params["P"] = rng.standard_normal((D, 3 * H)) * 0.3
    for n, v in params.items():
        if const:
            inits[n] = v
        else:
            inputs.append((n, list(v.shape)))
    if lens:
        inits["sequence_lens"] = np.full(B, T, dtype=np.int32)
    if h0:
        inputs.append(("initial_h", state))
    if c0:
        inputs.append(("initial_c", state))
    names = ["X", "W", "R", "B" if bias else "", "sequence_lens" if lens else "", "initial_h" if h0 else "", "initial_c" if c0 else "",
             "P" if peepholes else ""]
    while names[-1] == "":
        names.pop()
    outs = [o if o in outputs else "" for o in (["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"])]
    while outs[-1] == "":
        outs.pop()
    node = helper.make_node(op, names, outs, direction=direction, hidden_size=H, **attrs, **({"layout": 1} if layout else {}))
    m = model(name, [node], inputs, [(o, None) for o in outs if o], inits)
    if layout:
        # For ONNX Runtime: layout 0 between transposes ([B, T, I] -> [T, B, I]; Y [T, D, B, H] -> [B, T, D, H];
        # states [B, D, H] <-> [D, B, H]).
        swap = {"X": [1, 0, 2], "initial_h": [1, 0, 2], "initial_c": [1, 0, 2]}
        nodes = [helper.make_node("Transpose", [n], [n + "_0"], perm=swap[n]) for n in names if n in swap]
        ins0 = [n + "_0" if n in swap else n for n in names]
        outs0 = [o + "_0" if o else "" for o in outs]
        nodes.append(helper.make_node(op, ins0, outs0, direction=direction, hidden_size=H, **attrs))
        nodes += [helper.make_node("Transpose", [o + "_0"], [o], perm=[2, 0, 1, 3] if o == "Y" else [1, 0, 2]) for o in outs if o]
        _, ref = model(name + "_for_ort", nodes, inputs, [(o, None) for o in outs if o], inits)
        REFERENCES[name] = ref
    return m


# Models ONNX Runtime runs in place of the case of the same name (NAME.onnx.for-ort).
REFERENCES = {}


def cases():
    out = []
    # Convolutions
    out.append(conv("conv_odd_strides_dilations_pads", [2, 5, 11, 13], [7, 5, 3, 2], strides=[2, 1], dilations=[1, 2], pads=[1, 0, 2, 1]))
    out.append(conv("conv_grouped", [1, 6, 9, 9], [4, 3, 3, 3], group=2, pads=[1, 1, 1, 1]))
    out.append(conv("conv_depthwise", [1, 8, 10, 10], [8, 1, 3, 3], group=8, pads=[1, 1, 1, 1], strides=[2, 2]))
    out.append(conv("conv_1d", [2, 3, 17], [4, 3, 5], strides=[3]))
    out.append(conv("conv_3d", [1, 2, 5, 6, 7], [3, 2, 3, 3, 3], pads=[1, 0, 1, 1, 0, 1]))
    out.append(conv("conv_same_upper_stride2", [1, 3, 10, 9], [5, 3, 3, 3], auto_pad="SAME_UPPER", strides=[2, 2]))
    out.append(conv("conv_1x1_stride2_drops_last_row", [1, 16, 13, 13], [8, 16, 1, 1], strides=[2, 2], b=False))
    out.append(conv("conv_weights_as_input", [1, 4, 7, 7], [6, 4, 3, 3], const=False, pads=[1, 1, 1, 1]))
    out.append(conv("convtranspose_strided", [1, 4, 5, 6], [4, 3, 3, 3], op="ConvTranspose", strides=[2, 2], pads=[1, 1, 1, 1]))
    out.append(conv("convtranspose_grouped", [1, 4, 5, 5], [4, 2, 3, 3], op="ConvTranspose", group=2))
    # Pooling
    x = [2, 3, 11, 10]
    out.append(model("maxpool_ceil_dilations_pads", [helper.make_node("MaxPool", ["X"], ["Y"], kernel_shape=[3, 2], strides=[2, 2],
                                                                       dilations=[1, 2], pads=[1, 0, 1, 1], ceil_mode=1)], [("X", x)], [("Y", None)]))
    out.append(model("averagepool_exclude_pad", [helper.make_node("AveragePool", ["X"], ["Y"], kernel_shape=[3, 3], strides=[2, 2],
                                                                   pads=[1, 1, 1, 1])], [("X", x)], [("Y", None)]))
    out.append(model("averagepool_include_pad", [helper.make_node("AveragePool", ["X"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                                                   count_include_pad=1)], [("X", x)], [("Y", None)]))
    out.append(model("globalaveragepool", [helper.make_node("GlobalAveragePool", ["X"], ["Y"])], [("X", x)], [("Y", None)]))
    out.append(model("globalmaxpool", [helper.make_node("GlobalMaxPool", ["X"], ["Y"])], [("X", x)], [("Y", None)]))
    # Matrix products
    out.append(model("gemm_transposed_bias_row", [helper.make_node("Gemm", ["A", "B", "C"], ["Y"], transA=1, transB=1)],
                     [("A", [7, 5])], [("Y", None)], {"B": rng.standard_normal((9, 7)), "C": rng.standard_normal(9)}))
    out.append(model("gemm_bias_column", [helper.make_node("Gemm", ["A", "B", "C"], ["Y"])], [("A", [5, 7]), ("B", [7, 3])], [("Y", None)],
                     {"C": rng.standard_normal((5, 1))}))
    out.append(model("gemm_scalar_bias", [helper.make_node("Gemm", ["A", "B", "C"], ["Y"])], [("A", [3, 4])], [("Y", None)],
                     {"B": rng.standard_normal((4, 6)), "C": rng.standard_normal(())}))
    out.append(model("gemm_no_bias", [helper.make_node("Gemm", ["A", "B"], ["Y"], transB=1)], [("A", [4, 8]), ("B", [3, 8])], [("Y", None)]))
    out.append(model("matmul_batch_broadcast", [helper.make_node("MatMul", ["A", "B"], ["Y"])], [("A", [2, 1, 5, 7]), ("B", [3, 7, 4])],
                     [("Y", None)]))
    out.append(model("matmul_vector", [helper.make_node("MatMul", ["A", "B"], ["Y"])], [("A", [7])], [("Y", None)],
                     {"B": rng.standard_normal((2, 7, 3))}))
    out.append(model("matmul_constant_weights", [helper.make_node("MatMul", ["A", "B"], ["Y"])], [("A", [3, 5, 16])], [("Y", None)],
                     {"B": rng.standard_normal((16, 12))}))
    # Sequence-first rows of one ([seq, batch 1, features]): the batch dims fold into M, one product.
    out.append(model("matmul_rows_of_one", [helper.make_node("MatMul", ["A", "B"], ["Y"])], [("A", [6, 1, 16])], [("Y", None)],
                     {"B": rng.standard_normal((1, 16, 12))}))
    # Normalizations and softmax
    out.append(model("batchnorm", [helper.make_node("BatchNormalization", ["X", "s", "b", "m", "v"], ["Y"], epsilon=1e-3)],
                     [("X", [2, 3, 5, 4])], [("Y", None)],
                     {"s": rng.standard_normal(3), "b": rng.standard_normal(3), "m": rng.standard_normal(3), "v": rng.random(3) + 0.5}))
    out.append(model("layernorm_axis1", [helper.make_node("LayerNormalization", ["X", "S", "B"], ["Y"], axis=1)], [("X", [3, 4, 5])],
                     [("Y", None)], {"S": rng.standard_normal((4, 5)), "B": rng.standard_normal((4, 5))}))
    out.append(model("layernorm_no_bias", [helper.make_node("LayerNormalization", ["X", "S"], ["Y"], epsilon=1e-3)], [("X", [2, 7])],
                     [("Y", None)], {"S": rng.standard_normal(7)}))
    out.append(model("softmax_axis1", [helper.make_node("Softmax", ["X"], ["Y"], axis=1)], [("X", [2, 5, 3])], [("Y", None)]))
    out.append(model("softmax_opset11_coerced", [helper.make_node("Softmax", ["X"], ["Y"], axis=1)], [("X", [2, 5, 3])], [("Y", None)],
                     opset=11))
    out.append(model("logsoftmax_last", [helper.make_node("LogSoftmax", ["X"], ["Y"])], [("X", [4, 9])], [("Y", None)]))
    # The innermost axis over rows of 16-float blocks and a tail (DCW's softmaxRows variant), as BERT's
    # attention scores are: [batch, heads, seq, seq].
    out.append(model("softmax_attention_rows", [helper.make_node("Softmax", ["X"], ["Y"], axis=-1)], [("X", [1, 3, 37, 37])], [("Y", None)]))
    out.append(model("logsoftmax_rows_tail", [helper.make_node("LogSoftmax", ["X"], ["Y"], axis=-1)], [("X", [5, 70])], [("Y", None)]))
    out.append(model("concat_three", [helper.make_node("Concat", ["A", "B", "C"], ["Y"], axis=1)],
                     [("A", [2, 3, 4]), ("B", [2, 1, 4]), ("C", [2, 5, 4])], [("Y", None)]))
    # Elementwise
    out.append(model("add_broadcast", [helper.make_node("Add", ["A", "B"], ["Y"])], [("A", [3, 1]), ("B", [2, 3, 4])], [("Y", None)]))
    out.append(model("sub_broadcast", [helper.make_node("Sub", ["A", "B"], ["Y"])], [("A", [2, 3, 4]), ("B", [4])], [("Y", None)]))
    out.append(model("mul_same", [helper.make_node("Mul", ["A", "B"], ["Y"])], [("A", [5, 6]), ("B", [5, 6])], [("Y", None)]))
    out.append(model("div_by_positive", [helper.make_node("Div", ["A", "B"], ["Y"])], [("A", [5, 6])], [("Y", None)],
                     {"B": rng.random((5, 6)) + 0.5}))
    out.append(model("sum_three", [helper.make_node("Sum", ["A", "B", "C"], ["Y"])], [("A", [4, 5]), ("B", [4, 5]), ("C", [4, 5])],
                     [("Y", None)]))
    for op, attrs in [("Relu", {}), ("LeakyRelu", {"alpha": 0.2}), ("Elu", {"alpha": 0.7}), ("Sigmoid", {}), ("Tanh", {}),
                      ("HardSwish", {}), ("Exp", {}), ("Abs", {}), ("Softplus", {}), ("Neg", {})]:
        out.append(model(op.lower(), [helper.make_node(op, ["X"], ["Y"], **attrs)], [("X", [3, 7, 5])], [("Y", None)]))
    out.append(model("sqrt_of_abs", [helper.make_node("Abs", ["X"], ["T"]), helper.make_node("Sqrt", ["T"], ["Y"])], [("X", [4, 9])],
                     [("Y", None)]))
    out.append(model("reciprocal_of_exp", [helper.make_node("Exp", ["X"], ["T"]), helper.make_node("Reciprocal", ["T"], ["Y"])],
                     [("X", [4, 9])], [("Y", None)]))
    out.append(model("clip_constant_bounds", [helper.make_node("Clip", ["X", "lo", "hi"], ["Y"])], [("X", [3, 8])], [("Y", None)],
                     {"lo": np.array(-0.3), "hi": np.array(0.4)}))
    # Recurrent ops (LSTM gates reordered, biases summed, directions apart in Y, layout 1 as strides)
    out.append(recurrent("lstm_forward_all_outputs", "LSTM", 5, 3, 7, 6, outputs=("Y", "Y_h", "Y_c")))
    out.append(recurrent("lstm_reverse_initial_states", "LSTM", 4, 2, 5, 9, direction="reverse", h0=True, c0=True, outputs=("Y",)))
    out.append(recurrent("lstm_bidirectional_states", "LSTM", 6, 3, 4, 5, direction="bidirectional", h0=True, c0=True,
                         outputs=("Y", "Y_h", "Y_c")))
    out.append(recurrent("lstm_bidirectional_batch1_no_bias", "LSTM", 5, 1, 3, 4, direction="bidirectional", bias=False, outputs=("Y",)))
    out.append(recurrent("lstm_layout1_bidirectional_states", "LSTM", 5, 3, 4, 7, direction="bidirectional", layout=1, h0=True, c0=True,
                         outputs=("Y", "Y_h", "Y_c")))
    out.append(recurrent("lstm_layout1_batch1", "LSTM", 6, 1, 5, 3, layout=1, h0=True, outputs=("Y", "Y_h")))
    out.append(recurrent("lstm_peepholes_states_only", "LSTM", 5, 2, 4, 6, peepholes=True, h0=True, c0=True, outputs=("Y_h", "Y_c")))
    out.append(recurrent("lstm_weights_as_inputs", "LSTM", 4, 3, 5, 5, const=False, h0=True, outputs=("Y", "Y_c")))
    out.append(recurrent("lstm_only_y_c_sequence_lens_full", "LSTM", 3, 2, 3, 11, lens=True, outputs=("Y_c",)))
    out.append(recurrent("gru_forward_initial_h", "GRU", 5, 3, 6, 7, h0=True))
    out.append(recurrent("gru_linear_before_reset_bidirectional", "GRU", 4, 3, 5, 6, direction="bidirectional", linear_before_reset=1))
    out.append(recurrent("gru_linear_before_reset_reverse_layout1_no_bias", "GRU", 5, 2, 3, 5, direction="reverse", layout=1, bias=False,
                         h0=True, linear_before_reset=1))
    out.append(recurrent("gru_bidirectional_layout1_states", "GRU", 3, 4, 5, 3, direction="bidirectional", layout=1, h0=True,
                         outputs=("Y_h",)))
    out.append(recurrent("gru_weights_as_inputs_lbr", "GRU", 4, 2, 3, 4, const=False, linear_before_reset=1))
    out.append(recurrent("rnn_forward_initial_h", "RNN", 6, 3, 5, 7, h0=True))
    out.append(recurrent("rnn_bidirectional_relu_layout1", "RNN", 4, 2, 3, 5, direction="bidirectional", layout=1,
                         activations=["Relu", "Relu"]))
    out.append(recurrent("rnn_reverse_sigmoid_no_bias", "RNN", 5, 1, 4, 3, direction="reverse", bias=False, activations=["Sigmoid"],
                         outputs=("Y_h",)))
    out.append(recurrent("rnn_bidirectional_batch4", "RNN", 3, 4, 2, 9, direction="bidirectional", h0=True, outputs=("Y", "Y_h")))
    # LSTMs the second onednn variant takes (one direction, no peepholes, hidden size a multiple of 16:
    # a oneDNN matmul for the input gates, then the environment's lstmRecurrence); the ctest
    # compare_onednn_lstm_recurrence_with_onnxruntime pins that variant (DCW_ONEDNN_VARIANT=1).
    out.append(recurrent("lstm_recurrence_forward_batch1", "LSTM", 7, 1, 5, 16, outputs=("Y", "Y_h", "Y_c")))
    out.append(recurrent("lstm_recurrence_reverse_states_batch3", "LSTM", 5, 3, 6, 32, direction="reverse", h0=True, c0=True,
                         outputs=("Y", "Y_h", "Y_c")))
    out.append(recurrent("lstm_recurrence_layout1_batch1", "LSTM", 6, 1, 4, 16, layout=1, h0=True, outputs=("Y", "Y_h")))
    out.append(recurrent("lstm_recurrence_weights_as_inputs_no_bias", "LSTM", 4, 2, 3, 16, const=False, bias=False, c0=True,
                         outputs=("Y_c",)))
    # DenseNet's BatchNormalization -> Relu (no convolution before it to fold into), rank 3 and 5: one
    # FusedBatchNormalization after `dcw optimize` (cudnn: the normalization, then ReLU in place).
    out.append(model("batchnorm_relu_rank3", [helper.make_node("BatchNormalization", ["X", "s", "b", "m", "v"], ["T"], epsilon=1e-5),
                                              helper.make_node("Relu", ["T"], ["Y"])], [("X", [2, 6, 7])], [("Y", None)],
                     {"s": rng.standard_normal(6), "b": rng.standard_normal(6), "m": rng.standard_normal(6), "v": rng.random(6) + 0.5}))
    out.append(model("batchnorm_relu_rank5", [helper.make_node("BatchNormalization", ["X", "s", "b", "m", "v"], ["T"]),
                                              helper.make_node("Relu", ["T"], ["Y"])], [("X", [1, 4, 3, 2, 5])], [("Y", None)],
                     {"s": rng.standard_normal(4), "b": rng.standard_normal(4), "m": rng.standard_normal(4), "v": rng.random(4) + 0.5}))
    # Two towers of two 3x3 convolutions each (an inception block's shape, balanced), then their concat:
    # the CPU target runs the towers as concurrent branches on a 2-core machine (the ctest
    # compare_onednn_concurrent_branches_with_onnxruntime expects the group in the code).
    towers = [helper.make_node("Conv", ["X", f"W{k}"], [f"T{k}"], pads=[1, 1, 1, 1]) for k in range(2)]
    towers += [helper.make_node("Relu", [f"T{k}"], [f"R{k}"]) for k in range(2)]
    towers += [helper.make_node("Conv", [f"R{k}", f"V{k}"], [f"U{k}"], pads=[1, 1, 1, 1]) for k in range(2)]
    towers.append(helper.make_node("Concat", ["U0", "U1"], ["Y"], axis=1))
    weights = {f"{w}{k}": rng.standard_normal((24, 24, 3, 3)) * 0.1 for w in "WV" for k in range(2)}
    out.append(model("concurrent_conv_towers", towers, [("X", [1, 24, 28, 28])], [("Y", None)], weights))
    # Max poolings between convolutions: channels-last after `dcw optimize`, where DCW's own kernel
    # (maxPoolChannelsLast) is the second variant; GoogLeNet's 3x3 window of stride 1 (the kernel's
    # separable path), then one with dilations, uneven pads and ceil_mode (its direct path), on 24
    # channels (a block of 16 and a partial one) and a batch of 2 (the ctest
    # compare_onednn_channels_last_maxpool_with_onnxruntime pins that variant: DCW_ONEDNN_VARIANT=1).
    pools = [helper.make_node("Conv", ["X", "W0"], ["A"]),
             helper.make_node("MaxPool", ["A"], ["B"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("MaxPool", ["B"], ["P"], kernel_shape=[3, 2], strides=[2, 2], dilations=[1, 2], pads=[1, 0, 1, 1], ceil_mode=1),
             helper.make_node("Conv", ["P", "W1"], ["Y"])]
    out.append(model("maxpool_channels_last", pools, [("X", [2, 8, 11, 10])], [("Y", None)],
                     {"W0": rng.standard_normal((24, 8, 1, 1)), "W1": rng.standard_normal((8, 24, 1, 1))}))
    # Residual blocks (ResNet's skip connections) after `dcw optimize`: the first block's second
    # convolution adds its skip A with a sum post-op in A's storage (A is not read after it:
    # ir::Tasklet::inPlace, the CPU arena gives D A's slot); the second block's convolution reads its skip
    # D as its input too, so it writes a buffer of its own. The ctests compare_onednn_residual_in_place_* expect the
    # one in-place slot in the code, with the variants timed and with the binary_add variant pinned
    # (DCW_ONEDNN_VARIANT=3: left out where Y is in Z's storage).
    blocks = [helper.make_node("Conv", ["X", "W0"], ["A0"], pads=[1, 1, 1, 1]),
              helper.make_node("Relu", ["A0"], ["A"]),
              helper.make_node("Conv", ["A", "W1"], ["B0"], pads=[1, 1, 1, 1]),
              helper.make_node("Relu", ["B0"], ["B"]),
              helper.make_node("Conv", ["B", "W3"], ["B1"], pads=[1, 1, 1, 1]),
              helper.make_node("Add", ["B1", "A"], ["C"]),
              helper.make_node("Relu", ["C"], ["D"]),
              helper.make_node("Conv", ["D", "W2"], ["E"]),
              helper.make_node("Add", ["D", "E"], ["F"]),
              helper.make_node("Relu", ["F"], ["G"]),
              helper.make_node("Conv", ["G", "W4"], ["Y"])]
    out.append(model("residual_in_place", blocks, [("X", [2, 16, 9, 7])], [("Y", None)],
                     {"W0": rng.standard_normal((24, 16, 3, 3)) * 0.1, "W1": rng.standard_normal((24, 24, 3, 3)) * 0.1,
                      "W2": rng.standard_normal((24, 24, 1, 1)) * 0.2, "W3": rng.standard_normal((24, 24, 3, 3)) * 0.1,
                      "W4": rng.standard_normal((5, 24, 1, 1))}))
    # A ResNet bottleneck's last convolution at ResNet-50's size (64 -> 256 channels on 56x56) with its
    # residual Add and Relu: after `dcw optimize` its variants include a binary_add of the skip (the graph
    # input, row-major) on a Y blocked or channels-last, which oneDNN serves only by im2col and sgemm, many times slower than
    # brgconv; the ctest first_run_times_slow_variant_once expects that variant run twice on the first
    # run (its untimed run and the first round), not in the rounds after.
    wide = [helper.make_node("Conv", ["X", "W0"], ["A0"]),
            helper.make_node("Relu", ["A0"], ["A"]),
            helper.make_node("Conv", ["A", "W1"], ["B"]),
            helper.make_node("Add", ["B", "X"], ["C"]),
            helper.make_node("Relu", ["C"], ["D"]),
            helper.make_node("Conv", ["D", "W2"], ["Y"])]
    out.append(model("residual_wide", wide, [("X", [1, 256, 56, 56])], [("Y", None)],
                     {"W0": rng.standard_normal((64, 256, 1, 1)) * 0.05, "W1": rng.standard_normal((256, 64, 1, 1)) * 0.1,
                      "W2": rng.standard_normal((8, 256, 1, 1)) * 0.05}))
    # Stems of image networks on 1 to 4 input channels, each followed by a 1x1 convolution so that
    # `dcw optimize` makes its output channels-last: DCW's few-channel convolution (convFewChannels) is
    # the call's last variant there (the ctests compare_onednn_few_channel_conv_*_with_onnxruntime pin it,
    # DCW_ONEDNN_VARIANT=2, and the primitive with its SiLU and GELU passes as `finish`, 0). A 5x5 of
    # stride 2 with Relu (64 channels, a batch of 2); EfficientNet's 3x3 of stride 2 with SiLU; one
    # channel, dilated 5x5, Clip(0, 6), 24 channels (a partial vector); ConvNeXt's 4x4 of stride 4 on 4
    # channels, no bias, 96 channels (64 and 32); uneven pads with HardSwish; LeakyRelu with W a graph
    # input (packed on every run); HardSigmoid; GELU as PyTorch exports it. Two that stay oneDNN's alone
    # (the ctest few_channel_conv_where_it_takes counts 8 kernels): a 7x7 window, and 5 input channels.
    stems, inputs, outputs, weights = [], [], [], {}
    def stem(k, x, m, kernel, act, bias=True, w_input=False, **attrs):
        inputs.append((f"X{k}", x))
        names = [f"X{k}", f"W{k}"]
        w = rng.standard_normal((m, x[1]) + kernel) * 0.3
        if w_input:
            inputs.append((f"W{k}", list(w.shape)))
        else:
            weights[f"W{k}"] = w
        if bias:
            weights[f"B{k}"] = rng.standard_normal(m) * 0.2
            names.append(f"B{k}")
        stems.append(helper.make_node("Conv", names, [f"S{k}"], **attrs))
        a, s = f"A{k}", f"S{k}"
        if act == "Silu":
            stems.extend([helper.make_node("Sigmoid", [s], [f"G{k}"]), helper.make_node("Mul", [s, f"G{k}"], [a])])
        elif act == "Gelu":
            weights.update({f"r{k}": np.array(1.4142135381698608), f"one{k}": np.array(1.0), f"half{k}": np.array(0.5)})
            stems.extend([helper.make_node("Div", [s, f"r{k}"], [f"D{k}"]), helper.make_node("Erf", [f"D{k}"], [f"E{k}"]),
                          helper.make_node("Add", [f"E{k}", f"one{k}"], [f"P{k}"]), helper.make_node("Mul", [s, f"P{k}"], [f"Q{k}"]),
                          helper.make_node("Mul", [f"Q{k}", f"half{k}"], [a])])
        elif act == "Clip":
            weights.update({f"lo{k}": np.array(0.0), f"hi{k}": np.array(6.0)})
            stems.append(helper.make_node("Clip", [s, f"lo{k}", f"hi{k}"], [a]))
        elif act == "LeakyRelu":
            stems.append(helper.make_node("LeakyRelu", [s], [a], alpha=0.1))
        elif act == "HardSigmoid":
            stems.append(helper.make_node("HardSigmoid", [s], [a], alpha=0.2, beta=0.5))
        elif act:
            stems.append(helper.make_node(act, [s], [a]))
        else:
            a = s
        weights[f"V{k}"] = rng.standard_normal((8, m, 1, 1)) * 0.2
        stems.append(helper.make_node("Conv", [a, f"V{k}"], [f"Y{k}"]))
        outputs.append((f"Y{k}", None))
    stem(0, [2, 3, 29, 27], 64, (5, 5), "Relu", strides=[2, 2], pads=[2, 2, 2, 2])
    stem(1, [1, 3, 33, 35], 32, (3, 3), "Silu", strides=[2, 2], pads=[1, 1, 1, 1])
    stem(2, [2, 1, 20, 17], 24, (5, 5), "Clip", dilations=[2, 2], pads=[2, 2, 2, 2])
    stem(3, [1, 4, 24, 28], 96, (4, 4), None, bias=False, strides=[4, 4])
    stem(4, [1, 2, 13, 11], 16, (3, 3), "HardSwish", pads=[0, 1, 2, 0])
    stem(5, [1, 3, 10, 9], 40, (3, 3), "LeakyRelu", w_input=True, pads=[1, 1, 1, 1])
    stem(6, [1, 3, 15, 15], 48, (3, 3), "HardSigmoid", strides=[2, 2], pads=[1, 1, 1, 1])
    stem(7, [1, 3, 20, 20], 16, (3, 3), "Gelu", pads=[1, 1, 1, 1])
    stem(8, [1, 3, 19, 19], 32, (7, 7), "Relu", strides=[2, 2], pads=[3, 3, 3, 3])
    stem(9, [1, 5, 9, 9], 16, (3, 3), "Relu", pads=[1, 1, 1, 1])
    out.append(model("few_channel_stems", stems, inputs, outputs, weights))
    return out


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    written = cases()
    for name, m in written:
        onnx.save(m, os.path.join(outdir, name + ".onnx"))
        if name in REFERENCES:
            onnx.save(REFERENCES[name], os.path.join(outdir, name + ".onnx.for-ort"))
    print(f"wrote {len(written)} models to {outdir}")


if __name__ == "__main__":
    main()
