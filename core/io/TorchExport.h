// TorchExport: opens what PyTorch users have — a TorchScript file (`.pt`, `.pth`, torch.jit.save) —
// by running torch's own ONNX exporter (torch.onnx.export, opset 17) in the system's Python with
// Debian's python3-torch — or a Python file defining the model's nn.Module class, built from its name
// and literal constructor arguments (`Net`, `Net(3, hidden=64)`) — on example inputs of the shapes the user gives; dims the user names become
// dynamic axes of the ONNX model (symbols in DCW). Used by `dcw import-torch` and dcw-gui's Open.
// Needs /usr/bin/python3 with torch; fails with what to install otherwise, and with the exporter's own
// message (an op it cannot export, a shape the model rejects) naming the file.
#pragma once

#include "core/support/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dcw::io {

struct TorchInput {
  std::vector<int64_t> shape;            // the example's sizes
  std::vector<std::string> dimNames;     // per dim: a name makes it a dynamic axis, "" keeps it fixed
  std::string dtype = "float32";         // float32, float64, int64, int32, bool
};

// One input from text: dims separated by `x`, each a size or NAME=SIZE (a dynamic axis), then an
// optional `:DTYPE` — "1x3x224x224", "batch=1x3x224x224", "batch=1xseq=16:int64".
Expected<TorchInput> parseTorchInput(const std::string& text);
std::string torchInputText(const TorchInput& input); // the inverse

bool isTorchModelPath(const std::string& path); // .pt, .pth, .torchscript, .py

struct TorchExportOptions {
  std::vector<TorchInput> inputs;        // one per argument of the model's forward
  std::string className;                 // for a .py model: the nn.Module class to build, "Net" or "Net(3, hidden=64)"
  std::string python = "/usr/bin/python3";
  int opset = 17;
};

// Writes the ONNX export of `model` (TorchScript, or a .py file with options.className) to `onnxPath`.
Expected<void> exportTorchToOnnx(const std::string& model, const std::string& onnxPath, const TorchExportOptions& options);

} // namespace dcw::io
