#!/usr/bin/env python3
"""A linear layer and a layer norm (torch.nn.LayerNorm) exported by PyTorch at opsets 11 and 13, which
have no LayerNormalization op: the exporter writes the norm as ReduceMean, Sub, Pow, ReduceMean, Add,
Sqrt, Div, Mul, Add (LayerNormFusion's tests). Run with /usr/bin/python3; writes into
tests/data/transforms/controlflow_graph/. Deterministic (fixed seed)."""
import os
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "transforms", "controlflow_graph")
torch.manual_seed(7)
model = torch.nn.Sequential(torch.nn.Linear(16, 24), torch.nn.LayerNorm(24)).eval()
with torch.no_grad():
    model[1].weight.mul_(0.5).add_(torch.randn(24) * 0.1)
    model[1].bias.add_(torch.randn(24) * 0.1)
x = torch.randn(2, 7, 16)
for opset in (11, 13):
    torch.onnx.export(model, (x,), os.path.join(OUT, f"torch_layernorm_opset{opset}.onnx"), opset_version=opset,
                      input_names=["X"], output_names=["Y"])
