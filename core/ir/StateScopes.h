// StateScopes: one state's nodes grouped by the map that directly encloses each (nullptr: the state's
// top level), every group in topological order, map exits left out — the order in which the code
// generators (codegen/SdfgWalker.h) and the FPGA estimator (codegen/fpga/CycleEstimate.h) visit a state.
#pragma once

#include "core/ir/Element.h"
#include "core/support/Expected.h"

#include <map>
#include <vector>

namespace dcw::ir {

class MapEntry;
class Node;
class State;

struct StateScopes {
  const State* state = nullptr;
  std::map<ElementId, const MapEntry*> scopes;                 // node -> its enclosing map entry (State::scopeOf)
  std::map<const MapEntry*, std::vector<const Node*>> children; // enclosing map entry -> nodes, topological order

  // Fails (with the state's own message) when the state has a cycle or an unbalanced scope.
  static Expected<StateScopes> of(const State& st);
  // The top-level node `n` lies in: itself, or the outermost map entry around it (a map exit counts
  // as its entry); nullptr for a node outside the scope tree.
  const Node* topLevelOf(const Node* n) const;
};

} // namespace dcw::ir
