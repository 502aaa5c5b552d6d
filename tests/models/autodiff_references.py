#!/usr/bin/python3
"""Reference gradients and a reference training run from PyTorch, for DCW's autodiff checks.

Usage:
    /usr/bin/python3 tests/models/autodiff_references.py [OUTDIR]   (default tests/data/autodiff)

Run with Debian's Python (/usr/bin/python3: torch 1.13, onnx 1.12). Everything is seeded, so the
output is deterministic. For each model (mlp, lenet, resnet_block, transformer_layer) it writes into
OUTDIR/<model>/:
    model.onnx       opset 17, float32, do_constant_folding=False, initializers kept as initializers,
                     one scalar output `loss` (the model computes its own loss from its data inputs)
    input_N.pb       the data inputs (ONNX TensorProto), in the graph's input order
    wrt.txt          the names differentiated with respect to, one a line (an input first, then weights)
    grad_N.pb        d loss / d wrt[N], computed by PyTorch in float64 from the same float32 weights
    output_0.pb      the loss (float32 forward, for the forward check)
and OUTDIR/lenet_train/:
    step_K/input_N.pb  4 batches of 2 synthetic images + labels (cycled by `dcw train`)
    losses.json        {"lr": 0.01, "steps": 50, "loss": [...]}: the loss of each step (before its
                       update) of plain SGD in float32 from lenet/model.onnx's initial weights.
"""

import copy
import json
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

OPSET = 17


class Mlp(nn.Module):
    """8-16-4 with ReLU; softmax cross-entropy against integer labels."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x, labels):
        return F.cross_entropy(self.fc2(F.relu(self.fc1(x))), labels)


class LeNet5(nn.Module):
    """LeNet-5 on 1x28x28 (conv 5x5 pad 2, max-pool, conv 5x5, max-pool, 3 linear); cross-entropy."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def logits(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

    def forward(self, x, labels):
        return F.cross_entropy(self.logits(x), labels)


class ResNetBlock(nn.Module):
    """A basic block: conv-bn-relu-conv-bn + identity skip, relu; eval-mode BatchNorm; MSE loss."""

    def __init__(self, c=4):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x, target):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)) + x)
        return ((y - target) ** 2).mean()  # MSE (aten::mse_loss has no ONNX export)


