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
Run:  /usr/bin/python3 tests/models/maps_models.py
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "transforms", "maps")


def add_bcast_4x32():
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, 32])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [32])
    z = helper.make_tensor_value_info("Z", TensorProto.FLOAT, [4, 32])
    node = helper.make_node("Add", ["X", "Y"], ["Z"], name="Add_0")
    graph = helper.make_graph([node], "add_bcast_4x32", [x, y], [z])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="maps_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def eyelike_1x4():
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4])
    node = helper.make_node("EyeLike", ["X"], ["Y"], name="EyeLike_0", k=1)
    graph = helper.make_graph([node], "eyelike_1x4", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="maps_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def matmul_12x12():
    a = helper.make_tensor_value_info("A", TensorProto.FLOAT, [1, 12, 12, 32])
    b = helper.make_tensor_value_info("B", TensorProto.FLOAT, [32, 16])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 12, 12, 16])
    node = helper.make_node("MatMul", ["A", "B"], ["Y"], name="MatMul_0")
    graph = helper.make_graph([node], "matmul_12x12", [a, b], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="maps_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def relu_64x48():
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [64, 48])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [64, 48])
    node = helper.make_node("Relu", ["X"], ["Y"], name="Relu_0")
    graph = helper.make_graph([node], "relu_64x48", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="maps_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in [("add_bcast_4x32", add_bcast_4x32), ("eyelike_1x4", eyelike_1x4), ("matmul_12x12", matmul_12x12),
                       ("relu_64x48", relu_64x48)]:
        path = os.path.join(OUT, name + ".onnx")
        onnx.save(make(), path)
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
