#!/usr/bin/python3
"""Generate the bad-input fixtures in tests/data/bad/ (see README.md there).

Usage:
    /usr/bin/python3 tests/data/bad/make_bad_inputs.py [OUTDIR] [--verify]

OUTDIR defaults to this script's folder.  Output is deterministic (seeded), so
re-running it leaves the committed files unchanged.  --verify re-reads every
file with the onnx Python package (1.12) and asserts that each one has exactly
its intended defect and is otherwise well formed.

Every model is tiny and, apart from its one defect, valid: IR version 8,
ai.onnx opset 17, float tensors with declared shapes.  Models the checker would
refuse are built with onnx.helper and written as raw serialized bytes, without
running the checker.
"""

import os
import random
import struct
import sys

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
IR_VERSION = 8
OPSET = 17

# Values of W in external_ok/weights.bin (row-major float32 [2,3]).
W_VALUES = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
# external_ok stores W at this byte offset; the bytes before it are 0xFF
# (float NaN), so an importer that ignores the offset gets visibly wrong values.
W_OFFSET = 64


def _model(nodes, inputs, outputs, initializers=(), value_info=(), opsets=None, name="g"):
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(initializers), value_info=list(value_info))
    opsets = opsets or [helper.make_opsetid("", OPSET)]
    m = helper.make_model(graph, opset_imports=opsets, producer_name="dcw-bad-inputs")
    m.ir_version = IR_VERSION
    return m


def _f(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def _write(outdir, rel, data):
    path = os.path.join(outdir, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, onnx.ModelProto):
        data = data.SerializeToString()  # raw bytes: no checker, no external-data handling
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    return path


def _external(name, location, offset, length, dims=(2, 3)):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def _add_external(location, offset, length):
    """Y = X + W, X and W float [2,3], W stored as external data."""
    return _model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
                  [_f("X", [2, 3])], [_f("Y", [2, 3])],
                  initializers=[_external("W", location, offset, length)])


