#include "core/ir/StateScopes.h"

#include "core/ir/MapNodes.h"
#include "core/ir/State.h"

namespace dcw::ir {

Expected<StateScopes> StateScopes::of(const State& st) {
  StateScopes s;
  s.state = &st;
  auto order = st.topologicalOrder();
  if (!order) return order.takeError();
  auto scopes = st.scopeOf();
  if (!scopes) return scopes.takeError();
  s.scopes = std::move(*scopes);
  for (Node* n : *order) {
    if (n->kind() == ElementKind::MapExit) continue;
    auto it = s.scopes.find(n->id());
    s.children[it == s.scopes.end() ? nullptr : it->second].push_back(n);
  }
  return s;
}

const Node* StateScopes::topLevelOf(const Node* n) const {
  if (auto* x = dynamic_cast<const MapExit*>(n)) n = state->node(x->entryId);
  for (int guard = 0; n && guard < 100000; ++guard) {
    auto it = scopes.find(n->id());
    if (it == scopes.end() || !it->second) return n;
    n = it->second;
  }
  return nullptr;
}

} // namespace dcw::ir
