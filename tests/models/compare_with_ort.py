#!/usr/bin/python3
"""Runs models through `dcw run` and through ONNX Runtime (../shared/peers/ort) on the same random
inputs and compares the outputs (default rtol 1e-3, atol 1e-4). Prints one line per model and exits
1 when any output differs.

--dcw-arg ARG (repeatable) passes ARG to `dcw run` (e.g. --dcw-arg=--prefer --dcw-arg=onednn; --optimize passes
the --prefer ones to `dcw optimize` too); with --expect-in-code TEXT (repeatable: each TEXT), `dcw codegen` with the same arguments must produce code containing TEXT (so a
comparison of the oneDNN path cannot pass by falling back to pure everywhere); --also-pure compares
with dcw's default path on the same inputs too; --optimize replays the steps of `dcw optimize` (every
dynamic dim 1, as `dcw run --random` specializes them; for the --target given to dcw run) before running; --via-json runs the model as
`dcw convert` saves it (a .dcw.json, which keeps its dims symbolic) instead of the .onnx.
--optimize-once --size NAME=V,NAME=V... (repeatable) optimizes once, without --dim (as a user who does not
say a size does), saving the optimized model (`dcw optimize -o`) and its steps, and runs at every size: the
steps replayed on the model (specialized after them) and the saved optimized .dcw.json, both against ONNX
Runtime on the same inputs (dims a size leaves out are 1).
A model ONNX Runtime cannot run (an LSTM of layout 1: its CPU kernels take layout 0 only) may have
MODEL.onnx.for-ort beside it, the same function in ops ONNX Runtime runs, with the same inputs and
outputs: ONNX Runtime runs that one instead.

Without the peer (absent, or its installation from the npm registry failing) it exits 77 (ctest's
SKIP_RETURN_CODE) with the reason, except in CI (the CI
variable set, as CI systems do: CI=true), where the peer is part of the checkout's shared/ folder and
its absence is a failure (exit 1): a comparison that CI is supposed to run may not turn into a skip.

usage: compare_with_ort.py DCW_BINARY MODEL.onnx... [--rtol R] [--atol A] [--ort PATH] [--dcw-arg ARG]...
                           [--expect-in-code TEXT] [--also-pure] [--optimize] [--via-json]
                           [--optimize-once --size NAME=V,...]...
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
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


def dynamic_dims(model):
    m = onnx.load(model, load_external_data=False)
    names = []
    for i in m.graph.input:
        for d in i.type.tensor_type.shape.dim:
            if d.dim_param and d.dim_param not in names:
                names.append(d.dim_param)
    return names


def compare(a, b):
    """(ok, worst, message) of outputs a against outputs b."""
    if len(a) != len(b):
        return False, 0.0, f"{len(a)} outputs against {len(b)}"
    worst, ok = 0.0, True
    for x, y in zip(a, b):
        if x.shape != y.shape:
            return False, 0.0, f"shape {x.shape} vs {y.shape}"
        worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) if x.size else 0.0)
        ok = ok and np.allclose(x, y, rtol=NS.rtol, atol=NS.atol)
    return ok, worst, ""


def optimize_once(ns):
    """--optimize-once: one `dcw optimize` without dims, then every --size through both of its results."""
    if not ns.size:
        print("error: --optimize-once needs at least one --size NAME=V,...", file=sys.stderr)
        return 2
    bad = checked = 0
    for model in ns.models:
        name = os.path.basename(model)
        with tempfile.TemporaryDirectory() as tmp:
            script, saved = os.path.join(tmp, "steps.dcws"), os.path.join(tmp, "optimized.dcw.json")
            r = subprocess.run([ns.dcw, "optimize", model, "--script-out", script, "-o", saved] + ns.optimize_arg,
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAILED   {name}: dcw optimize: {r.stderr.strip()}")
                bad += 1
                continue
            for k, size in enumerate(ns.size):
                dims = [f"--dim={d}" for d in size.split(",") if d]
                ins, ort = os.path.join(tmp, f"inputs{k}"), os.path.join(tmp, f"ort{k}")
                os.makedirs(ort)
                # The steps replayed on the model at this size; its random inputs are the ones both compare on.
                runs = [("steps replayed", [model, "--script", script, "--random", "1", "--outputs", ins] + dims + ns.dcw_arg),
                        ("saved optimized model", [saved, "--inputs", ins, "--outputs", os.path.join(tmp, f"saved{k}")] + ns.dcw_arg)]
                theirs = None
                for what, args in runs:
                    checked += 1
                    r = subprocess.run([ns.dcw, "run"] + args, capture_output=True, text=True)
                    if r.returncode != 0:
                        print(f"FAILED   {name} at {size}, {what}: dcw run: {r.stderr.strip()}")
                        bad += 1
                        break
                    if theirs is None:
                        r = subprocess.run([ns.ort, model, "--inputs", ins, "--outputs", ort], capture_output=True, text=True)
                        if r.returncode != 0:
                            print(f"FAILED   {name} at {size}: onnxruntime: {r.stderr.strip()[-400:]}")
                            bad += 1
                            break
                        theirs = outputs(ort)
                    ok, worst, why = compare(outputs(args[args.index("--outputs") + 1]), theirs)
                    print(f"{'passed ' if ok else 'FAILED '}  {name} at {size}, {what}: max abs difference {worst:.3g}"
                          f"{': ' + why if why else ''}")
                    bad += 0 if ok else 1
    print(f"{checked - bad} passed, {bad} failed")
    return 1 if bad else 0


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
    ap.add_argument("--dcw-arg", action="append", default=[])
    ap.add_argument("--expect-in-code", action="append", default=[])
    ap.add_argument("--also-pure", action="store_true")
    ap.add_argument("--optimize", action="store_true")
    ap.add_argument("--optimize-arg", action="append", default=[])  # to `dcw optimize` only (--layout blocked)
    ap.add_argument("--via-json", action="store_true")
    ap.add_argument("--optimize-once", action="store_true")
    ap.add_argument("--size", action="append", default=[])
    ns = ap.parse_args()
    global NS
    NS = ns
    models = []
    for m in ns.models:  # a folder stands for the models in it
        models += sorted(os.path.join(m, f) for f in os.listdir(m) if f.endswith(".onnx")) if os.path.isdir(m) else [m]
    ns.models = models
    if not os.path.exists(ns.ort):
        where = f"the ONNX Runtime peer is not at {ns.ort} (it comes with the shared/ folder beside the repository)"
        if in_ci():
            print(f"error: {where}; CI must have it, so this is a failure, not a skip", file=sys.stderr)
            return 1
        print(f"skipped: {where}; outside CI (CI is not set) this is a skip")
        return 77
    # The peer installs ONNX Runtime from the npm registry on its first use (peers/setup.sh). A machine
    # that cannot reach the registry has no peer: the same skip (or, in CI, failure), with npm's reason,
    # rather than every model failing with ONNX Runtime's empty output.
    setup = os.path.join(os.path.dirname(ns.ort), "setup.sh")
    if os.path.exists(setup):
        r = subprocess.run([setup], capture_output=True, text=True)
        if r.returncode != 0:
            where = (f"the ONNX Runtime peer could not be installed ({setup} exited {r.returncode}: "
                     f"{r.stderr.strip()[-300:] or 'no message: npm could not install onnxruntime-node; is the npm registry reachable from here?'})")
            if in_ci():
                print(f"error: {where}; CI must have it, so this is a failure, not a skip", file=sys.stderr)
                return 1
            print(f"skipped: {where}; outside CI (CI is not set) this is a skip")
            return 77
    if ns.optimize_once:
        return optimize_once(ns)
    bad = 0
    for model in ns.models:
        name = os.path.basename(model)
        with tempfile.TemporaryDirectory() as tmp:
            mine, theirs = os.path.join(tmp, "dcw"), os.path.join(tmp, "ort")
            os.makedirs(theirs)
            extra = list(ns.dcw_arg)
            # The dims it runs at (given with --dcw-arg=--dim --dcw-arg=NAME=V; else 1).
            given = {}
            for flag, value in zip(ns.dcw_arg, ns.dcw_arg[1:]):
                if flag == "--dim" and "=" in value:
                    given[value.split("=", 1)[0]] = value.split("=", 1)[1]
            if ns.optimize:
                script = os.path.join(tmp, "steps.dcws")
                # Optimized for the dims it runs at, as a user optimizes for the shapes they deploy.
                dims = [f"--dim={d}={given.get(d, 1)}" for d in dynamic_dims(model)]
                # Optimized for the target it runs on (given with --dcw-arg=--target --dcw-arg=T).
                target = [v for flag, v in zip(ns.dcw_arg, ns.dcw_arg[1:]) if flag == "--target"]
                # With the implementations preferred (given with --dcw-arg=--prefer --dcw-arg=I, in order).
                prefer = [a for flag, v in zip(ns.dcw_arg, ns.dcw_arg[1:]) if flag == "--prefer" for a in ("--prefer", v)]
                r = subprocess.run([ns.dcw, "optimize", model, "--script-out", script] + dims +
                                   (["--target", target[-1]] if target else []) + prefer + ns.optimize_arg, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAILED   {name}: dcw optimize: {r.stderr.strip()}")
                    bad += 1
                    continue
                extra += ["--script", script]
            if ns.expect_in_code:
                gen = os.path.join(tmp, "gen")
                r = subprocess.run([ns.dcw, "codegen", model, "-o", gen] + extra +
                                   [f"--dim={d}={given.get(d, 1)}" for d in dynamic_dims(model)], capture_output=True, text=True)
                code = ""
                if r.returncode == 0:
                    for f in os.listdir(gen):
                        if f.endswith((".cpp", ".cu")):
                            with open(os.path.join(gen, f)) as fh:
                                code += fh.read()
                calls = {text: code.count(text) for text in ns.expect_in_code}
                missing = [text for text, n in calls.items() if n == 0]
                if missing:
                    print(f"FAILED   {name}: the generated code holds no '{missing[0]}'" +
                          (f" (dcw codegen: {r.stderr.strip()})" if r.returncode else ""))
                    bad += 1
                    continue
            runs = model
            if ns.via_json:
                runs = os.path.join(tmp, "model.dcw.json")
                r = subprocess.run([ns.dcw, "convert", model, "-o", runs], capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAILED   {name}: dcw convert: {r.stderr.strip()}")
                    bad += 1
                    continue
            r = subprocess.run([ns.dcw, "run", runs, "--random", "1", "--outputs", mine] + extra, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAILED   {name}: dcw run: {r.stderr.strip()}")
                bad += 1
                continue
            for_ort = model + ".for-ort" if os.path.exists(model + ".for-ort") else model
            r = subprocess.run([ns.ort, for_ort, "--inputs", mine, "--outputs", theirs], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAILED   {name}: onnxruntime: {r.stderr.strip()[-400:]}")
                bad += 1
                continue
            a, b = outputs(mine), outputs(theirs)
            scale = max((float(np.max(np.abs(y))) for y in b if y.size), default=0.0)
            ok, worst, why = compare(a, b)
            note = ""
            if ok and ns.also_pure:
                pure = os.path.join(tmp, "pure")
                r = subprocess.run([ns.dcw, "run", model, "--inputs", mine, "--outputs", pure], capture_output=True, text=True)
                if r.returncode != 0:
                    ok, why = False, f"dcw run (default path): {r.stderr.strip()}"
                else:
                    ok, pworst, why = compare(a, outputs(pure))
                    note = f", {pworst:.3g} from dcw's default path"
            if ns.expect_in_code and ok:
                note += "".join(f", {n} x '{text}' in the code" for text, n in calls.items())
            print(f"{'passed ' if ok else 'FAILED '}  {name}: max abs difference {worst:.3g}{note}, largest output magnitude "
                  f"{scale:.3g} (rtol {ns.rtol}, atol {ns.atol}){': ' + why if why else ''}")
            bad += 0 if ok else 1
    print(f"{len(ns.models) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
