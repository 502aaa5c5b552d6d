// `dcw codegen MODEL [--target T] -o DIR [--script S] [--dim N=V]`: writes the generated sources (the
// main file and any further ones the target makes) and their source map, through the same pipeline as
// `dcw run` and the app's code view (pipeline/Pipeline.h).
#include "app/cli/Cli.h"
#include "core/support/AtomicFile.h"

#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"

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
    std::vector<std::string> dims, prefer;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  addTargetOption(sub, o->target);
  addPreferOption(sub, o->prefer);
  sub.add_option("-o,--output", o->out, "Folder to write program.cpp (and further sources) and program.sourcemap.json into")->required();
  sub.add_option("--script", o->script, "Replay this DCW script on the model before generating");
  sub.add_option("--dim", o->dims, "Specialize a dynamic dim first, NAME=VALUE (as `dcw run` does to its inputs)");
  return [o]() -> int {
    pipeline::Options opts;
    opts.target = o->target;
    opts.prefer = o->prefer;
    if (!o->dims.empty())
      if (auto fixed = specializeFromDimOptions(o->model, o->dims, opts); !fixed) return reportError(fixed.error());
    pipeline::Steps steps;
    steps.scriptPath = o->script;
    auto prepared = pipeline::prepare(o->model, steps, opts);
    if (!prepared) return reportError(prepared.error());
    if (!o->script.empty()) reportScriptWarnings(prepared->model.warnings, o->script);
    auto code = pipeline::generate(*prepared, opts);
    if (!code) return reportError(code.error());
    std::error_code ec;
    fs::create_directories(o->out, ec);
    if (ec) return reportError(Diagnostic::error(o->out, "cannot create the folder: " + ec.message()));
    fs::path src = fs::path(o->out) / code->mainFile, map = fs::path(o->out) / "program.sourcemap.json";
    std::vector<std::pair<fs::path, const std::string*>> files = {{src, &code->source}};
    for (auto& f : code->extraFiles) files.push_back({fs::path(o->out) / f.name, &f.text});
    for (auto& [path, text] : files)
      if (auto w = writeFileAtomically(path.string(), *text); !w) return reportError(w.error());
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (auto& e : code->sourceMap) {
      nlohmann::ordered_json entry{{"first_line", e.firstLine}, {"last_line", e.lastLine}, {"element", e.element}, {"path", e.path}};
      if (!e.file.empty()) entry["file"] = e.file;
      j.push_back(entry);
    }
    if (auto w = writeFileAtomically(map.string(), j.dump(1) + "\n"); !w) return reportError(w.error());
    std::cerr << "wrote " << src.string();
    for (auto& f : code->extraFiles) std::cerr << ", " << (fs::path(o->out) / f.name).string();
    std::cerr << " and " << map.string() << "\n";
    if (!code->linkFlags.empty()) { // the environments of C++ tasklets (e.g. onednn) need libraries
      std::cerr << "link with:";
      for (auto& f : code->linkFlags) std::cerr << " " << f;
      std::cerr << "\n";
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
