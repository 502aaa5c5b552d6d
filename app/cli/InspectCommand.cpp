// `dcw inspect MODEL [--json] [--modules]`: what is in a model, at a glance or as JSON for scripts.
#include "app/cli/Cli.h"

#include "core/analysis/ModelSummary.h"
#include "core/expansions/Implementations.h"
#include "core/io/ModelFile.h"
#include "core/ir/DynamicExtent.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "core/ir/Walk.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace dcw::cli {

namespace {

std::string human(int64_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  if (bytes >= (int64_t(1) << 30)) os << bytes / double(int64_t(1) << 30) << " GiB";
  else if (bytes >= (1 << 20)) os << bytes / double(1 << 20) << " MiB";
  else if (bytes >= (1 << 10)) os << bytes / double(1 << 10) << " KiB";
  else return std::to_string(bytes) + " B";
  return os.str();
}

std::string grouped(int64_t n) {
  std::string s = std::to_string(n), out;
  int k = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (k && k % 3 == 0 && *it != '-') out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++k;
  }
  return out;
}

std::string shapeText(const analysis::ArrayInfo& a) {
  std::string s = a.dtype + "[";
  for (size_t i = 0; i < a.shape.size(); ++i) s += (i ? ", " : "") + a.shape[i];
  return s + "]";
}

