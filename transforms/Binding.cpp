#include "transforms/Binding.h"

#include "core/ir/AccessNode.h"
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

ir::DataDescriptor* resolveAccessData(const Match& match, const ir::Sdfg& root, const std::string& slot, Diagnostics* whyNot,
                                      const ir::AccessNode** node) {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return nullptr;
  const std::string& path = match.elements.at(slot);
  auto* a = b->get<ir::AccessNode>(slot);
  if (!a) {
    if (whyNot) whyNot->error(path, "the element is not an access node");
    return nullptr;
  }
  ir::Sdfg* sdfg = ir::owningSdfg(a);
  ir::DataDescriptor* d = sdfg ? sdfg->findData(a->data()) : nullptr;
  if (!d && whyNot) whyNot->error(path, "access node names data '" + a->data() + "', which does not exist");
  if (node) *node = a;
  return d;
}

std::optional<int64_t> wholeNumber(const std::string& text) {
  try {
    size_t used = 0;
    const int64_t v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (...) {
  }
  return std::nullopt;
}

} // namespace dcw::transforms