def generate(outdir):
    w = []

    # Not a model at all.
    w.append(_write(outdir, "empty.onnx", b""))
    rng = random.Random(20240601)
    w.append(_write(outdir, "random_bytes.onnx", bytes(rng.getrandbits(8) for _ in range(4096))))
    w.append(_write(outdir, "text.onnx",
                    # Starts with 'N' (0x4E = protobuf field 9, wire type 6, which does not
                    # exist), so protobuf refuses the very first byte.  Text starting with
                    # e.g. 'T' (wire type 4, end-group) would "parse" as an empty ModelProto.
                    "Not an ONNX model. This is a plain English text file that was given the\n"
                    ".onnx extension by mistake; a model importer must say so instead of\n"
                    "crashing or printing a protobuf parse error without context.\n"))

    # A valid model (Y = X + W, W a 64-float initializer) cut at 60% of its bytes.
    rng = random.Random(7)
    wvals = [rng.uniform(-1, 1) for _ in range(64)]
    m = _model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
               [_f("X", [64])], [_f("Y", [64])],
               initializers=[helper.make_tensor("W", TensorProto.FLOAT, [64],
                                                struct.pack("<64f", *wvals), raw=True)])
    onnx.checker.check_model(m, full_check=True)  # valid before the cut
    full = m.SerializeToString()
    w.append(_write(outdir, "truncated.onnx", full[: int(len(full) * 0.6)]))

    # External data.
    nbytes = 4 * len(W_VALUES)
    w.append(_write(outdir, "missing_external/model.onnx", _add_external("weights.bin", 0, nbytes)))
    w.append(_write(outdir, "external_ok/model.onnx", _add_external("weights.bin", W_OFFSET, nbytes)))
    w.append(_write(outdir, "external_ok/weights.bin",
                    b"\xff" * W_OFFSET + struct.pack("<6f", *W_VALUES)))
    w.append(_write(outdir, "external_escape/model.onnx", _add_external("../outside.bin", 0, nbytes)))
    # A perfectly readable weights file outside the model folder: a naive
    # importer would "succeed" with it, which is exactly what must not happen.
    w.append(_write(outdir, "outside.bin", struct.pack("<6f", *W_VALUES)))
    w.append(_write(outdir, "external_abs/model.onnx", _add_external("/etc/passwd", 0, nbytes)))

    # Dims whose product overflows int64 (2^32 * 2^32 * 16 = 2^68).
    big = [4294967296, 4294967296, 16]
    w.append(_write(outdir, "overflow_dims.onnx",
                    _model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                           [_f("X", big)], [_f("Y", big)])))

    # A Conv with a zero stride and a MaxPool with a zero kernel size: ONNX's own shape inference
    # divides by them (SIGFPE); found by the fuzzer.
    w.append(_write(outdir, "zero_stride.onnx",
                    _model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", kernel_shape=[3, 3],
                                             pads=[1, 1, 1, 1], strides=[2, 0])],
                           [_f("X", [1, 1, 7, 5]), _f("W", [1, 1, 3, 3])], [_f("Y", [1, 1, 4, 3])])))
    w.append(_write(outdir, "zero_kernel.onnx",
                    _model([helper.make_node("MaxPool", ["X"], ["Y"], name="pool", kernel_shape=[0, 2])],
                           [_f("X", [1, 1, 4, 4])], [_f("Y", [1, 1, 4, 3])])))

    # Two Relus feeding each other: A -> relu_ab -> B -> relu_ba -> A.
    w.append(_write(outdir, "cycle.onnx",
                    _model([helper.make_node("Relu", ["A"], ["B"], name="relu_ab"),
                            helper.make_node("Relu", ["B"], ["A"], name="relu_ba")],
                           [], [_f("B", [2, 3])],
                           value_info=[_f("A", [2, 3])])))

    # A node reads 'ghost', which nothing defines.
    w.append(_write(outdir, "undefined_input.onnx",
                    _model([helper.make_node("Relu", ["X"], ["T"], name="relu"),
                            helper.make_node("Add", ["T", "ghost"], ["Y"], name="add")],
                           [_f("X", [2, 3])], [_f("Y", [2, 3])],
                           value_info=[_f("T", [2, 3])])))

    # Two nodes both produce 'Y'.
    w.append(_write(outdir, "duplicate_output.onnx",
                    _model([helper.make_node("Relu", ["X"], ["Y"], name="relu"),
                            helper.make_node("Sigmoid", ["X"], ["Y"], name="sigmoid")],
                           [_f("X", [2, 3])], [_f("Y", [2, 3])])))

    # A custom-domain op between two standard ops.
    w.append(_write(outdir, "unknown_domain.onnx",
                    _model([helper.make_node("Relu", ["X"], ["A"], name="relu"),
                            helper.make_node("MyOp", ["A"], ["B"], name="my_op",
                                             domain="com.example.custom"),
                            helper.make_node("Sigmoid", ["B"], ["Y"], name="sigmoid")],
                           [_f("X", [2, 3])], [_f("Y", [2, 3])],
                           value_info=[_f("A", [2, 3]), _f("B", [2, 3])],
                           opsets=[helper.make_opsetid("", OPSET),
                                   helper.make_opsetid("com.example.custom", 1)])))

    # A valid Relu model claiming ai.onnx opset 99.
    w.append(_write(outdir, "opset_too_new.onnx",
                    _model([helper.make_node("Relu", ["X"], ["Y"], name="relu")],
                           [_f("X", [2, 3])], [_f("Y", [2, 3])],
                           opsets=[helper.make_opsetid("", 99)])))

    # Gemm of opset 6 whose B is declared with rank 0 (found by the fuzzer): ONNX 1.12's Gemm-6 shape
    # inference reads dimension 1 of B without checking its rank and ends the process with SIGSEGV.
    w.append(_write(outdir, "gemm_rank0_b.onnx",
                    _model([helper.make_node("Gemm", ["A", "B", "C"], ["Y"], name="gemm")],
                           [_f("A", [2, 3]), _f("B", []), _f("C", [])], [_f("Y", [2, 4])],
                           opsets=[helper.make_opsetid("", 6)])))

    # A DCW project file cut off in the middle (no trailing newline).
    w.append(_write(outdir, "corrupted.dcw.json",
                    '{"format": "dcw", "version": 1, "sdfg": {"name": "main", "states": [\n'
                    '    {"name": "state_0", "nodes": [{"id": 0, "kind": "Access", "da'))
    return w


