#include "core/ir/StateScopes.h"

#include "core/ir/MapNodes.h"
#include "core/ir/State.h"

namespace dcw::ir {

Expected<StateScopes> StateScopes::of(const State& st) {
  DCW_TRY(auto s, st.scopes());
  return *s;
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
