#include "transforms/catalogue/MapToForLoop.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

#include <map>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct MapToForLoopPlan {
  State* st = nullptr;
  MapEntry* entry = nullptr;
  MapExit* exit = nullptr;
  std::vector<Node*> body;
  std::map<std::string, ElementId> ins, outs; // data -> outer access node
};

bool analyseMapToForLoop(const Match& match, const Sdfg& root, MapToForLoopPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("entry");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.entry = bind->get<MapEntry>("entry");
  if (!p.entry) return fail("is not a map entry");
  p.st = p.entry->parent();
  if (p.entry->params.size() != 1)
    return fail("the map has " + std::to_string(p.entry->params.size()) + " parameters; only one-dimensional maps become loops",
                "split or collapse the map first");
  p.exit = scope::exitOf(*p.st, *p.entry);
  if (!p.exit) return fail("the map has no exit");
  if (scope::enclosing(*p.st, *p.entry)) return fail("the map lies inside another map", "only top-level maps become loops");
  const Sdfg* sdfg = owningSdfg(p.st);
  auto plain = [&](const std::string& d) {
    const DataDescriptor* desc = sdfg->findData(d);
    return desc && desc->rankKnown && desc->wrappers.empty();
  };
  for (auto* e : p.st->inEdges(p.entry->id())) {
    auto* an = dynamic_cast<AccessNode*>(p.st->node(e->src));
    if (e->memlet.isEmpty() || !an) return fail("an input of the map does not come from an access node");
    if (e->memlet.data != an->data() || !plain(an->data())) return fail("the map input " + e->memlet.str() + " is not a plain tensor");
    if (p.ins.count(an->data()) && p.ins[an->data()] != an->id())
      return fail("the map reads '" + an->data() + "' through several access nodes");
    p.ins[an->data()] = an->id();
  }
  for (auto* e : p.st->outEdges(p.exit->id())) {
    auto* an = dynamic_cast<AccessNode*>(p.st->node(e->dst));
    if (e->memlet.isEmpty() || !an) return fail("an output of the map does not go to an access node");
    if (e->memlet.data != an->data() || !plain(an->data())) return fail("the map output " + e->memlet.str() + " is not a plain tensor");
    if (p.outs.count(an->data()) && p.outs[an->data()] != an->id())
      return fail("the map writes '" + an->data() + "' through several access nodes");
    if (p.ins.count(an->data())) return fail("the map both reads and writes '" + an->data() + "'");
    p.outs[an->data()] = an->id();
  }
  if (p.outs.empty()) return fail("the map writes nothing");
  p.body = scope::nodesInside(*p.st, *p.entry);
  for (Node* n : p.body) {
    if (n->kind() == ElementKind::AccessNode)
      return fail("the map body holds the access node '" + n->label() + "'", "only tasklets and nested maps are moved");
    if (n->kind() == ElementKind::NestedSdfg) return fail("the map body holds the nested SDFG '" + n->label() + "'");
    if (auto* lib = dynamic_cast<LibraryNode*>(n); lib && !lib->subgraphs().empty())
      return fail("the map body holds '" + n->label() + "', a library node with subgraphs");
  }
  return true;
}

} // namespace

const Pattern& MapToForLoop::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

bool MapToForLoop::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  MapToForLoopPlan p;
  return analyseMapToForLoop(match, root, p, whyNot);
}