# --------------------------------------------------------------------------- verify

def _expect_raise(what, fn):
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a partial parse only warns; count it as failure
            fn()
    except Exception as e:  # noqa: BLE001 - any failure is what we want
        return f"raises {type(e).__name__}: {str(e).strip().splitlines()[0][:110]}"
    raise AssertionError(f"{what}: expected a failure, got none")


def _parse(path):
    m = onnx.ModelProto()
    with open(path, "rb") as f:
        m.ParseFromString(f.read())
    return m


def _in_dir(d, fn):
    old = os.getcwd()
    os.chdir(d)
    try:
        return fn()
    finally:
        os.chdir(old)


def _ops(m):
    return [(n.domain + "::" if n.domain else "") + n.op_type for n in m.graph.node]


def verify(d):
    import numpy as np
    from onnx import numpy_helper

    p = lambda rel: os.path.join(d, rel)  # noqa: E731
    r = {}

    assert os.path.getsize(p("empty.onnx")) == 0
    r["empty.onnx"] = "0 bytes"
    for rel in ("random_bytes.onnx", "truncated.onnx", "text.onnx"):
        r[rel] = _expect_raise(rel, lambda rel=rel: onnx.load(p(rel)))
    assert os.path.getsize(p("random_bytes.onnx")) == 4096

    # missing_external: the proto itself is fine; only the data file is missing.
    m = _parse(p("missing_external/model.onnx"))
    assert not os.path.exists(p("missing_external/weights.bin"))
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:  # with the file present it would load
        shutil.copy(p("missing_external/model.onnx"), tmp)
        shutil.copy(p("external_ok/weights.bin"), tmp)
        onnx.checker.check_model(os.path.join(tmp, "model.onnx"), full_check=True)
        onnx.load(os.path.join(tmp, "model.onnx"))
    r["missing_external/model.onnx"] = "onnx.load " + _expect_raise(
        "missing_external", lambda: onnx.load(p("missing_external/model.onnx")))
    r["missing_external/model.onnx"] += "; check_model " + _in_dir(p("missing_external"), lambda: _expect_raise(
        "missing_external check", lambda: onnx.checker.check_model(m)))

    # external_ok: loads, checks, infers, and W has the documented values.
    onnx.checker.check_model(p("external_ok/model.onnx"), full_check=True)
    m = onnx.load(p("external_ok/model.onnx"))
    W = numpy_helper.to_array(m.graph.initializer[0])
    assert W.shape == (2, 3) and np.array_equal(W.ravel(), np.array(W_VALUES, np.float32)), W
    r["external_ok/model.onnx"] = f"OK, ops {_ops(m)}, W={W.ravel().tolist()}"

    # escape / absolute: proto well formed, and the named file really exists from the
    # model's folder (so only a path check can refuse it).  onnx 1.12's C++ checker
    # accepts both; its Python loader silently strips the path to the base name.
    for rel, loc in (("external_escape/model.onnx", "../outside.bin"),
                     ("external_abs/model.onnx", "/etc/passwd")):
        m = _parse(p(rel))
        kv = {e.key: e.value for e in m.graph.initializer[0].external_data}
        assert kv["location"] == loc, kv
        mdir = os.path.dirname(p(rel))
        assert os.path.isfile(os.path.join(mdir, loc)), loc
        _in_dir(mdir, lambda m=m: onnx.checker.check_model(m))
        r[rel] = f"location {loc!r} exists; onnx 1.12 check_model accepts it (no path check)"

    # overflow_dims: checker and shape inference accept it; the product overflows int64.
    m = onnx.load(p("overflow_dims.onnx"))
    onnx.checker.check_model(m, full_check=True)
    dims = [x.dim_value for x in m.graph.input[0].type.tensor_type.shape.dim]
    prod = 1
    for x in dims:
        prod *= x
    assert prod > 2**63 - 1 and all(0 < x <= 2**63 - 1 for x in dims)
    r["overflow_dims.onnx"] = f"checker OK; dims {dims}, product 2^{prod.bit_length() - 1} > INT64_MAX"

    for rel in ("cycle.onnx", "undefined_input.onnx", "duplicate_output.onnx"):
        m = onnx.load(p(rel))
        r[rel] = f"ops {_ops(m)}; check_model " + _expect_raise(rel, lambda m=m: onnx.checker.check_model(m))

    # ... and each is one edit away from a valid model, so that is its only defect.
    m = onnx.load(p("cycle.onnx"))  # every consumed name is produced by a node: a cycle, not a dangling read
    produced = {o for n in m.graph.node for o in n.output}
    assert all(i in produced for n in m.graph.node for i in n.input)
    del m.graph.node[1]
    m.graph.input.append(_f("A", [2, 3]))
    onnx.checker.check_model(m, full_check=True)
    m = onnx.load(p("undefined_input.onnx"))
    m.graph.input.append(_f("ghost", [2, 3]))
    onnx.checker.check_model(m, full_check=True)
    m = onnx.load(p("duplicate_output.onnx"))
    m.graph.node[1].output[0] = "Y2"
    onnx.checker.check_model(m, full_check=True)
    m = onnx.load(p("opset_too_new.onnx"))
    m.opset_import[0].version = OPSET
    onnx.checker.check_model(m, full_check=True)

    m = onnx.load(p("unknown_domain.onnx"))
    onnx.checker.check_model(m)
    inf = onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    assert [o.domain for o in m.opset_import] == ["", "com.example.custom"]
    r["unknown_domain.onnx"] = (f"checker and strict shape inference accept it (no schema, skipped); "
                                f"ops {_ops(inf)}")

    m = onnx.load(p("opset_too_new.onnx"))
    onnx.checker.check_model(m)  # onnx 1.12 accepts it (resolves Relu to its newest schema)
    assert m.opset_import[0].version > onnx.defs.onnx_opset_version()
    r["opset_too_new.onnx"] = (f"ops {_ops(m)}, ai.onnx opset {m.opset_import[0].version} > newest known "
                               f"{onnx.defs.onnx_opset_version()}; onnx 1.12 check_model accepts it")

    # gemm_rank0_b: onnx 1.12's own shape inference dies of SIGSEGV on it (in a child process here).
    import subprocess
    probe = subprocess.run([sys.executable, "-c", "import onnx, sys; onnx.shape_inference.infer_shapes("
                            "onnx.load(sys.argv[1]))", p("gemm_rank0_b.onnx")], capture_output=True)
    assert probe.returncode < 0, probe
    r["gemm_rank0_b.onnx"] = f"onnx.shape_inference.infer_shapes ends with signal {-probe.returncode}"

    import json
    text = open(p("corrupted.dcw.json"), encoding="utf-8").read()
    assert text.startswith('{"format": "dcw", "version": 1, "sdfg": {"name": "main", "states": [')
    r["corrupted.dcw.json"] = "json.loads " + _expect_raise("corrupted", lambda: json.loads(text))

    for k, v in r.items():
        print(f"{k:28s} {v}")


def main(argv):
    args = [a for a in argv if a != "--verify"]
    outdir = args[0] if args else HERE
    for path in generate(outdir):
        print(f"{os.path.getsize(path):6d}  {os.path.relpath(path, outdir)}")
    if "--verify" in argv:
        verify(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
