// ElementTree: every element the canvas can show (SDFGs, blocks, dataflow nodes), in one deterministic
// pre-order, with its label, its op type and the container element that holds it on the canvas (a
// node's map scope or state, a state's region or SDFG, an SDFG's library or nested-SDFG node).
//
// Why: search must find elements hidden inside collapsed containers, and revealing one means opening
// its chain of containers. The canvas's VisualGraph only knows what is visible; this index knows all.
// Built once per model in linear time; it copies the text it needs and keeps no pointer into the IR.
#pragma once

#include "core/ir/Element.h"

#include <QString>

#include <unordered_map>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::views {

struct ElementEntry {
  ir::ElementId id = ir::kNoId;
  ir::ElementId container = ir::kNoId; // kNoId for the root SDFG
  ir::ElementKind kind = ir::ElementKind::Sdfg;
  QString label;
  QString opType;                      // library nodes: "Conv" (class name); others: the kind's name
};

class ElementTree {
public:
  ElementTree() = default;
  explicit ElementTree(const ir::Sdfg& root);

  const std::vector<ElementEntry>& entries() const { return entries_; }
  const ElementEntry* find(ir::ElementId id) const;
  // Containers from the outermost to the innermost that hold `id` (not including it).
  std::vector<ir::ElementId> ancestors(ir::ElementId id) const;

private:
  std::vector<ElementEntry> entries_;
  std::unordered_map<ir::ElementId, size_t> byId_;
};

} // namespace dcw::views
