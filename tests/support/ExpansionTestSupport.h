// Helpers shared by the expansion test suites: finding nodes through nested SDFGs and expanding the
// library nodes a suite is about, round by round (an expansion may contain further library nodes).
#pragma once

#include "core/expansions/ExpandPass.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dcw::testsupport {

// Every node of kind T with its state, through nested SDFGs, in state and node order.
template <class T>
std::vector<std::pair<ir::State*, T*>> nodesOf(const ir::Sdfg& s) {
  std::vector<std::pair<ir::State*, T*>> out;
  for (ir::State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* t = dynamic_cast<T*>(n.get())) out.push_back({st, t});
      if (auto* ns = dynamic_cast<ir::NestedSdfgNode*>(n.get())) {
        auto inner = nodesOf<T>(ns->sdfg());
        out.insert(out.end(), inner.begin(), inner.end());
      }
    }
  return out;
}

// The first map whose label starts with `label`: its entry and the WCR of the memlets leaving its exit.
struct MapInfo {
  ir::MapEntry* entry = nullptr;
  std::set<std::string> wcr;
};

inline MapInfo findMap(const ir::Sdfg& s, const std::string& label) {
  MapInfo info;
  for (auto [st, me] : nodesOf<ir::MapEntry>(s)) {
    if (me->label().rfind(label, 0) != 0) continue;
    info.entry = me;
    for (auto* e : st->outEdges(me->exitId)) info.wcr.insert(e->memlet.wcr);
    return info;
  }
  return info;
}

struct FoundNode {
  ir::State* state;
  ir::LibraryNode* node;
};

inline void collectLibraryNodes(const ir::Sdfg& s, std::vector<FoundNode>& out) {
  for (auto& [st, l] : nodesOf<ir::LibraryNode>(s)) out.push_back({st, l});
}

// Expands, round by round, every library node `select` picks; returns the first refusal's message
// (empty when all expanded) and counts the expansions in `expanded`.
inline std::string expandWhere(ir::Sdfg& root, const std::function<bool(const ir::LibraryNode&)>& select, int& expanded) {
  for (int round = 0; round < 8; ++round) {
    bool any = false;
    for (auto& [st, node] : nodesOf<ir::LibraryNode>(root)) {
      if (!select(*node)) continue;
      auto r = expansions::expandNode(root, node->id(), "pure");
      if (!r) return r.error().str();
      ++expanded;
      any = true;
    }
    if (!any) break;
  }
  return {};
}

} // namespace dcw::testsupport