Expected<void> MapToForLoop::apply(const Match& match, edit::Editor& ed) const {
  MapToForLoopPlan p;
  if (auto ok = analyseForApply(analyseMapToForLoop, match, ed.root(), p, "entry"); !ok) return ok;
  State& st = *p.st;
  const Sdfg& outer = *owningSdfg(p.st);
  const std::string param = p.entry->params[0];
  const Range range = p.entry->range[0];

  // The nested SDFG: the map's data, the loop, the body state.
  auto nested = std::make_unique<Sdfg>(p.entry->label() + "_loop");
  std::set<std::string> symbols;
  auto note = [&](const std::set<std::string>& s) { symbols.insert(s.begin(), s.end()); };
  auto declare = [&](const std::string& name) {
    const DataDescriptor* o = outer.findData(name);
    auto d = std::make_unique<DataDescriptor>(name);
    d->dataKind = o->dataKind;
    d->dtype = o->dtype;
    d->shape = o->shape;
    d->strides = o->strides;
    d->offset = o->offset;
    d->transient = false;
    note(o->freeSymbols());
    nested->addData(std::move(d));
  };
  for (auto& [d, id] : p.ins) {
    declare(d);
    nested->inputs.push_back(d);
  }
  for (auto& [d, id] : p.outs) {
    declare(d);
    nested->outputs.push_back(d);
  }
  auto loopOwned = std::make_unique<LoopRegion>("loop_" + param);
  loopOwned->loopVariable = param;
  loopOwned->init = range.begin;
  loopOwned->condition = sym::lt(sym::Expr::symbol(param), range.end);
  loopOwned->update = sym::Expr::symbol(param) + range.step;
  note(range.begin.freeSymbols());
  note(range.end.freeSymbols());
  note(range.step.freeSymbols());
  auto* loop = static_cast<LoopRegion*>(nested->addBlock(std::move(loopOwned)));
  State* body = loop->addState("body");

  std::map<ElementId, Node*> map;
  std::set<std::string> innerParams{param};
  for (Node* n : p.body) {
    map[n->id()] = body->addNode(n->clone());
    if (auto* me = dynamic_cast<MapEntry*>(n)) {
      innerParams.insert(me->params.begin(), me->params.end());
      note(me->range.freeSymbols());
    }
  }
  relinkMapCopies(map);
  std::map<std::string, AccessNode*> readers, writers;
  auto reader = [&](const std::string& d) {
    auto& r = readers[d];
    if (!r) r = body->add<AccessNode>(d);
    return r;
  };
  auto writer = [&](const std::string& d) {
    auto& w = writers[d];
    if (!w) w = body->add<AccessNode>(d);
    return w;
  };
  std::set<ElementId> bodyIds;
  for (Node* n : p.body) bodyIds.insert(n->id());
  for (auto& e : st.edges()) {
    bool fromEntry = e->src == p.entry->id(), toExit = e->dst == p.exit->id();
    bool srcIn = bodyIds.count(e->src) > 0, dstIn = bodyIds.count(e->dst) > 0;
    if (!(fromEntry && (dstIn || toExit)) && !(toExit && srcIn) && !(srcIn && dstIn)) continue;
    if (e->memlet.isEmpty() && (fromEntry || toExit)) continue; // scope-keeping edges are not needed
    note(e->memlet.subset.freeSymbols());
    note(e->memlet.volume.freeSymbols());
    Node* src = fromEntry ? static_cast<Node*>(reader(e->memlet.data)) : map.at(e->src);
    Node* dst = toExit ? static_cast<Node*>(writer(e->memlet.data)) : map.at(e->dst);
    body->addEdge(*src, fromEntry ? "" : e->srcConnector, *dst, toExit ? "" : e->dstConnector, e->memlet);
  }
  for (const std::string& s : symbols)
    if (!innerParams.count(s)) nested->addSymbol(s);

  auto nsdfg = std::make_unique<NestedSdfgNode>(p.entry->label() + "_loop", std::move(nested));
  for (auto& [d, id] : p.ins) nsdfg->addIn(Connector{d, outer.findData(d)->dtype});
  for (auto& [d, id] : p.outs) nsdfg->addOut(Connector{d, outer.findData(d)->dtype});
  for (auto& [s, t] : nsdfg->sdfg().symbols()) nsdfg->symbolMapping[s] = sym::Expr::symbol(s);

  // Replace the map by the nested SDFG.
  for (Node* n : p.body) ed.removeNode(st, n->id());
  const std::map<std::string, ElementId> ins = p.ins, outs = p.outs;
  ed.removeNode(st, p.exit->id());
  ed.removeNode(st, p.entry->id());
  Node* placed = ed.addNode(st, std::move(nsdfg));
  for (auto& [d, id] : ins) ed.addEdge(st, *st.node(id), "", *placed, d, Memlet::full(d, outer.findData(d)->shape));
  for (auto& [d, id] : outs) ed.addEdge(st, *placed, d, *st.node(id), "", Memlet::full(d, outer.findData(d)->shape));
  return {};
}

} // namespace dcw::transforms
