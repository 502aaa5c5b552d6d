#!/usr/bin/python3
"""Small ONNX models for the "maps" transformation tests (StripMining, MapInterchange, MapCollapse,
MapExpansion, TrivialMapElimination, MapUnroll, Vectorization).

Writes into tests/data/transforms/maps/:
  add_bcast_4x32.onnx  Z[4,32] = X[4,32] + Y[32]   (innermost dimension 32: divisible by 8 and 16,
                                                     unit-stride reads and writes, a broadcast read)
  eyelike_1x4.onnx     Y[1,4] = EyeLike(X[1,4], k=1) (a map dimension with one iteration whose
                                                     parameter the tasklet code uses)
  matmul_12x12.onnx    Y[1,12,12,16] = MatMul(A[1,12,12,32], B[32,16]) (a channels-last linear layer,
                                                     as ConvNeXt's: the 12x12 rows merge into one parallel
                                                     parameter that the sum over 32 writes through its digits)
  relu_64x48.onnx      Y[64,48] = Relu(X[64,48])   (a map that streams: rows of 48 in order, nothing reused)
  reduce_mean_1x1.onnx Y[1] = ReduceMean(X[1,1], axes=[1], keepdims=0) (Silero VAD's mean over one value:
                                                     the sum's map has one iteration and an ordering edge
                                                     from the accumulator's initialisation)
Run:  /usr/bin/python3 tests/models/maps_models.py
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "transforms", "maps")


def one_node(name, op, inputs, outputs, **attrs):
    """A model of one `op` node: inputs and outputs as (name, shape) pairs, float32."""
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in inputs]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in outputs]
    node = helper.make_node(op, [n for n, _ in inputs], [n for n, _ in outputs], name=op + "_0", **attrs)
    graph = helper.make_graph([node], name, ins, outs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="maps_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


MODELS = {
    "add_bcast_4x32": lambda: one_node("add_bcast_4x32", "Add", [("X", [4, 32]), ("Y", [32])], [("Z", [4, 32])]),
    "eyelike_1x4": lambda: one_node("eyelike_1x4", "EyeLike", [("X", [1, 4])], [("Y", [1, 4])], k=1),
    "matmul_12x12": lambda: one_node("matmul_12x12", "MatMul", [("A", [1, 12, 12, 32]), ("B", [32, 16])],
                                     [("Y", [1, 12, 12, 16])]),
    "relu_64x48": lambda: one_node("relu_64x48", "Relu", [("X", [64, 48])], [("Y", [64, 48])]),
    "reduce_mean_1x1": lambda: one_node("reduce_mean_1x1", "ReduceMean", [("X", [1, 1])], [("Y", [1])], axes=[1], keepdims=0),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in MODELS.items():
        path = os.path.join(OUT, name + ".onnx")
        onnx.save(make(), path)
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
