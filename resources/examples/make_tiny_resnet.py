#!/usr/bin/python3
"""Generate resources/examples/tiny_resnet.onnx, DCW's bundled example model.

Usage:
    /usr/bin/python3 resources/examples/make_tiny_resnet.py [OUT.onnx]

A small ResNet-like CNN for 1x3x64x64 images (dynamic batch axis "batch"):
    stem   Conv3x3(3->16, stride 2) + BatchNorm + ReLU + MaxPool3x3/2
    block1 BasicBlock 16->16 (identity shortcut)
    block2 BasicBlock 16->32, stride 2 (1x1 conv + BN projection shortcut)
    head   GlobalAveragePool + Flatten + Linear(32->10)

Random init (torch.manual_seed(0)), BatchNorm statistics randomised so that
folding them is not a no-op, exported in eval mode at opset 17 with
do_constant_folding=False so the BatchNormalization nodes stay in the graph
(material for the conv+BN fusion demo).
"""

import os
import sys
import warnings

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + identity)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
        )
        self.block1 = BasicBlock(16, 16)
        self.block2 = BasicBlock(16, 32, stride=2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.block2(self.block1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def build():
    torch.manual_seed(0)
    model = TinyResNet()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
    return model.eval()


def main(argv):
    out = argv[0] if argv else os.path.join(HERE, "tiny_resnet.onnx")
    model = build()
    x = torch.randn(1, 3, 64, 64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (x,),
            out,
            opset_version=17,
            do_constant_folding=False,
            # PRESERVE with the model in eval mode: BatchNormalization is exported in
            # inference form, and torch's eval-only peephole pass (which fuses
            # Conv+BatchNormalization even without constant folding) is skipped.
            training=torch.onnx.TrainingMode.PRESERVE,
            input_names=["input"],
            output_names=["logits"],
            dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
        )
    print(f"{out}: {os.path.getsize(out)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
