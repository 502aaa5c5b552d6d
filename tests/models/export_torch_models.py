#!/usr/bin/python3
"""Export real PyTorch architectures to ONNX for DCW's import tests and benchmarks.

Usage:
    /usr/bin/python3 tests/models/export_torch_models.py OUTDIR [--only NAME ...]

Run with Debian's Python (/usr/bin/python3), which has python3-torch and
python3-torchvision.  Every model uses random initialisation (weights=None,
torch.manual_seed(0)), eval mode, opset 17 (the highest torch 1.13 supports)
and do_constant_folding=True.  No weights are downloaded.

Default set: resnet18, mobilenet_v2, efficientnet_b0, shufflenet_v2_x1_0, transformer_encoder, lstm
(and static-shape copies of the last two), tiny_detector (a small text detector, every dim dynamic).
resnet50 (~100 MB) is exported only when named with --only (benchmark use).
"""

import argparse
import os
import sys
import time
import warnings

import torch
import torchvision

OPSET = 17  # torch 1.13's torch.onnx._constants.ONNX_MAX_OPSET


def _max_opset():
    try:
        from torch.onnx import _constants

        return min(OPSET, int(_constants.ONNX_MAX_OPSET))
    except Exception:  # older layouts
        return 13


def _vision(ctor):
    def build():
        model = ctor(weights=None)
        # Calibrate BatchNorm running statistics on a few random batches, so that the eval-mode network
        # has activations of ordinary size (with the initial statistics they vanish to ~1e-14), which
        # makes numerical comparisons meaningful.
        model.train()
        with torch.no_grad():
            for _ in range(3):
                model(torch.randn(4, 3, 224, 224))
        model.eval()
        x = torch.randn(1, 3, 224, 224)
        axes = {"input": {0: "batch"}, "output": {0: "batch"}}
        return model, (x,), ["input"], ["output"], axes

    return build


def _transformer_encoder():
    layer = torch.nn.TransformerEncoderLayer(
        d_model=64, nhead=4, dim_feedforward=128, batch_first=True
    )
    # enable_nested_tensor only matters for padded batches; keep the plain path.
    model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    x = torch.randn(2, 10, 64)
    axes = {"input": {0: "batch", 1: "seq"}, "output": {0: "batch", 1: "seq"}}
    return model, (x,), ["input"], ["output"], axes


class _LSTMWrapper(torch.nn.Module):
    """1-layer LSTM (input 16, hidden 32), batch-first; returns output and final states."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(input_size=16, hidden_size=32, num_layers=1, batch_first=True)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return y, h, c


def _lstm():
    model = _LSTMWrapper()
    x = torch.randn(2, 7, 16)
    axes = {
        "input": {0: "batch", 1: "seq"},
        "output": {0: "batch", 1: "seq"},
        "h_n": {1: "batch"},
        "c_n": {1: "batch"},
    }
    return model, (x,), ["input"], ["output", "h_n", "c_n"], axes


class _TinyDetector(torch.nn.Module):
    """A text detector's shape in small (PaddleOCR's DB head): a stride-4 backbone, a squeeze-and-excitation
    scale (global average pool), a nearest 2x upsample added to the stride-2 features, a sigmoid map; every
    dim dynamic, so the dims below the input's are the floor divisions that strided convolutions give."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.se = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Conv2d(16, 4, 1), torch.nn.ReLU(),
                                      torch.nn.Conv2d(4, 16, 1), torch.nn.Hardsigmoid())
        self.lat = torch.nn.Conv2d(8, 16, 1)
        self.head = torch.nn.Conv2d(16, 1, 3, padding=1)

    def forward(self, x):
        f1 = torch.relu(self.c1(x))
        f2 = torch.relu(self.c2(f1))
        f2 = f2 * self.se(f2)
        up = torch.nn.functional.interpolate(f2, scale_factor=2.0, mode="nearest")
        return torch.sigmoid(self.head(up + self.lat(f1)))


def _tiny_detector():
    x = torch.randn(1, 3, 64, 96)
    axes = {"input": {0: "batch", 2: "height", 3: "width"}, "output": {0: "batch", 2: "height4", 3: "width4"}}
    return _TinyDetector(), (x,), ["input"], ["output"], axes


def _static(build):
    """The same model exported with static shapes (what `dcw run` compiles without specialization)."""

    def static():
        model, args, ins, outs, _ = build()
        return model, args, ins, outs, None

    return static


MODELS = {
    "resnet18": _vision(torchvision.models.resnet18),
    "mobilenet_v2": _vision(torchvision.models.mobilenet_v2),
    "efficientnet_b0": _vision(torchvision.models.efficientnet_b0),
    "shufflenet_v2_x1_0": _vision(torchvision.models.shufflenet_v2_x1_0),
    "transformer_encoder": _transformer_encoder,
    "lstm": _lstm,
    "transformer_encoder_static": _static(_transformer_encoder),
    "lstm_static": _static(_lstm),
    "resnet50": _vision(torchvision.models.resnet50),
    "tiny_detector": _tiny_detector,
}
DEFAULT = ["resnet18", "mobilenet_v2", "efficientnet_b0", "shufflenet_v2_x1_0", "transformer_encoder", "lstm",
           "transformer_encoder_static", "lstm_static", "tiny_detector"]


def export(name, outdir, opset):
    torch.manual_seed(0)
    model, args, in_names, out_names, axes = MODELS[name]()
    model.eval()
    path = os.path.join(outdir, name + ".onnx")
    t0 = time.perf_counter()
    # No torch.no_grad() here: with grad enabled and parameters requiring grad,
    # nn.TransformerEncoderLayer in eval mode skips its fused "fast path"
    # (aten::_transformer_encoder_layer_fwd), which torch 1.13 cannot export.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about dynamic shapes are expected
        torch.onnx.export(
            model,
            args,
            path,
            opset_version=opset,
            do_constant_folding=True,
            input_names=in_names,
            output_names=out_names,
            dynamic_axes=axes,
        )
    dt = time.perf_counter() - t0
    size = os.path.getsize(path)
    print(f"{name:20s} {size / 1e6:8.2f} MB  {dt:6.2f} s  {path}", flush=True)
    return dt


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--only", nargs="+", metavar="NAME", choices=sorted(MODELS),
                    help="export only these models (resnet50 is exported only this way)")
    ns = ap.parse_args(argv)
    os.makedirs(ns.outdir, exist_ok=True)
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    opset = _max_opset()
    names = ns.only or DEFAULT
    total = 0.0
    for name in names:
        total += export(name, ns.outdir, opset)
    print(f"exported {len(names)} model(s) at opset {opset} in {total:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
