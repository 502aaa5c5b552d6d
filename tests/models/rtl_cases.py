#!/usr/bin/python3
"""Writes small integer and float32 ONNX models (opset 17, fixed shapes) whose FPGA kernels DCW generates as RTL and
simulates with Verilator (`dcw rtl-sim`, codegen/fpga/RtlCosim.h): streaming elementwise maps (one
and two loops, a 3-stage multiplier, broadcasting, comparisons and selects) and reductions (sum, max,
product: an accumulation whose II is the multiplier's latency; a column sum: read-modify-write through
memory, slowed to let each write land before the element is read again), and the same in float32
(the binary32 cores: additions, products, comparisons, selects, sums and maxima, a MatMul whose
accumulation waits for the 4-stage adder). A model named csim_only_* has a kernel RTL does not cover
(a floating-point division: no divider core) and must run in C-simulation, saying why.
The check is tests/models/check_rtl_sim.py.

usage: rtl_cases.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(name, nodes, inputs, outputs, initializers=(), dtype=TensorProto.INT32):
    ins = [helper.make_tensor_value_info(n, dtype, s) for n, s in inputs]
    outs = [helper.make_tensor_value_info(n, dtype, None) for n in outputs]
    m = helper.make_model(helper.make_graph(nodes, name, ins, outs, initializer=list(initializers)),
                          opset_imports=[helper.make_opsetid("", 17)])
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    return name, m


def axes(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def cases():
    n = helper.make_node
    F = TensorProto.FLOAT
    return [
        model("add_elementwise", [n("Add", ["a", "b"], ["y"])], [("a", [4, 256]), ("b", [4, 256])], ["y"]),
        model("mul_add_two_loops", [n("Mul", ["a", "b"], ["t"]), n("Add", ["t", "c"], ["y"])],
              [("a", [1024]), ("b", [1024]), ("c", [1024])], ["y"]),
        model("mul_broadcast_row", [n("Mul", ["a", "b"], ["y"])], [("a", [32, 64]), ("b", [64])], ["y"]),
        model("relu", [n("Relu", ["a"], ["y"])], [("a", [2048])], ["y"]),
        model("greater_where", [n("Greater", ["a", "b"], ["c"]), n("Where", ["c", "a", "b"], ["y"])],
              [("a", [1024]), ("b", [1024])], ["y"]),
        model("reduce_sum_rows", [n("ReduceSum", ["a", "ax"], ["y"], keepdims=0)], [("a", [16, 64])], ["y"], [axes("ax", [1])]),
        model("reduce_max_rows", [n("ReduceMax", ["a"], ["y"], axes=[1], keepdims=0)], [("a", [16, 64])], ["y"]),
        model("reduce_prod_rows", [n("ReduceProd", ["a"], ["y"], axes=[1], keepdims=0)], [("a", [8, 32])], ["y"]),
        model("reduce_sum_columns_narrow", [n("ReduceSum", ["a", "ax"], ["y"], keepdims=0)], [("a", [64, 4])], ["y"],
              [axes("ax", [0])]),
        # float32 kernels: binary32 cores (codegen/fpga/rtl/dcw_float32.vh), a 4-stage adder and a 3-stage multiplier
        model("float_add_elementwise", [n("Add", ["a", "b"], ["y"])], [("a", [4, 256]), ("b", [4, 256])], ["y"], dtype=F),
        model("float_mul_add_two_loops", [n("Mul", ["a", "b"], ["t"]), n("Add", ["t", "c"], ["y"])],
              [("a", [1024]), ("b", [1024]), ("c", [1024])], ["y"], dtype=F),
        model("float_relu", [n("Relu", ["a"], ["y"])], [("a", [2048])], ["y"], dtype=F),
        model("float_less_where_max", [n("Less", ["a", "b"], ["c"]), n("Where", ["c", "a", "b"], ["t"]), n("Max", ["t", "b"], ["y"])],
              [("a", [1024]), ("b", [1024])], ["y"], dtype=F),
        model("float_reduce_sum_rows", [n("ReduceSum", ["a", "ax"], ["y"], keepdims=0)], [("a", [16, 64])], ["y"], [axes("ax", [1])], dtype=F),
        model("float_reduce_max_rows", [n("ReduceMax", ["a"], ["y"], axes=[1], keepdims=0)], [("a", [16, 64])], ["y"], dtype=F),
        model("float_matmul", [n("MatMul", ["a", "b"], ["y"])], [("a", [8, 32]), ("b", [32, 16])], ["y"], dtype=F),
        model("csim_only_float_divide", [n("Div", ["a", "b"], ["y"])], [("a", [64]), ("b", [64])], ["y"], dtype=F),
    ]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in cases():
        onnx.save(m, os.path.join(out, name + ".onnx"))
    print(f"wrote {len(cases())} models to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