void printText(const io::LoadedModel& m, const analysis::ModelSummary& s) {
  auto meta = [&](const std::string& k) {
    auto it = s.metadata.find(k);
    return it == s.metadata.end() ? std::string() : it->second;
  };
  std::cout << "Model       " << m.path << " (" << (m.format == io::ModelFormat::Onnx ? "onnx" : "dcw.json");
  if (!meta("producer").empty()) std::cout << ", producer " << meta("producer");
  if (!meta("opset:ai.onnx").empty()) std::cout << ", opset " << meta("opset:ai.onnx");
  std::cout << ")\n";
  std::cout << "Graph       " << s.name << ": " << s.stateCount << " state(s), " << s.nodeCount << " operations, depth "
            << s.depth << ", subgraph nesting " << s.nesting << "\n";
  std::cout << "Parameters  " << grouped(s.parameterCount) << " (" << human(s.parameterBytes) << ")\n";
  std::cout << "Symbols     ";
  if (s.symbols.empty()) std::cout << "(none)";
  bool first = true;
  for (auto& [n, t] : s.symbols) {
    std::cout << (first ? "" : ", ") << n;
    first = false;
  }
  std::cout << "\n";
  // Counts only the run knows (core/ir/DynamicExtent.h): who counts them and how large they can get.
  for (auto& e : ir::dynamicExtents(*m.sdfg))
    std::cout << "            " << e.symbol << ": counted at run time by " << e.node << ", at most " << e.bound.str() << "\n";
  std::map<std::string, const analysis::ArrayInfo*> byName;
  for (auto& a : s.arrays) byName[a.name] = &a;
  for (auto* list : {&s.inputs, &s.outputs}) {
    std::cout << (list == &s.inputs ? "Inputs      " : "Outputs     ");
    for (size_t i = 0; i < list->size(); ++i) {
      auto* a = byName[(*list)[i]];
      std::cout << (i ? "\n            " : "") << (*list)[i] << ": " << (a ? shapeText(*a) : "?");
    }
    std::cout << "\n";
  }
  if (s.opaqueOps) std::cout << "Opaque ops  " << s.opaqueOps << " (inspectable, not runnable)\n";

  std::vector<std::pair<std::string, int64_t>> ops(s.opsByType.begin(), s.opsByType.end());
  std::stable_sort(ops.begin(), ops.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::cout << "\nOperations by type (" << ops.size() << " types)\n";
  for (auto& [op, n] : ops) std::cout << "  " << std::left << std::setw(28) << op << std::right << std::setw(6) << n << "\n";

  std::cout << "\nArrays (" << s.arrays.size() << ")\n";
  size_t w = 4;
  for (auto& a : s.arrays) w = std::max(w, std::min<size_t>(a.name.size(), 48));
  std::cout << "  " << std::left << std::setw(int(w)) << "name" << "  " << std::setw(10) << "role" << "  " << "type"
            << std::right << "\n";
  for (auto& a : s.arrays) {
    std::cout << "  " << std::left << std::setw(int(w)) << a.name << "  " << std::setw(10) << a.role << "  " << shapeText(a);
    if (a.bytes >= 0) std::cout << "  " << human(a.bytes);
    std::cout << std::right << "\n";
  }
}

// Every library node (subgraphs included) with its chosen implementation, the one the CPU target
// uses (the choice or the default policy; null when there is none) and every alternative.
nlohmann::ordered_json libraryNodesJson(ir::Sdfg& root) {
  auto out = nlohmann::ordered_json::array();
  ir::walk(root, [&](ir::Element& el) {
    auto* l = dynamic_cast<ir::LibraryNode*>(&el);
    if (!l) return;
    std::string path = ir::pathOf(*l);
    nlohmann::ordered_json x;
    x["path"] = path;
    x["op"] = l->className();
    x["implementation"] = l->implementation;
    auto used = expansions::chooseImplementation(*l, l->implementation, expansions::kCpuTarget, path);
    x["cpu_uses"] = used ? nlohmann::ordered_json((*used)->implementation) : nlohmann::ordered_json(nullptr);
    if (!used) x["cpu_problem"] = used.error().str();
    auto alts = nlohmann::ordered_json::array();
    for (auto* e : expansions::implementationsOf(l->domain, l->opType)) {
      nlohmann::ordered_json a;
      a["name"] = e->implementation;
      a["targets"] = e->decl.targets;  // empty: any target
      a["environments"] = e->decl.environments;
      a["differentiable"] = e->decl.differentiable;
      a["description"] = e->description;
      alts.push_back(std::move(a));
    }
    x["alternatives"] = std::move(alts);
    out.push_back(std::move(x));
  });
  return out;
}

// The module groups of every state (core/ir/ModulePath.h): the addresses `set`, `apply` and
// `dcw transforms --at` take.
std::vector<ir::ModuleInfo> allModules(const ir::Sdfg& root) {
  std::vector<ir::ModuleInfo> out;
  for (ir::State* st : root.allStates()) {
    auto m = ir::modulesOf(*st);
    out.insert(out.end(), m.begin(), m.end());
  }
  return out;
}

void printModules(const ir::Sdfg& root) {
  auto modules = allModules(root);
  std::cout << "\nModule groups (" << modules.size() << "; an address names every op of its group in scripts)\n";
  if (modules.empty()) std::cout << "  (none: the op names name no modules)\n";
  for (auto& m : modules)
    std::cout << "  " << std::string(size_t(2 * m.depth), ' ') << m.address << "  " << m.ops << " ops\n";
}

nlohmann::ordered_json toJson(const io::LoadedModel& m, const analysis::ModelSummary& s, bool modules) {
  nlohmann::ordered_json j;
  j["model"] = m.path;
  j["format"] = m.format == io::ModelFormat::Onnx ? "onnx" : "dcw.json";
  j["name"] = s.name;
  j["operations"] = s.opsByType;
  j["operation_count"] = s.nodeCount;
  j["state_count"] = s.stateCount;
  j["depth"] = s.depth;
  j["nesting"] = s.nesting;
  j["parameters"] = {{"count", s.parameterCount}, {"bytes", s.parameterBytes}};
  j["opaque_ops"] = s.opaqueOps;
  j["symbols"] = s.symbols;
  j["inputs"] = s.inputs;
  j["outputs"] = s.outputs;
  auto arrays = nlohmann::ordered_json::array();
  for (auto& a : s.arrays) {
    nlohmann::ordered_json x;
    x["name"] = a.name;
    x["path"] = a.path;
    x["role"] = a.role;
    x["dtype"] = a.dtype;
    x["shape"] = a.shape;
    x["elements"] = a.elements >= 0 ? nlohmann::ordered_json(a.elements) : nlohmann::ordered_json(nullptr);
    x["bytes"] = a.bytes >= 0 ? nlohmann::ordered_json(a.bytes) : nlohmann::ordered_json(nullptr);
    arrays.push_back(std::move(x));
  }
  j["arrays"] = std::move(arrays);
  j["metadata"] = s.metadata;
  j["library_nodes"] = libraryNodesJson(*m.sdfg);
  if (modules) {
    auto list = nlohmann::ordered_json::array();
    for (auto& g : allModules(*m.sdfg)) list.push_back({{"address", g.address}, {"module", g.module}, {"depth", g.depth}, {"ops", g.ops}});
    j["modules"] = std::move(list);
  }
  auto warnings = nlohmann::ordered_json::array();
  for (auto* ds : {&m.warnings, &m.validation})
    for (auto& d : ds->items()) warnings.push_back(d.str());
  j["warnings"] = std::move(warnings);
  return j;
}

} // namespace

std::function<int()> setupInspect(CLI::App& sub) {
  struct Opts {
    std::string model;
    bool json = false;
    bool modules = false;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_flag("--json", o->json, "Print one JSON object instead of text");
  sub.add_flag("--modules", o->modules,
               "Also list the module groups (from torch-style op names) with the addresses scripts take, e.g. main/state0/module:layer1");
  return [o]() -> int {
    auto m = io::loadModel(o->model);
    if (!m) return reportError(m.error());
    auto s = analysis::summarize(*m->sdfg);
    if (o->json) {
      std::cout << toJson(*m, s, o->modules).dump(1) << std::endl;
    } else {
      reportWarnings(m->warnings);
      reportWarnings(m->validation);
      printText(*m, s);
      if (o->modules) printModules(*m->sdfg);
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
