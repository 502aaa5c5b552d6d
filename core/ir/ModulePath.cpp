// ModulePath: see the header.
#include "core/ir/ModulePath.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace dcw::ir {

namespace {

bool numeric(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(sep, b);
    if (e == std::string_view::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

bool startsWith(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

} // namespace

std::vector<std::string> modulePath(std::string_view nodeName) {
  const bool slashed = !nodeName.empty() && nodeName.front() == '/';
  auto parts = split(nodeName, slashed ? '/' : '.');
  if (parts.size() < 2) return {};
  parts.pop_back(); // the op itself
  if (!slashed && parts.front() == "p2o") return {};
  std::vector<std::string> out;
  for (std::string_view p : parts) {
    if (numeric(p) && !out.empty()) out.back() += "." + std::string(p); // layers.0
    else out.emplace_back(p);
  }
  return out;
}

std::vector<std::string> moduleOf(const State& st, const Node& n) {
  if (auto* x = dynamic_cast<const MapExit*>(&n)) {
    const Node* e = st.node(x->entryId);
    return e ? modulePath(e->label()) : std::vector<std::string>{};
  }
  if (auto* l = dynamic_cast<const LibraryNode*>(&n)) return modulePath(l->sourceName.empty() ? l->label() : l->sourceName);
  return modulePath(n.label());
}

std::string joinModulePath(const std::vector<std::string>& parts) {
  std::string out;
  for (auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

std::string moduleAddress(std::string_view statePath, std::string_view module) {
  return std::string(statePath) + "/" + std::string(kModuleSegment) + std::string(module);
}

std::optional<ModuleAddress> parseModuleAddress(std::string_view path) {
  const std::string marker = "/" + std::string(kModuleSegment);
  const size_t at = path.find(marker);
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  ModuleAddress a{std::string(path.substr(0, at)), std::string(path.substr(at + marker.size()))};
  while (!a.module.empty() && a.module.back() == '/') a.module.pop_back();
  return a;
}

namespace {
// The top-level ops of a state with their module paths (the ops of moduleMembers).
Expected<std::vector<std::pair<Node*, std::vector<std::string>>>> topLevelModules(const State& st) {
  DCW_TRY(auto scopes, st.scopeOf());
  std::vector<std::pair<Node*, std::vector<std::string>>> out;
  for (auto& n : st.nodes()) {
    if (n->kind() == ElementKind::AccessNode || n->kind() == ElementKind::MapExit) continue;
    if (auto s = scopes.find(n->id()); s != scopes.end() && s->second) continue; // inside a map
    auto p = moduleOf(st, *n);
    if (!p.empty()) out.emplace_back(n.get(), std::move(p));
  }
  return out;
}
} // namespace

std::vector<ModuleGroup> moduleGroups(const State& st) {
  auto ops = topLevelModules(st);
  if (!ops) return {};
  std::map<std::string, size_t> index;
  std::vector<ModuleGroup> all; // in the order of first appearance, parents first
  for (auto& [n, p] : *ops)
    for (size_t k = 1; k <= p.size(); ++k) {
      std::string m = joinModulePath({p.begin(), p.begin() + std::ptrdiff_t(k)});
      auto [it, fresh] = index.try_emplace(m, all.size());
      if (fresh) all.push_back({ModuleInfo{"", m, int(k) - 1, 0}, {}});
      ModuleGroup& g = all[it->second];
      ++g.info.ops;
      g.members.push_back(n);
    }
  const std::string statePath = pathOf(st);
  std::vector<ModuleGroup> out;
  for (auto& g : all)
    if (g.info.ops >= 2) {
      g.info.address = moduleAddress(statePath, g.info.module);
      out.push_back(std::move(g));
    }
  return out;
}

std::vector<ModuleInfo> modulesOf(const State& st) {
  std::vector<ModuleInfo> out;
  for (auto& g : moduleGroups(st)) out.push_back(std::move(g.info));
  return out;
}

Expected<std::vector<Node*>> moduleMembers(const Sdfg& root, std::string_view address) {
  auto a = parseModuleAddress(address);
  if (!a) return fail(std::string(address), "is not a module address", "write STATE/module:MODULE, e.g. main/state0/module:encoder/layer.3");
  if (a->module.empty())
    return fail(std::string(address), "names no module after 'module:'", "write STATE/module:MODULE, e.g. main/state0/module:encoder/layer.3");
  auto resolved = resolvePath(root, a->state);
  if (!resolved) return fail(std::string(address), "the state of this module address does not exist: " + resolved.error().message,
                             resolved.error().hint);
  auto* st = dynamic_cast<State*>(*resolved);
  if (!st) return fail(std::string(address), "'" + a->state + "' is not a state", "a module address starts with the path of a state, e.g. main/state0");
  DCW_TRY(auto ops, topLevelModules(*st));
  std::vector<std::string> want;
  for (auto part : split(a->module, '/')) want.emplace_back(part);
  std::vector<Node*> out;
  std::vector<std::vector<std::string>> paths; // of the other ops, for the hint
  for (auto& [n, p] : ops) {
    if (startsWith(p, want)) out.push_back(n);
    else paths.push_back(std::move(p));
  }
  if (out.empty()) {
    // The modules one level below the longest prefix of the address that exists.
    size_t known = 0;
    for (auto& p : paths)
      while (known < want.size() && startsWith(p, {want.begin(), want.begin() + std::ptrdiff_t(known + 1)})) ++known;
    std::set<std::string> modules;
    for (auto& p : paths)
      if (p.size() > known && startsWith(p, {want.begin(), want.begin() + std::ptrdiff_t(known)}))
        modules.insert(joinModulePath({p.begin(), p.begin() + std::ptrdiff_t(known + 1)}));
    std::string hint;
    for (auto& m : modules) {
      if (hint.size() > 200) {
        hint += ", ...";
        break;
      }
      hint += (hint.empty() ? "" : ", ") + m;
    }
    return fail(std::string(address), "no op of " + a->state + " is in module '" + a->module + "'",
                modules.empty() ? "the op names of this state name no modules (torch writes /encoder/layer.3/MatMul)"
                                : "modules there: " + hint);
  }
  return out;
}

} // namespace dcw::ir
