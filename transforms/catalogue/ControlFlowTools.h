// ControlFlowTools: what the control-flow transformations (LoopToMap, MapToForLoop, StateFusion,
// InlineNestedSDFG) share when they move a state's dataflow into another state: a node's copy
// without its edges, connectors included, ready to be added to the new state.
#pragma once

#include "core/ir/Node.h"

#include <memory>

namespace dcw::transforms::controlflow {

// A copy of `n` without edges or id: tasklets, map entries and exits, access nodes (with the
// access node's label when `keepAccessLabel`, else the default label, its data) and library nodes.
// nullptr for any other kind, which the callers exclude beforehand.
std::unique_ptr<ir::Node> cloneNode(const ir::Node& n, bool keepAccessLabel = true);

} // namespace dcw::transforms::controlflow
