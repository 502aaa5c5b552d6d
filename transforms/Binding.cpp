#include "transforms/Binding.h"

#include "core/ir/MapNodes.h"
#include "core/ir/Node.h"
#include "core/ir/Path.h"

namespace dcw::transforms {

Expected<Binding> Binding::resolve(const Match& match, const ir::Sdfg& root) {
  Binding b;
  for (auto& [slot, path] : match.elements) {
    auto e = ir::resolvePath(root, path);
    if (!e) return fail(path, match.transformation + ": slot '" + slot + "' names no element (" + e.error().message + ")",
                        e.error().hint);
    b.elements_[slot] = *e;
  }
  return b;
}

ir::Element* Binding::element(const std::string& slot) const {
  auto it = elements_.find(slot);
  return it == elements_.end() ? nullptr : it->second;
}

ir::State* Binding::stateOf(const std::string& slot) const {
  auto* n = get<ir::Node>(slot);
  return n ? n->parent() : nullptr;
}

ir::MapEntry* resolveMapEntry(const Match& match, const ir::Sdfg& root, const std::string& slot, Diagnostics* whyNot,
                              bool needsParams) {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return nullptr;
  const std::string& path = match.elements.at(slot);
  auto* me = b->get<ir::MapEntry>(slot);
  if (!me) {
    if (whyNot) whyNot->error(path, "is not a map entry");
    return nullptr;
  }
  if (needsParams && me->params.empty()) {
    if (whyNot) whyNot->error(path, "the map has no parameters");
    return nullptr;
  }
  return me;
}

} // namespace dcw::transforms
