// `dcw codegen MODEL --target cpu -o DIR [--script S]`: writes the generated sources and their source map.
#include "app/cli/Cli.h"

#include "codegen/cpu/CppGenerator.h"
#include "codegen/run/PreparedModel.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace dcw::cli {

namespace fs = std::filesystem;

std::function<int()> setupCodegen(CLI::App& sub) {
  struct Opts {
    std::string model, out, target = "cpu", script;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_option("--target", o->target, "Target to generate for")->check(CLI::IsMember({"cpu"}));
  sub.add_option("-o,--output", o->out, "Folder to write program.cpp and program.sourcemap.json into")->required();
  sub.add_option("--script", o->script, "Replay this DCW script on the model before generating");
  return [o]() -> int {
    auto m = codegen::loadExpanded(o->model, nullptr, {}, o->script);
    if (!m) return reportError(m.error());
    if (!o->script.empty()) reportScriptWarnings(m->warnings, o->script);
    auto code = codegen::generateCpp(*m->sdfg);
    if (!code) return reportError(code.error());
    std::error_code ec;
    fs::create_directories(o->out, ec);
    if (ec) return reportError(Diagnostic::error(o->out, "cannot create the folder: " + ec.message()));
    fs::path src = fs::path(o->out) / "program.cpp", map = fs::path(o->out) / "program.sourcemap.json";
    std::ofstream(src) << code->source;
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (auto& e : code->sourceMap)
      j.push_back({{"first_line", e.firstLine}, {"last_line", e.lastLine}, {"element", e.element}, {"path", e.path}});
    std::ofstream(map) << j.dump(1) << "\n";
    if (!fs::exists(src) || !fs::exists(map)) return reportError(Diagnostic::error(o->out, "cannot write the sources"));
    std::cerr << "wrote " << src.string() << " and " << map.string() << "\n";
    if (!code->linkFlags.empty()) { // the environments of C++ tasklets (e.g. onednn) need libraries
      std::cerr << "link with:";
      for (auto& f : code->linkFlags) std::cerr << " " << f;
      std::cerr << "\n";
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
