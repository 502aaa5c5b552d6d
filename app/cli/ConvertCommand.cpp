// `dcw convert MODEL -o OUT.dcw.json`: saves the SDFG of a model in DCW's JSON format.
#include "app/cli/Cli.h"

#include "core/io/ModelFile.h"
#include "core/serialize/JsonFormat.h"

#include <iostream>
#include <memory>

namespace dcw::cli {

std::function<int()> setupConvert(CLI::App& sub) {
  struct Opts {
    std::string model, out;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_option("-o,--output", o->out, "Output file (.dcw.json)")->required();
  return [o]() -> int {
    auto m = io::loadModel(o->model);
    if (!m) return reportError(m.error());
    reportWarnings(m->warnings);
    if (auto r = serialize::saveFile(*m->sdfg, o->out); !r) return reportError(r.error());
    std::cerr << "wrote " << o->out << "\n";
    return kExitOk;
  };
}

} // namespace dcw::cli
