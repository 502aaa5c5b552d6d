#!/usr/bin/python3
"""Exports the real architectures the latency benchmark runs (bench/latency_vs_ort.sh), with Debian's
torch and torchvision, untrained (random weights: no download), in inference mode, opset 17:
ResNet-50, MobileNetV2, MobileNetV3-Large, EfficientNet-B0, DenseNet-121, ConvNeXt-T, SqueezeNet 1.0,
ShuffleNetV2 x1.0, RegNetY-400MF, GoogLeNet (1x3x224x224 images), a BERT-base encoder (12 layers,
hidden 768, 12 heads; dynamic batch and sequence) and a 2-layer LSTM (dynamic batch and sequence).
On request only: bert_large (24 layers of 1024, 16 heads; 1.3 GB), the README's 5,000-node view.
Existing files are kept.

usage: export_architectures.py OUTDIR [NAME...]
"""
import os
import sys
import warnings

import torch
import torchvision

warnings.filterwarnings("ignore")
torch.manual_seed(0)

VISION = ["resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "densenet121", "convnext_tiny",
          "squeezenet1_0", "shufflenet_v2_x1_0", "regnet_y_400mf", "googlenet"]


class Bert(torch.nn.Module):
    """BERT-base's encoder: token + position embeddings, 12 post-norm layers with GELU."""

    def __init__(self, vocab=30522, hidden=768, heads=12, layers=12, ff=3072, positions=512):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, hidden)
        self.positions = torch.nn.Embedding(positions, hidden)
        self.norm = torch.nn.LayerNorm(hidden)
        layer = torch.nn.TransformerEncoderLayer(hidden, heads, ff, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        # TransformerEncoder deep-copies `layer`: every layer would hold the same weights, which the
        # exporter stores once (28 MB for BERT-base instead of 340), so a runtime reading them would find
        # them in its caches as no trained BERT lets it. Each layer gets weights of its own.
        with torch.no_grad():
            for p in self.encoder.parameters():
                p.add_(torch.randn_like(p) * 0.02)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        return self.encoder(self.norm(self.tokens(ids) + self.positions(pos)))


class Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(128, 256, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(256, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


def export(name, out):
    if name in VISION:
        kwargs = {"weights": None}
        if name == "googlenet":
            kwargs.update(aux_logits=False, init_weights=True)
        model = getattr(torchvision.models, name)(**kwargs).eval()
        args, dyn, names = (torch.randn(1, 3, 224, 224),), None, ["image"]
    elif name in ("bert_base", "bert_large"):
        # BERT-large: 24 layers of 1024 (some 5,300 ONNX nodes; the README's 5,000-node first view).
        model = (Bert() if name == "bert_base" else Bert(hidden=1024, heads=16, layers=24, ff=4096)).eval()
        args, names = (torch.randint(0, 30522, (1, 128)),), ["ids"]
        dyn = {"ids": {0: "batch", 1: "sequence"}}
    elif name == "lstm":
        model = Lstm().eval()
        args, names = (torch.randn(1, 64, 128),), ["x"]
        dyn = {"x": {0: "batch", 1: "sequence"}}
    else:
        raise SystemExit(f"unknown architecture {name}")
    # No torch.no_grad(): with grad enabled, nn.TransformerEncoderLayer in eval mode skips its fused fast
    # path (aten::_transformer_encoder_layer_fwd), which the exporter cannot write.
    torch.onnx.export(model, args, out, opset_version=17, input_names=names, output_names=["y"], dynamic_axes=dyn)


def main():
    outdir = sys.argv[1]
    names = sys.argv[2:] or VISION + ["bert_base", "lstm"]
    os.makedirs(outdir, exist_ok=True)
    for name in names:
        out = os.path.join(outdir, name + ".onnx")
        if not os.path.exists(out):
            export(name, out)
        print(out)


if __name__ == "__main__":
    main()
