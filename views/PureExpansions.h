// PureExpansions: the canvas's window onto the lowering registry (core/expansions) — for a library
// node, its `pure` implementation (maps, tasklets, memlets) as a separate SDFG that the canvas draws
// inside the node's box. The model is never changed: the expansion is built from the node on first
// request, kept here, and renumbered with ids above every id of the model so that selecting an
// element inside it never names an element of the model. Nodes whose expansion fails (or that have
// none) simply do not open; the reason is kept for the status bar.
#pragma once

#include "core/ir/Element.h"

#include <QString>

#include <map>
#include <memory>

namespace dcw::ir {
class LibraryNode;
class Sdfg;
} // namespace dcw::ir

namespace dcw::views {

class PureExpansions {
public:
  explicit PureExpansions(const ir::Sdfg& model);
  ~PureExpansions();

  bool has(const ir::LibraryNode& node) const;       // a `pure` implementation is registered
  const ir::Sdfg* get(const ir::LibraryNode& node);  // built on first use; nullptr on failure
  QString lastError() const { return lastError_; }
  size_t size() const { return cache_.size(); }

private:
  ir::ElementId next_;
  std::map<ir::ElementId, std::unique_ptr<ir::Sdfg>> cache_; // nullptr: failed
  QString lastError_;
};

} // namespace dcw::views
