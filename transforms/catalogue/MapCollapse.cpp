#include "transforms/catalogue/MapCollapse.h"

#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

const Pattern& MapCollapse::pattern() const {
  static const Pattern p =
      Pattern::dataflow({{"outer", {ElementKind::MapEntry}}, {"inner", {ElementKind::MapEntry}}}, {{0, 1}});
  return p;
}

bool MapCollapse::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  MapEntry *outer = nullptr, *inner = nullptr;
  if (!scope::resolvePerfectNest(match, root, whyNot, "collapse two maps with nothing between them", outer, inner)) return false;
  const std::string& path = match.elements.at("outer");
  std::set<std::string> names(outer->params.begin(), outer->params.end());
  for (auto& p : inner->params)
    if (!names.insert(p).second) {
      if (whyNot) whyNot->error(path, "both maps use the parameter name " + p);
      return false;
    }
  std::string param;
  if (std::string range = scope::rangeDependingOnOuter(*outer, *inner, &param); !range.empty()) {
    if (whyNot)
      whyNot->error(path, "the inner range " + range + " depends on the outer parameter " + param,
                    "only maps with independent ranges can be collapsed");
    return false;
  }
  return true;
}

Expected<void> MapCollapse::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* outer = b.get<MapEntry>("outer");
  auto* inner = b.get<MapEntry>("inner");
  State& st = *outer->parent();
  MapExit* ox = scope::exitOf(st, *outer);
  MapExit* ix = scope::exitOf(st, *inner);

  struct NewEdge {
    const Node* src;
    std::string srcConn;
    const Node* dst;
    std::string dstConn;
    Memlet memlet;
  };
  std::vector<NewEdge> add;
  // Entry side: outer OUT_x -> inner IN_y -> inner OUT_y -> node  becomes  outer OUT_x -> node.
  for (auto* e : st.outEdges(inner->id())) {
    std::string src;
    for (auto* in : st.inEdges(inner->id()))
      if (in->dstConnector == scope::swapPrefix(e->srcConnector, "OUT_", "IN_") && !e->srcConnector.empty()) src = in->srcConnector;
    add.push_back({outer, src, st.node(e->dst), e->dstConnector, e->memlet});
  }
  // Exit side: node -> inner IN_y -> inner OUT_y -> outer IN_x  becomes  node -> outer IN_x.
  for (auto* e : st.inEdges(ix->id())) {
    std::string dst;
    for (auto* out : st.outEdges(ix->id()))
      if (out->srcConnector == scope::swapPrefix(e->dstConnector, "IN_", "OUT_") && !e->dstConnector.empty()) dst = out->dstConnector;
    add.push_back({st.node(e->src), e->srcConnector, ox, dst, e->memlet});
  }
  std::vector<std::string> params = outer->params;
  params.insert(params.end(), inner->params.begin(), inner->params.end());
  std::vector<Range> ranges = outer->range.ranges();
  ranges.insert(ranges.end(), inner->range.ranges().begin(), inner->range.ranges().end());
  ed.removeNode(st, ix->id());
  ed.removeNode(st, inner->id());
  for (auto& n : add) ed.addEdge(st, *n.src, n.srcConn, *n.dst, n.dstConn, n.memlet);
  ed.set(*outer, &MapEntry::params, params);
  ed.set(*outer, &MapEntry::range, Subset(ranges));
  return {};
}

} // namespace dcw::transforms
