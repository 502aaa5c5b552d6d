#include "transforms/catalogue/TaskletFusion.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "core/tasklet/TaskletCode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"


namespace dcw::transforms {

using namespace dcw::ir;

namespace {

void renameProgram(tasklet::Program& p, const std::map<std::string, std::string>& names) {
  for (auto& s : p.statements) {
    if (auto it = names.find(s.target); it != names.end()) s.target = it->second;
    s.value = scope::renameExpr(s.value, names);
  }
}

struct TaskletFusionPlan {
  Tasklet* first = nullptr;
  Tasklet* second = nullptr;
  AccessNode* data = nullptr;
  DataflowEdge* write = nullptr;       // first -> data
  std::vector<DataflowEdge*> reads;    // data -> second
  tasklet::Program p1, p2;
};

Expected<TaskletFusionPlan> planTaskletFusion(const Binding& b, const std::string& where) {
  TaskletFusionPlan p;
  p.first = b.get<Tasklet>("first");
  p.data = b.get<AccessNode>("data");
  p.second = b.get<Tasklet>("second");
  if (!p.first || !p.data || !p.second) return fail(where, "the match is not tasklet -> data -> tasklet");
  if (p.first == p.second) return fail(where, "first and second are the same tasklet");
  if (p.first->parent() != p.data->parent() || p.data->parent() != p.second->parent()) return fail(where, "the nodes are not in one state");
  if (p.first->language != TaskletLanguage::Dcw || p.second->language != TaskletLanguage::Dcw)
    return fail(where, "a tasklet is written in C++, which cannot be merged", "only tasklet-language code is merged");
  DCW_TRY(auto c1, tasklet::parse(p.first->code, pathOf(*p.first)));
  DCW_TRY(auto c2, tasklet::parse(p.second->code, pathOf(*p.second)));
  p.p1 = c1;
  p.p2 = c2;
  const State& st = *p.data->parent();
  const Sdfg& sdfg = *owningSdfg(&st);
  const DataDescriptor* d = sdfg.findData(p.data->data());
  if (!d || !d->transient || d->constant)
    return fail(where, "'" + p.data->data() + "' is not transient (it is visible outside the SDFG)",
                "only intermediate (transient) data can become a local");
  if (d->totalSize() != sym::Expr(1))
    return fail(where, "'" + p.data->data() + "' holds more than one element (" + d->typeString() + ")",
                "fuse tasklets connected through a scalar (e.g. after MapFusion)");
  for (State* s : sdfg.allStates())
    for (auto& n : s->nodes())
      if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an != p.data && an->data() == p.data->data())
        return fail(where, "'" + p.data->data() + "' is also accessed at " + pathOf(*an), "its value is needed elsewhere");
  auto ins = st.inEdges(p.data->id());
  if (ins.size() != 1 || ins[0]->src != p.first->id())
    return fail(where, "'" + p.data->data() + "' is written by more than the first tasklet");
  p.write = ins[0];
  if (!p.write->memlet.wcr.empty()) return fail(where, "the first tasklet writes '" + p.data->data() + "' with write-conflict resolution");
  for (auto* e : st.outEdges(p.first->id()))
    if (e != p.write && e->srcConnector == p.write->srcConnector)
      return fail(where, "the first tasklet's output '" + p.write->srcConnector + "' is also written elsewhere");
  for (auto* e : st.outEdges(p.data->id())) {
    if (e->dst != p.second->id()) return fail(where, "'" + p.data->data() + "' is also read by " + pathOf(*st.node(e->dst)));
    if (e->memlet.subset != p.write->memlet.subset || e->memlet.dynamic)
      return fail(where, "the second tasklet reads " + e->memlet.str() + ", not the element written (" + p.write->memlet.str() + ")");
    p.reads.push_back(e);
  }
  if (p.reads.empty()) return fail(where, "the second tasklet does not read '" + p.data->data() + "'");
  if (graph::reachesAvoiding(st, p.first->id(), p.second->id(), {p.data->id()}))
    return fail(where, "the second tasklet also depends on the first through another path", "fuse the nodes in between first");
  return p;
}

} // namespace

const Pattern& TaskletFusion::pattern() const {
  static const Pattern p = Pattern::dataflow({{"first", {ElementKind::Tasklet}},
                                              {"data", {ElementKind::AccessNode}},
                                              {"second", {ElementKind::Tasklet}}},
                                             {{0, 1}, {1, 2}});
  return p;
}

bool TaskletFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  return holds(planTaskletFusion(*b, match.elements.count("data") ? match.elements.at("data") : std::string(name())), whyNot);
}

