#include "transforms/Binding.h"

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

} // namespace dcw::transforms
