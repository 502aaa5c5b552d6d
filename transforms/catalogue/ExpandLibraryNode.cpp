#include "transforms/catalogue/ExpandLibraryNode.h"

#include "core/expansions/ExpandPass.h"
#include "core/expansions/Expansion.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"

#include <algorithm>

namespace dcw::transforms {

using namespace dcw::ir;

const Pattern& ExpandLibraryNode::pattern() const {
  static const Pattern p = Pattern::node("node", {ElementKind::LibraryNode});
  return p;
}

std::vector<OptionSpec> ExpandLibraryNode::options() const {
  return {{"implementation", OptionSpec::Type::Text, "pure", "which implementation replaces the node (pure, onednn, ...)", {}}};
}

bool ExpandLibraryNode::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  auto* lib = b->get<LibraryNode>("node");
  std::string path = match.elements.at("node");
  if (!lib) {
    if (whyNot) whyNot->error(path, "is not a library node");
    return false;
  }
  if (lib->opaque) {
    if (whyNot) whyNot->error(path, lib->className() + " has no known schema, so it has no implementation");
    return false;
  }
  std::string impl = match.options.count("implementation") ? match.options.at("implementation")
                     : lib->implementation.empty()           ? "pure"
                                                             : lib->implementation;
  auto impls = expansions::registry().implementations(lib->domain, lib->opType);
  if (std::find(impls.begin(), impls.end(), impl) == impls.end()) {
    std::string avail;
    for (auto& i : impls) avail += (avail.empty() ? "" : ", ") + i;
    if (whyNot)
      whyNot->error(path, lib->className() + " has no '" + impl + "' implementation",
                    avail.empty() ? "DCW cannot lower this op yet" : "available: " + avail);
    return false;
  }
  return true;
}

Expected<void> ExpandLibraryNode::apply(const Match& match, edit::Editor& editor) const {
  DCW_TRY(auto b, Binding::resolve(match, editor.root()));
  auto* lib = b.get<LibraryNode>("node");
  std::string impl = match.options.count("implementation") ? match.options.at("implementation")
                     : lib->implementation.empty()           ? "pure"
                                                             : lib->implementation;
  return expansions::expandNode(editor, *lib, impl);
}

} // namespace dcw::transforms
