// `dcw import-torch MODEL.pt|MODEL.py [--class C] --input SHAPE... -o OUT.onnx`: a TorchScript model
// (torch.jit.save), or the nn.Module class C of a Python file, to
// ONNX through torch's own exporter (core/io/TorchExport.h), so every other command and dcw-gui can
// open it. One --input per argument of forward(): sizes separated by x, NAME=SIZE for a dynamic dim,
// :DTYPE for a type other than float32.
#include "app/cli/Cli.h"

#include "core/io/ModelFile.h"
#include "core/io/TorchExport.h"

#include <iostream>
#include <memory>

namespace dcw::cli {

std::function<int()> setupImportTorch(CLI::App& sub) {
  struct Opts {
    std::string model, out, python = "/usr/bin/python3", className;
    std::vector<std::string> inputs;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "TorchScript model (.pt, .pth: torch.jit.save), or a Python file with --class")->required();
  sub.add_option("--class", o->className, "For a .py MODEL: the nn.Module class to build, with its constructor's literal arguments if it takes any: Net, 'Net(3, hidden=64)'");
  sub.add_option("--input", o->inputs, "Shape of an input of forward(), in order: 1x3x224x224, batch=1x3x224x224 (dynamic), 1x16:int64")
      ->required();
  sub.add_option("-o,--output", o->out, "The ONNX file to write")->required();
  sub.add_option("--python", o->python, "The Python with torch to run the exporter");
  return [o]() -> int {
    io::TorchExportOptions opts;
    opts.python = o->python;
    opts.className = o->className;
    for (auto& text : o->inputs) {
      auto in = io::parseTorchInput(text);
      if (!in) {
        Diagnostic d = in.error();
        d.location = "--input " + d.location;
        return reportError(d);
      }
      opts.inputs.push_back(*in);
    }
    if (auto r = io::exportTorchToOnnx(o->model, o->out, opts); !r) return reportError(r.error());
    // The export must open here too: load it once and say what it holds.
    auto loaded = io::loadModel(o->out);
    if (!loaded) return reportError(loaded.error());
    std::cout << "wrote " << o->out << " from " << o->model << " (torch.onnx.export, opset " << opts.opset << ")\n";
    return kExitOk;
  };
}

} // namespace dcw::cli
