#include "transforms/catalogue/MapReduceFusion.h"

#include "transforms/Binding.h"
#include "transforms/catalogue/MapFusion.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

const Pattern& MapReduceFusion::pattern() const {
  static const Pattern p = Pattern::dataflow({{"first_exit", {ElementKind::MapExit}},
                                              {"array", {ElementKind::AccessNode}},
                                              {"reduce_entry", {ElementKind::MapEntry}}},
                                             {{0, 1}, {1, 2}});
  return p;
}

bool MapReduceFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  auto* x1 = b->get<MapExit>("first_exit");
  auto* a = b->get<AccessNode>("array");
  auto* e2 = b->get<MapEntry>("reduce_entry");
  const std::string where = match.elements.count("array") ? match.elements.at("array") : std::string(name());
  if (!x1 || !a || !e2 || x1->parent() != a->parent() || a->parent() != e2->parent()) {
    if (whyNot) whyNot->error(where, "the match does not have the shape " + pattern().describe() + " in one state");
    return false;
  }
  const State& st = *a->parent();
  MapExit* x2 = scope::exitOf(st, *e2);
  bool reduces = false;
  if (x2)
    for (auto* e : st.inEdges(x2->id()))
      if (!e->memlet.wcr.empty()) reduces = true;
  if (!reduces) {
    if (whyNot)
      whyNot->error(where, "the second map is not a reduction (no output has write-conflict resolution)",
                    "use MapFusion for element-wise consumers");
    return false;
  }
  if (auto r = MapFusion::checkProducerConsumer(st, *x1, *a, *e2)) {
    if (whyNot) whyNot->error(where, r->message, r->hint);
    return false;
  }
  return true;
}

Expected<void> MapReduceFusion::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* x1 = b.get<MapExit>("first_exit");
  auto* a = b.get<AccessNode>("array");
  auto* e2 = b.get<MapEntry>("reduce_entry");
  State& st = *a->parent();
  auto* e1 = dynamic_cast<MapEntry*>(st.node(x1->entryId));
  MapFusion::fuseInto(ed, st, *e1, *e2, {a->data()});
  return {};
}

} // namespace dcw::transforms
