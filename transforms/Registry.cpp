// The one list of every transformation DCW offers, in the order menus show them (grouped by
// category). Add a transformation here and it appears in the GUI, in `dcw transforms --list`,
// in scripts and in auto-optimize's reach.
#include "transforms/TransformationRegistry.h"

#include "transforms/catalogue/ExpandLibraryNode.h"
#include "transforms/catalogue/MapTiling.h"

namespace dcw::transforms {

const TransformationRegistry& TransformationRegistry::instance() {
  static const TransformationRegistry r = [] {
    TransformationRegistry r;
    // Library nodes
    r.add(std::make_unique<ExpandLibraryNode>());
    // Maps
    r.add(std::make_unique<MapTiling>());
    return r;
  }();
  return r;
}

const Transformation* TransformationRegistry::find(std::string_view name) const {
  for (auto& t : all_)
    if (t->name() == name) return t.get();
  return nullptr;
}

} // namespace dcw::transforms
