#!/usr/bin/python3
"""Runs models through `dcw run` and through ONNX Runtime (../shared/peers/ort) on the same random
inputs and compares the outputs (default rtol 1e-3, atol 1e-4). Prints one line per model and exits
1 when any output differs.

Without the peer it exits 77 (ctest's SKIP_RETURN_CODE) with the reason, except in CI (the CI
variable set, as CI systems do: CI=true), where the peer is part of the checkout's shared/ folder and
its absence is a failure (exit 1): a comparison that CI is supposed to run may not turn into a skip.

usage: compare_with_ort.py DCW_BINARY MODEL.onnx... [--rtol R] [--atol A] [--ort PATH]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, numpy_helper


def read(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def outputs(folder):
    out, i = [], 0
    while os.path.exists(os.path.join(folder, f"output_{i}.pb")):
        out.append(read(os.path.join(folder, f"output_{i}.pb")))
        i += 1
    return out


def in_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dcw")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--ort", default=os.path.normpath(os.path.join(here, "../../../shared/peers/ort")))
    ns = ap.parse_args()
    if not os.path.exists(ns.ort):
        where = f"the ONNX Runtime peer is not at {ns.ort} (it comes with the shared/ folder beside the repository)"
        if in_ci():
            print(f"error: {where}; CI must have it, so this is a failure, not a skip", file=sys.stderr)
            return 1
        print(f"skipped: {where}; outside CI (CI is not set) this is a skip")
        return 77
    bad = 0
    for model in ns.models:
        name = os.path.basename(model)
        with tempfile.TemporaryDirectory() as tmp:
            mine, theirs = os.path.join(tmp, "dcw"), os.path.join(tmp, "ort")
            os.makedirs(theirs)
            r = subprocess.run([ns.dcw, "run", model, "--random", "1", "--outputs", mine], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAILED   {name}: dcw run: {r.stderr.strip()}")
                bad += 1
                continue
            r = subprocess.run([ns.ort, model, "--inputs", mine, "--outputs", theirs], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAILED   {name}: onnxruntime: {r.stderr.strip()[-400:]}")
                bad += 1
                continue
            a, b = outputs(mine), outputs(theirs)
            if len(a) != len(b):
                print(f"FAILED   {name}: {len(a)} outputs from dcw, {len(b)} from onnxruntime")
                bad += 1
                continue
            worst = 0.0
            scale = max((float(np.max(np.abs(y))) for y in b if y.size), default=0.0)
            ok = True
            for x, y in zip(a, b):
                if x.shape != y.shape:
                    print(f"FAILED   {name}: shape {x.shape} vs {y.shape}")
                    ok = False
                    break
                worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) if x.size else 0.0)
                ok = ok and np.allclose(x, y, rtol=ns.rtol, atol=ns.atol)
            print(f"{'passed ' if ok else 'FAILED '}  {name}: max abs difference {worst:.3g}, largest output magnitude "
                  f"{scale:.3g} (rtol {ns.rtol}, atol {ns.atol})")
            bad += 0 if ok else 1
    print(f"{len(ns.models) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
