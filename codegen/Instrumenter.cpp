#include "codegen/Instrumenter.h"

#include "core/ir/Sdfg.h"

namespace dcw::codegen {

Instrumenter::Instrumenter(const Instrumentation& what, const ir::Sdfg& root, const ir::PathIndex& paths)
    : what_(what), root_(root), paths_(paths) {
  if (enabled()) profiled_.reserve(64);
}

Expected<void> Instrumenter::resolvePaths() {
  for (auto& p : what_.paths) {
    ir::ElementId id = paths_.idOf(p);
    if (id == ir::kNoId && p == root_.name()) id = root_.id();
    if (id == ir::kNoId)
      return fail(p, "the instrumentation path names no element of SDFG '" + root_.name() + "'",
                  "copy the path from the source map or `dcw inspect` (after expansion)");
    if (id != root_.id()) explicit_.insert(id);
  }
  return {};
}

bool Instrumenter::wants(ProfiledElement::Kind k, ir::ElementId id, bool insideMap) const {
  if (!what_.any()) return false;
  if (explicit_.count(id)) return true;
  if (insideMap) return false;
  switch (k) {
  case ProfiledElement::Kind::State: return what_.states;
  case ProfiledElement::Kind::Map: return what_.maps;
  case ProfiledElement::Kind::NestedSdfg: return what_.nestedSdfgs;
  case ProfiledElement::Kind::Tasklet: return what_.tasklets;
  default: return false;
  }
}

int Instrumenter::begin(ProfiledElement::Kind k, ir::ElementId id, const std::string& path, bool masterOnly) {
  ProfiledElement pe;
  pe.element = id;
  pe.path = path;
  auto slash = pe.path.rfind('/');
  pe.label = slash == std::string::npos ? pe.path : pe.path.substr(slash + 1);
  pe.kind = k;
  pe.parent = stack_.empty() ? -1 : stack_.back();
  pe.masterOnly = masterOnly;
  int index = static_cast<int>(profiled_.size());
  profiled_.push_back(std::move(pe));
  stack_.push_back(index);
  return index;
}

Expected<void> Instrumenter::checkEveryPathTimed() const {
  std::set<ir::ElementId> timed;
  for (auto& pe : profiled_) timed.insert(pe.element);
  for (ir::ElementId id : explicit_)
    if (!timed.count(id)) {
      ir::Element* el = paths_.element(id);
      return fail(paths_.pathOf(id), "cannot be instrumented: it is a " + std::string(el ? ir::elementKindName(el->kind()) : "element") +
                                         " that generates no block of its own (or no code at all)",
                  "instrument a state, map, nested SDFG node, tasklet or copy edge");
    }
  return {};
}

const char* profiledKindName(ProfiledElement::Kind k) {
  switch (k) {
  case ProfiledElement::Kind::Model: return "model";
  case ProfiledElement::Kind::State: return "state";
  case ProfiledElement::Kind::Map: return "map";
  case ProfiledElement::Kind::NestedSdfg: return "nested_sdfg";
  case ProfiledElement::Kind::Tasklet: return "tasklet";
  case ProfiledElement::Kind::Copy: return "copy";
  }
  return "element";
}

} // namespace dcw::codegen
