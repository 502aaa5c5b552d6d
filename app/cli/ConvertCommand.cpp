// `dcw convert MODEL -o OUT.dcw.json [--dim NAME=VALUE]...`: saves the SDFG of a model in DCW's JSON
// format, specialized first where --dim gives dims or the values of scalar integer inputs (a model whose
// structure depends on such an input, a sample rate an If branches on, does not load without it).
#include "app/cli/Cli.h"

#include "core/io/ModelFile.h"
#include "core/serialize/JsonFormat.h"

#include <iostream>
#include <memory>

namespace dcw::cli {

std::function<int()> setupConvert(CLI::App& sub) {
  struct Opts {
    std::string model, out;
    std::vector<std::string> dims;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_option("-o,--output", o->out, "Output file (.dcw.json)")->required();
  sub.add_option("--dim", o->dims, "Specialize a dynamic dim or a scalar integer input first, NAME=VALUE");
  return [o]() -> int {
    io::LoadOptions load;
    if (!o->dims.empty()) {
      auto fixed = fixedDimsFromOptions(o->model, o->dims);
      if (!fixed) return reportError(fixed.error());
      // Only the dims named: the others stay symbolic in the saved model (run and bench default them to 1).
      auto named = parseDimOptions(o->dims);
      for (auto& [dim, value] : fixed->dims)
        if (named && named->count(dim)) load.fixedDims[dim] = value;
      load.fixedValues = fixed->values;
    }
    auto m = io::loadModel(o->model, load);
    if (!m) return reportError(m.error());
    reportWarnings(m->warnings);
    if (auto r = serialize::saveFile(*m->sdfg, o->out); !r) return reportError(r.error());
    std::cerr << "wrote " << o->out << "\n";
    return kExitOk;
  };
}

} // namespace dcw::cli
