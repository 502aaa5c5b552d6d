// ModuleScope: see the header.
#include "transforms/ModuleScope.h"

#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "transforms/Matcher.h"
#include "transforms/Transformation.h"

#include <algorithm>
#include <unordered_set>

namespace dcw::transforms {

Expected<std::string> moduleSlot(const Match& m, const std::string& where) {
  std::string slot;
  for (auto& [s, path] : m.elements) {
    if (!ir::parseModuleAddress(path)) continue;
    if (!slot.empty())
      return fail(where, "slots '" + slot + "' and '" + s + "' both name a module group",
                  "give a module address in one slot; name the other elements by path or leave them out");
    slot = s;
  }
  return slot;
}

Expected<std::vector<Match>> matchesInModule(const Transformation& t, const Match& m, const std::string& slot, const ir::Sdfg& root) {
  const std::string& address = m.elements.at(slot);
  DCW_TRY(auto members, ir::moduleMembers(root, address));
  MatchQuery q;
  q.includeInapplicable = true;
  std::unordered_set<std::string> paths;
  for (ir::Node* n : members) {
    q.anchors.push_back(n);
    paths.insert(ir::pathOf(*n));
  }
  std::vector<Match> out;
  for (Match& c : enumerateMatches(t, root, q)) {
    auto bound = c.elements.find(slot);
    if (bound == c.elements.end() || !paths.count(bound->second)) continue;
    bool same = true;
    for (auto& [s, path] : m.elements)
      if (s != slot && c.elements.count(s) && c.elements.at(s) != path) same = false;
    if (!same) continue;
    c.options = m.options;
    out.push_back(std::move(c));
  }
  return out;
}

bool canApplyMatch(const Transformation& t, const Match& m, const ir::Sdfg& root, Diagnostics* whyNot) {
  auto slot = moduleSlot(m, m.transformation);
  if (!slot) {
    if (whyNot) whyNot->add(slot.error());
    return false;
  }
  if (slot->empty()) return t.canApply(m, root, whyNot);
  auto matches = matchesInModule(t, m, *slot, root);
  if (!matches) {
    if (whyNot) whyNot->add(matches.error());
    return false;
  }
  Diagnostics first;
  for (const Match& c : *matches) {
    if (t.canApply(c, root, first.empty() ? &first : nullptr)) return true;
  }
  if (whyNot) {
    if (auto* d = first.firstError()) whyNot->add(*d);
    else whyNot->error(m.elements.at(*slot), "no op of this module group fits " + std::string(t.name()) + "'s pattern " + t.pattern().describe());
  }
  return false;
}

std::vector<ModuleCandidate> moduleCandidates(const std::vector<Candidate>& candidates, const std::string& address,
                                              const ir::Sdfg& root) {
  std::vector<ModuleCandidate> out;
  auto members = ir::moduleMembers(root, address);
  if (!members) return out;
  std::unordered_set<std::string> paths;
  for (ir::Node* n : *members) paths.insert(ir::pathOf(*n));
  for (const Candidate& c : candidates) {
    if (!c.applicable) continue;
    std::string slot;
    for (auto& s : c.transformation->pattern().slots())
      if (auto b = c.match.elements.find(s.name); slot.empty() && b != c.match.elements.end() && paths.count(b->second)) slot = s.name;
    if (slot.empty()) continue;
    auto same = std::find_if(out.begin(), out.end(), [&](const ModuleCandidate& m) {
      return m.transformation == c.transformation && m.match.elements.begin()->first == slot;
    });
    if (same == out.end()) {
      ModuleCandidate m{c.transformation, Match{c.match.transformation, {{slot, address}}, {}}, 0};
      same = out.insert(out.end(), std::move(m));
    }
    ++same->places;
  }
  return out;
}

std::vector<ir::ElementId> touchedElements(const Match& m, const ir::Sdfg& root) {
  std::vector<ir::ElementId> out;
  for (auto& [slot, path] : m.elements) {
    if (ir::parseModuleAddress(path)) {
      if (auto members = ir::moduleMembers(root, path))
        for (ir::Node* n : *members) out.push_back(n->id());
    } else if (auto e = ir::resolvePath(root, path)) {
      out.push_back((*e)->id());
    }
  }
  return out;
}

} // namespace dcw::transforms