class TransformerLayer(nn.Module):
    """nn.TransformerEncoderLayer(d_model 16, 2 heads, ff 32, batch_first), eval mode; MSE loss."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)

    def forward(self, x, target):
        return ((self.layer(x) - target) ** 2).mean()


def make(name):
    g = torch.Generator().manual_seed(1)
    if name == "mlp":
        m = Mlp()
        args = (torch.randn(4, 8, generator=g), torch.tensor([0, 3, 1, 2]))
        return m, args, ["x", "labels"], ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"], torch.onnx.TrainingMode.EVAL
    if name == "lenet":
        m = LeNet5()
        args = (torch.randn(2, 1, 28, 28, generator=g), torch.tensor([3, 7]))
        return m, args, ["x", "labels"], ["conv1.weight", "conv1.bias", "conv2.weight", "fc2.weight", "fc3.bias"], torch.onnx.TrainingMode.EVAL
    if name == "resnet_block":
        m = ResNetBlock()
        # Non-trivial running statistics, so eval-mode BatchNorm is not the identity.
        with torch.no_grad():
            for bn in (m.bn1, m.bn2):
                bn.running_mean.uniform_(-0.5, 0.5, generator=g)
                bn.running_var.uniform_(0.5, 1.5, generator=g)
                bn.weight.uniform_(0.5, 1.5, generator=g)
                bn.bias.uniform_(-0.5, 0.5, generator=g)
        args = (torch.randn(2, 4, 8, 8, generator=g), torch.randn(2, 4, 8, 8, generator=g))
        # PRESERVE on an eval-mode model keeps the BatchNormalization nodes (EVAL would fold them into
        # the convolutions, and the gradients w.r.t. the folded weights would not be PyTorch's).
        return m, args, ["x", "target"], ["conv1.weight", "bn1.weight", "bn1.bias", "conv2.weight"], torch.onnx.TrainingMode.PRESERVE
    if name == "transformer_layer":
        m = TransformerLayer()
        # Distinct LayerNorm parameters: the exporter merges identical initializers (both norms start
        # at ones/zeros), and the gradient of a merged weight would be the sum over its uses.
        with torch.no_grad():
            for ln in (m.layer.norm1, m.layer.norm2):
                ln.weight.uniform_(0.5, 1.5, generator=g)
                ln.bias.uniform_(-0.5, 0.5, generator=g)
        args = (torch.randn(2, 4, 16, generator=g), torch.randn(2, 4, 16, generator=g))
        return m, args, ["x", "target"], ["layer.self_attn.in_proj_weight", "layer.self_attn.out_proj.weight",
                                          "layer.linear1.weight", "layer.linear2.bias", "layer.norm1.weight"], torch.onnx.TrainingMode.EVAL
    raise ValueError(name)


def export(model, args, in_names, path, training):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, path, opset_version=OPSET, do_constant_folding=False, input_names=in_names,
                          output_names=["loss"], training=training, export_params=True,
                          keep_initializers_as_inputs=False)


def write_pb(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array), name).SerializeToString())


def references(name, outdir):
    torch.manual_seed(0)
    model, args, in_names, weights, training = make(name)
    model.eval()
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    export(model, args, in_names, path, training)
    onnx_model = onnx.load(path)
    inits = {i.name for i in onnx_model.graph.initializer}
    for w in weights:
        if w not in inits:
            raise SystemExit(f"{name}: {w} is not an initializer of the exported model (have {sorted(inits)})")
    graph_inputs = [i.name for i in onnx_model.graph.input if i.name not in inits]
    assert graph_inputs == in_names, graph_inputs
    for k, (n, a) in enumerate(zip(in_names, args)):
        write_pb(os.path.join(d, f"input_{k}.pb"), a.numpy(), n)
    with torch.no_grad():
        loss32 = model(*args)
    write_pb(os.path.join(d, "output_0.pb"), np.array(loss32.numpy(), dtype=np.float32), "loss")

    # Gradients in float64 from the same (float32) weights and inputs.
    m64 = copy.deepcopy(model).double()
    params = dict(m64.named_parameters())
    x = args[0].double().clone().requires_grad_(True)
    rest = [a.double() if a.is_floating_point() else a for a in args[1:]]
    loss = m64(x, *rest)
    wrt = [in_names[0]] + weights
    grads = torch.autograd.grad(loss, [x] + [params[w] for w in weights])
    with open(os.path.join(d, "wrt.txt"), "w") as f:
        f.write("\n".join(wrt) + "\n")
    for k, (n, g) in enumerate(zip(wrt, grads)):
        write_pb(os.path.join(d, f"grad_{k}.pb"), g.float().numpy(), n + "_grad")
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    print(f"{name:18s} loss {loss.item():.6f}  {len(wrt)} gradients  {size / 1e3:.1f} kB", flush=True)
    return model, args


def lenet_training(outdir, steps=50, lr=0.01, batches=4):
    """Plain SGD from lenet/model.onnx's weights on 4 synthetic batches of 2 images, cycled."""
    torch.manual_seed(0)
    model, _, in_names, _, _ = make("lenet")  # same seed, so the same initial weights as lenet/model.onnx
    model.eval()
    d = os.path.join(outdir, "lenet_train")
    g = torch.Generator().manual_seed(2)
    data = []
    for k in range(batches):
        x = torch.randn(2, 1, 28, 28, generator=g)
        y = torch.randint(0, 10, (2,), generator=g)
        data.append((x, y))
        sd = os.path.join(d, f"step_{k}")
        os.makedirs(sd, exist_ok=True)
        write_pb(os.path.join(sd, "input_0.pb"), x.numpy(), in_names[0])
        write_pb(os.path.join(sd, "input_1.pb"), y.numpy(), in_names[1])
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for step in range(steps):
        x, y = data[step % batches]
        opt.zero_grad()
        loss = model(x, y)
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))
    with open(os.path.join(d, "losses.json"), "w") as f:
        json.dump({"model": "lenet/model.onnx", "optimizer": "sgd", "lr": lr, "steps": steps, "loss": losses}, f, indent=1)
    print(f"lenet_train        loss {losses[0]:.4f} -> {losses[-1]:.4f} over {steps} steps", flush=True)


def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "autodiff")
    torch.set_num_threads(2)
    for name in ("mlp", "lenet", "resnet_block", "transformer_layer"):
        references(name, outdir)
    lenet_training(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