Expected<void> TaskletFusion::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto pr, planTaskletFusion(b, match.elements.at("data")));
  TaskletFusionPlan& p = pr;
  State& st = *p.data->parent();
  Sdfg& sdfg = *owningSdfg(&st);

  // Every name either program uses (connectors, locals, symbols): fresh names avoid them all.
  std::set<std::string> used;
  for (auto* t : {p.first, p.second}) {
    for (auto& c : t->inConnectors()) used.insert(c.name);
    for (auto& c : t->outConnectors()) used.insert(c.name);
  }
  for (auto* prog : {&p.p1, &p.p2}) {
    for (auto& s : prog->statements) used.insert(s.target);
    for (auto& n : tasklet::readNames(*prog)) used.insert(n);
  }
  auto fresh = [&](const std::string& base) {
    std::string n = base;
    for (int k = 2; used.count(n) || !sym::isIdentifier(n) || tasklet::isFunction(n); ++k) n = base + "_" + std::to_string(k);
    used.insert(n);
    return n;
  };
  // The first's output becomes a local.
  const std::string out = p.write->srcConnector;
  const std::string local = fresh(out + "_value");
  std::map<std::string, std::string> ren1{{out, local}};
  renameProgram(p.p1, ren1);
  bool declared = false;
  for (auto& s : p.p1.statements)
    if (s.target == local && !declared) s.local = declared = true;
  // The second's reads of the data become the local; its own names that clash with the first's are renamed.
  std::set<std::string> firstNames;
  for (auto& c : p.first->inConnectors()) firstNames.insert(c.name);
  for (auto& c : p.first->outConnectors()) firstNames.insert(c.name);
  for (auto& s : p.p1.statements) firstNames.insert(s.target);
  for (auto& n : tasklet::readNames(p.p1)) firstNames.insert(n);
  firstNames.insert(local);
  std::set<std::string> fromData;
  for (auto* e : p.reads) fromData.insert(e->dstConnector);
  std::map<std::string, std::string> ren2;
  for (auto& c : fromData) ren2[c] = local;
  auto second2 = [&](const std::string& n) {
    if (ren2.count(n)) return;
    if (firstNames.count(n)) ren2[n] = fresh(n);
  };
  for (auto& c : p.second->inConnectors()) second2(c.name);
  for (auto& c : p.second->outConnectors()) second2(c.name);
  for (auto& s : p.p2.statements) second2(s.target);
  renameProgram(p.p2, ren2);
  auto name2 = [&](const std::string& n) { return ren2.count(n) ? ren2.at(n) : n; };

  tasklet::Program merged = p.p1;
  for (auto& s : p.p2.statements) merged.statements.push_back(s);

  auto t = std::make_unique<Tasklet>(p.first->label() + "_" + p.second->label(), merged.str(), TaskletLanguage::Dcw);
  for (auto& c : p.first->inConnectors()) t->addIn(c);
  for (auto& c : p.second->inConnectors())
    if (!fromData.count(c.name)) t->addIn({name2(c.name), c.dtype, c.optional});
  for (auto& c : p.first->outConnectors())
    if (c.name != out) t->addOut(c);
  for (auto& c : p.second->outConnectors()) t->addOut({name2(c.name), c.dtype, c.optional});
  Node* fused = ed.addNode(st, std::move(t));

  for (auto* e : st.inEdges(p.first->id())) ed.addEdge(st, *st.node(e->src), e->srcConnector, *fused, e->dstConnector, e->memlet);
  for (auto* e : st.inEdges(p.second->id())) {
    if (e->src == p.data->id()) continue;
    bool dup = false; // one ordering edge from a node is enough
    if (e->memlet.isEmpty() && e->dstConnector.empty())
      for (auto* f : st.inEdges(fused->id()))
        if (f->src == e->src && f->memlet.isEmpty() && f->dstConnector.empty()) dup = true;
    if (!dup)
      ed.addEdge(st, *st.node(e->src), e->srcConnector, *fused, e->dstConnector.empty() ? "" : name2(e->dstConnector), e->memlet);
  }
  for (auto* e : st.outEdges(p.first->id()))
    if (e != p.write) ed.addEdge(st, *fused, e->srcConnector, *st.node(e->dst), e->dstConnector, e->memlet);
  for (auto* e : st.outEdges(p.second->id()))
    ed.addEdge(st, *fused, e->srcConnector.empty() ? "" : name2(e->srcConnector), *st.node(e->dst), e->dstConnector, e->memlet);

  std::string data = p.data->data();
  ed.removeNode(st, p.first->id());
  ed.removeNode(st, p.second->id());
  ed.removeNode(st, p.data->id());
  ed.removeData(sdfg, data);
  return {};
}

} // namespace dcw::transforms
