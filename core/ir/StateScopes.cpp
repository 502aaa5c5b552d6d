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

} // namespace dcw::ir
