#!/usr/bin/python3
"""Exports the real architectures the latency benchmark runs (bench/latency_vs_ort.sh), with Debian's
torch and torchvision, untrained (random weights: no download), in inference mode, opset 17:
ResNet-50, MobileNetV2, MobileNetV3-Large, EfficientNet-B0, DenseNet-121, ConvNeXt-T, SqueezeNet 1.0,
ShuffleNetV2 x1.0, RegNetY-400MF, GoogLeNet (1x3x224x224 images), a BERT-base encoder (12 layers,
hidden 768, 12 heads; dynamic batch and sequence) and a 2-layer LSTM (dynamic batch and sequence).
On request only: bert_large (24 layers of 1024, 16 heads; 1.3 GB), the README's 5,000-node view.
`--wide` adds the exports a user brings that the twelve are not (latency_vs_ort.sh WIDE=1): the twelve
again at opset 13 (NAME_op13: before LayerNormalization, norms as ops), ViT-B/16 and Swin-T, a GPT-style
decoder (6 causal layers of 512, tanh GELU, sequence 256), ResNet-50 at batch 8, MobileNetV2 at batch 16
and the BERT encoder at batch 2 x 128 (fixed shapes).
Existing files are kept.

usage: export_architectures.py [--wide] OUTDIR [NAME...]
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


class Gpt(torch.nn.Module):
    """A GPT-2-style decoder: token + position embeddings, pre-norm causal self-attention written out as
    ops (QKV projection, scaled scores, a Trilu-free constant causal mask, softmax), an MLP with GELU's
    tanh form (GPT-2's gelu_new), a final norm and the tied vocabulary projection."""

    def __init__(self, vocab=8192, hidden=512, heads=8, layers=6, positions=1024):
        super().__init__()
        self.heads = heads
        self.tokens = torch.nn.Embedding(vocab, hidden)
        self.positions = torch.nn.Embedding(positions, hidden)
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(torch.nn.ModuleDict({
                "ln1": torch.nn.LayerNorm(hidden), "qkv": torch.nn.Linear(hidden, 3 * hidden), "proj": torch.nn.Linear(hidden, hidden),
                "ln2": torch.nn.LayerNorm(hidden), "fc": torch.nn.Linear(hidden, 4 * hidden), "out": torch.nn.Linear(4 * hidden, hidden)}))
        self.norm = torch.nn.LayerNorm(hidden)
        self.register_buffer("mask", torch.tril(torch.ones(positions, positions)).view(1, 1, positions, positions))

    def forward(self, ids):
        b, t = ids.shape
        x = self.tokens(ids) + self.positions(torch.arange(t).unsqueeze(0))
        for blk in self.blocks:
            h = blk["ln1"](x)
            q, k, v = blk["qkv"](h).split(h.shape[-1], dim=2)
            q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / (k.shape[-1] ** 0.5))
            att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
            x = x + blk["proj"]((att @ v).transpose(1, 2).reshape(b, t, -1))
            x = x + blk["out"](torch.nn.functional.gelu(blk["fc"](blk["ln2"](x)), approximate="tanh"))
        return self.norm(x) @ self.tokens.weight.t()


class Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(128, 256, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(256, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


WIDE = [n + "_op13" for n in VISION + ["bert_base", "lstm"]] + ["vit_b_16", "swin_t", "gpt_decoder", "resnet50_b8",
                                                                   "mobilenet_v2_b16", "bert_base_b2"]


def export(name, out):
    opset = 17
    if name.endswith("_op13"):
        name, opset = name[: -len("_op13")], 13
    batch = 1
    for base, b in (("resnet50_b8", 8), ("mobilenet_v2_b16", 16), ("bert_base_b2", 2)):
        if name == base:
            name, batch = base.rsplit("_b", 1)[0], b
    if name in VISION or name in ("vit_b_16", "swin_t"):
        kwargs = {"weights": None}
        if name == "googlenet":
            kwargs.update(aux_logits=False, init_weights=True)
        model = getattr(torchvision.models, name)(**kwargs).eval()
        args, dyn, names = (torch.randn(batch, 3, 224, 224),), None, ["image"]
    elif name in ("bert_base", "bert_large"):
        # BERT-large: 24 layers of 1024 (some 5,300 ONNX nodes; the README's 5,000-node first view).
        model = (Bert() if name == "bert_base" else Bert(hidden=1024, heads=16, layers=24, ff=4096)).eval()
        args, names = (torch.randint(0, 30522, (batch, 128)),), ["ids"]
        dyn = {"ids": {0: "batch", 1: "sequence"}} if batch == 1 else None
    elif name == "gpt_decoder":
        model = Gpt().eval()
        args, names, dyn = (torch.randint(0, 8192, (1, 256)),), ["ids"], None
    elif name == "lstm":
        model = Lstm().eval()
        args, names = (torch.randn(1, 64, 128),), ["x"]
        dyn = {"x": {0: "batch", 1: "sequence"}}
    else:
        raise SystemExit(f"unknown architecture {name}")
    # No torch.no_grad(): with grad enabled, nn.TransformerEncoderLayer in eval mode skips its fused fast
    # path (aten::_transformer_encoder_layer_fwd), which the exporter cannot write.
    torch.onnx.export(model, args, out, opset_version=opset, input_names=names, output_names=["y"], dynamic_axes=dyn)


def main():
    argv = sys.argv[1:]
    wide = bool(argv) and argv[0] == "--wide"
    if wide:
        argv = argv[1:]
    outdir = argv[0]
    names = argv[1:] or VISION + ["bert_base", "lstm"] + (WIDE if wide else [])
    os.makedirs(outdir, exist_ok=True)
    for name in names:
        out = os.path.join(outdir, name + ".onnx")
        if not os.path.exists(out):
            export(name, out)
        print(out)


if __name__ == "__main__":
    main()
