#!/usr/bin/env python3
"""GPU latency of DCW's CUDA programs against PyTorch eager and torch.compile, same weights, fp32.

usage: /usr/bin/python3 bench/gpu_vs_torch.py [DCW_BINARY] [--repeat N] [--models a,b,...]

Models (issue 16's table): a BERT-large encoder layer (batch 8, sequence 512; bert_layer below), ResNet-50 and
EfficientNet-B0 (batch 32), built by torch/torchvision with seeded weights and exported to ONNX with
fixed shapes. Per model it times, on the GPU:
  - PyTorch eager and torch.compile (data already on the GPU; median of --repeat runs after warm-up,
    torch.cuda.synchronize() around each), and PyTorch eager with the input copied in and the output
    copied out every run;
  - `dcw bench MODEL --target cuda` (its program takes host arrays: each run copies the input in and the
    output out, weights stay on the GPU), median of --repeat runs after warm-up, as imported and after
    `dcw optimize --target cuda` (the "optimized" row);
and prints the medians and the ratios dcw/eager-with-copies, dcw/eager and dcw/compile (below 1: DCW
is faster). Without an NVIDIA GPU (torch.cuda unavailable) it says so and exits 0: DCW's CUDA programs
are compiled with nvcc everywhere the toolkit is, and `--target cuda-sim` checks their outputs on the
CPU, but neither measures a GPU.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def median_ms(fn, repeat, warmup, sync):
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def export(model, x, path):
    import inspect
    import torch

    kw = {"opset_version": 17, "input_names": ["x"], "output_names": ["y"]}
    dynamo = "dynamo" in inspect.signature(torch.onnx.export).parameters
    # With grad enabled (no torch.no_grad()), a transformer layer in eval mode skips its fused fast path
    # (aten::_transformer_encoder_layer_fwd), which has no ONNX form; PyTorch's timings use the fast path.
    with torch.enable_grad():
        try:
            # The TorchScript exporter, as Debian's torch has it (opset 17, which DCW imports).
            torch.onnx.export(model, (x,), path, **kw, **({"dynamo": False} if dynamo else {}))
        except Exception as e:  # a torch without it: the dynamo exporter, converted to opset 17
            if not dynamo:
                raise
            print(f"(TorchScript exporter failed: {str(e).splitlines()[0][:120]}; using the dynamo exporter)", flush=True)
            torch.onnx.export(model, (x,), path, dynamo=True, external_data=False, **kw)
            import onnx

            m = onnx.load(path)
            if m.ir_version > 8:  # DCW reads ONNX 1.12's IR (8); an opset-17 graph needs nothing newer
                m.ir_version = 8
                onnx.save(m, path)


def bert_layer(d, heads, ff):
    """A BERT encoder layer (post-norm, GELU) written in plain ops, as BERT implementations write it: the
    same function in PyTorch, torch.compile and the exported ONNX graph (nn.TransformerEncoderLayer
    would time PyTorch's fused fast path, which has no ONNX form, and newer torch fails to trace it)."""
    import math
    import torch

    class Layer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d) for _ in range(4))
            self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
            self.ff1, self.ff2 = torch.nn.Linear(d, ff), torch.nn.Linear(ff, d)

        def forward(self, x):
            b, s, _ = x.shape
            split = lambda t: t.reshape(b, s, heads, d // heads).transpose(1, 2)
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // heads), dim=-1)
            ctx = (p @ v).transpose(1, 2).reshape(b, s, d)
            h = self.ln1(x + self.o(ctx))
            return self.ln2(h + self.ff2(torch.nn.functional.gelu(self.ff1(h))))

    return Layer()


def build_models(names):
    import torch
    import torchvision

    torch.manual_seed(0)
    out = []
    for name in names:
        if name == "bert_large_layer":
            m = bert_layer(1024, 16, 4096)
            x = torch.randn(8, 512, 1024)
        elif name == "resnet50":
            m = torchvision.models.resnet50(weights=None)
            x = torch.randn(32, 3, 224, 224)
        elif name == "efficientnet_b0":
            m = torchvision.models.efficientnet_b0(weights=None)
            x = torch.randn(32, 3, 224, 224)
        else:
            raise SystemExit(f"error: unknown model '{name}' (bert_large_layer, resnet50, efficientnet_b0)")
        out.append((name, m.eval(), x))
    return out


def slowest(report, n):
    """The report's slowest timed leaves (maps, library calls, copies), with their share of the run."""
    with open(report) as f:
        r = json.load(f)
    wall = r["wall_ms"]["median"] or 1
    leaves = [(k, v) for k, v in r["elements"].items() if v["kind"] not in ("model", "module", "state", "nested_sdfg")]
    leaves.sort(key=lambda kv: -kv[1]["time_ms"]["median"])
    for k, v in leaves[:n]:
        t = v["time_ms"]["median"]
        print(f"  {t:8.3f} ms {100 * t / wall:5.1f}%  {v.get('gb_per_s') or 0:7.1f} GB/s {v.get('gflop_per_s') or 0:8.1f} GFLOP/s  {k[-90:]}",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dcw", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "build", "app", "dcw"))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--models", default="bert_large_layer,resnet50,efficientnet_b0")
    ap.add_argument("--profile-dir", help="also `dcw profile` each model there, as imported and optimized (a report each) and print their slowest elements")
    args = ap.parse_args()

    try:
        import torch
    except ImportError:
        print("no PyTorch here (python3-torch): the GPU table needs it as the peer")
        return 0
    if not torch.cuda.is_available():
        print("no GPU here (torch.cuda.is_available() is false): the GPU table needs an NVIDIA GPU. DCW's CUDA programs "
              "still compile with nvcc (dcw codegen/run --target cuda) and run on the CPU with --target cuda-sim.")
        return 0
    if not os.access(args.dcw, os.X_OK):
        print(f"error: {args.dcw} not found; build first (scripts/build.sh)", file=sys.stderr)
        return 2

    dev = torch.device("cuda")
    # fp32 on both sides: PyTorch lets cuDNN use TF32 tensor cores by default, DCW's cuDNN and cuBLAS calls
    # use true fp32 math (their results match the CPU path), so TF32 is turned off here too.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    sync = torch.cuda.synchronize
    print(f"GPU: {torch.cuda.get_device_name(0)}; PyTorch {torch.__version__}; fp32 (no TF32 on either side); median of {args.repeat} runs")
    header = (f"{'model':<30} {'dcw ms':>9} {'eager ms':>9} {'eager+copies':>13} {'compile ms':>11} {'dcw/eager+c':>12} "
              f"{'dcw/eager':>10} {'dcw/compile':>12}")
    rows = []

    def row(name, d, e, c, k):
        if d is None:
            return f"{name:<30} {'failed':>9} {e:9.3f} {c:13.3f} {k:11.3f}"
        return f"{name:<30} {d:9.3f} {e:9.3f} {c:13.3f} {k:11.3f} {d / c:12.2f} {d / e:10.2f} {d / k:12.2f}"

    with tempfile.TemporaryDirectory() as tmp:
        for name, model, x in build_models(args.models.split(",")):
            path = os.path.join(tmp, name + ".onnx")
            export(model, x, path)
            with torch.no_grad():
                m = model.to(dev)
                xd = x.to(dev)
                eager = median_ms(lambda: m(xd), args.repeat, args.warmup, sync)
                copies = median_ms(lambda: m(x.to(dev)).cpu(), args.repeat, args.warmup, sync)
                compiled = torch.compile(m)
                comp = median_ms(lambda: compiled(xd), args.repeat, args.warmup, sync)
            # DCW as imported (the CUDA pipeline's defaults) and after `dcw optimize --target cuda`.
            script = os.path.join(tmp, name + ".dcws")
            o = subprocess.run([args.dcw, "optimize", path, "--target", "cuda", "--script-out", script], capture_output=True, text=True)
            for label, extra in (("", []), (" optimized", ["--script", script])):
                if extra and o.returncode != 0:
                    print(f"{name}: dcw optimize failed: {o.stderr.strip()[-2000:]}", flush=True)
                    continue
                r = subprocess.run([args.dcw, "bench", path, "--target", "cuda", "--warmup", str(args.warmup), "--repeat", str(args.repeat),
                                    "--json"] + extra, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"{name}{label}: dcw failed: {r.stderr.strip()[-2000:]}", flush=True)
                    rows.append(row(name + label, None, eager, copies, comp))
                else:
                    bench = json.loads(r.stdout)
                    rows.append(row(name + label, bench["median_ms"], eager, copies, comp))
                    print(f"{name}{label}: dcw compiled in {bench.get('compile_s', 0):.1f} s", flush=True)
                print(header + "\n" + rows[-1], flush=True)
            if args.profile_dir:
                os.makedirs(args.profile_dir, exist_ok=True)
                for label, extra in (("imported", []), ("optimized", ["--script", script])):
                    if extra and o.returncode != 0:
                        continue
                    report = os.path.join(args.profile_dir, f"{name}_{label}_cuda_profile.json")
                    r = subprocess.run([args.dcw, "profile", path, "--target", "cuda", "--repeat", "5", "--warmup", "2",
                                        "--no-peaks", "--report", report] + extra, capture_output=True, text=True)
                    if r.returncode != 0:
                        print(f"{name} {label}: dcw profile failed: {r.stderr.strip()[-1000:]}", flush=True)
                    else:
                        print(f"{name} {label}: " + r.stdout.strip(), flush=True)
                        slowest(report, 12)
            del m, compiled
            torch.cuda.empty_cache()
    print(header)
    for line in rows:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
