// ReversePass: see ReversePass.h. Structure of this file:
//   forward analysis   chain of blocks, units (tasklet / nested SDFG / copy / region), activity,
//                      overwrite check;
//   emission           gradient arrays, the init state, one backward state per forward state, and in
//                      it the adjoint of every active unit (Emitter);
//   nested SDFGs       reverse() recursively on a copy, wrapped in a new NestedSdfgNode.
#include "transforms/autodiff/ReversePass.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "core/serialize/JsonFormat.h"
#include "core/tasklet/Derivative.h"
#include "core/tasklet/TaskletCode.h"

#include <algorithm>
#include <deque>
#include <functional>

namespace dcw::autodiff::detail {

using namespace dcw::ir;

Expected<std::unique_ptr<Sdfg>> cloneSdfg(const Sdfg& sdfg) {
  return serialize::fromJson(serialize::toJson(sdfg), "autodiff copy of " + sdfg.name());
}

namespace {

struct Acc {
  std::string conn;  // connector ("" for copies)
  std::string data;
  Subset subset;
  std::string wcr;
};

struct Unit {
  enum class Kind { Tasklet, Nested, Copy, Region } kind = Kind::Tasklet;
  State* state = nullptr;
  Node* node = nullptr;                  // tasklet, nested SDFG node, or the copy's destination
  const DataflowEdge* edge = nullptr;    // copy
  ControlFlowBlock* region = nullptr;    // region
  std::vector<const MapEntry*> scopes;   // outermost first
  std::vector<Acc> ins, outs;
  size_t order = 0;
};

std::string nodePath(const std::string& prefix, const Node& n) {
  std::string p = pathOf(n);
  return prefix.empty() ? p : prefix + " (in the copy " + p + ")";
}

// Data read and written anywhere inside a block (through regions and nested SDFG nodes' edges).
void regionAccesses(const ControlFlowBlock& b, std::set<std::string>& reads, std::set<std::string>& writes) {
  if (auto* st = dynamic_cast<const State*>(&b)) {
    for (auto& e : st->edges()) {
      if (e->memlet.isEmpty()) continue;
      const Node* s = st->node(e->src);
      const Node* d = st->node(e->dst);
      if (s && s->kind() == ElementKind::AccessNode) reads.insert(static_cast<const AccessNode*>(s)->data());
      if (d && d->kind() == ElementKind::AccessNode) writes.insert(static_cast<const AccessNode*>(d)->data());
    }
  } else if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
    for (auto& c : r->blocks()) regionAccesses(*c, reads, writes);
  } else if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
    for (auto& br : c->branches()) regionAccesses(*br, reads, writes);
  }
}

bool reachable(const State& st, ElementId from, ElementId to) {
  std::set<ElementId> seen{from};
  std::deque<ElementId> q{from};
  while (!q.empty()) {
    ElementId n = q.front();
    q.pop_front();
    if (n == to) return true;
    for (auto* e : st.outEdges(n))
      if (seen.insert(e->dst).second) q.push_back(e->dst);
  }
  return false;
}

tasklet::ExprPtr mk(tasklet::ExprKind k, std::string text, std::vector<tasklet::ExprPtr> args, bool isInt = false) {
  auto e = std::make_shared<tasklet::Expr>();
  e->kind = k;
  e->text = std::move(text);
  e->args = std::move(args);
  e->isInteger = isInt;
  return e;
}

class Pass {
public:
  Pass(edit::Editor& ed, Sdfg& sdfg, const ReverseOptions& opt) : ed_(ed), sdfg_(sdfg), opt_(opt) {}

  Expected<ReverseResult> run() {
    if (auto r = collectChain(); !r) return r.takeError();
    if (auto r = collectUnits(); !r) return r.takeError();
    activity();
    if (auto r = checkRegions(); !r) return r.takeError();
    if (auto r = checkOverwrites(); !r) return r.takeError();
    makeGradients();
    ControlFlowBlock* prev = chain_.empty() ? nullptr : chain_.back();
    if (auto r = emitInit(prev); !r) return r.takeError();
    for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
      auto* st = dynamic_cast<State*>(*it);
      if (!st) continue;
      std::vector<Unit*> units;
      std::vector<std::pair<const Unit*, const Acc*>> clears;
      for (auto& u : units_) {
        if (u.state != st) continue;
        if (relevant(u)) units.push_back(&u);
        if (auto c = clears_.find(&u); c != clears_.end())
          for (const Acc* a : c->second) clears.push_back({&u, a});
      }
      if (!units.empty()) {
        State* b = ed_.addState(sdfg_, sdfg_.uniqueBlockLabel("bwd_" + st->label()));
        link(b);
        Emitter em{b};
        for (auto u = units.rbegin(); u != units.rend(); ++u)
          if (auto r = emitUnit(em, **u); !r) return r.takeError();
      }
      if (!clears.empty()) {
        State* c = ed_.addState(sdfg_, sdfg_.uniqueBlockLabel("bwd_" + st->label() + "_clear"));
        link(c);
        Emitter em{c};
        for (auto& [u, a] : clears) emitClear(em, *u, *a);
      }
    }
    return result_;
  }

private:
  struct Emitter {
    State* st;
    std::map<std::string, AccessNode*> fwd;       // forward data (or its recomputed copy) -> read node
    std::map<std::string, AccessNode*> grad;      // gradient data -> current node
  };

  // ---- forward analysis ----------------------------------------------------------------------

  Expected<void> collectChain() {
    if (sdfg_.blocks().empty()) return {};
    ControlFlowBlock* cur = sdfg_.block(sdfg_.startBlock());
    std::set<ElementId> seen;
    while (cur) {
      if (!seen.insert(cur->id()).second)
        return fail(opt_.where + pathOf(*cur), "the control flow has a cycle through '" + cur->label() + "'",
                    "loops are not differentiable yet; unroll them first");
      chain_.push_back(cur);
      auto outs = sdfg_.outEdges(cur->id());
      if (outs.empty()) break;
      if (outs.size() > 1 || !outs.front()->isUnconditional())
        return fail(opt_.where + pathOf(*cur), "the control flow branches after '" + cur->label() + "'",
                    "conditional control flow is not differentiable yet");
      cur = sdfg_.block(outs.front()->dst);
    }
    return {};
  }

  Expected<void> collectUnits() {
    size_t order = 0;
    for (ControlFlowBlock* b : chain_) {
      auto* st = dynamic_cast<State*>(b);
      if (!st) {
        Unit u;
        u.kind = Unit::Kind::Region;
        u.region = b;
        std::set<std::string> r, w;
        regionAccesses(*b, r, w);
        for (auto& d : r) u.ins.push_back({"", d, {}, ""});
        for (auto& d : w) u.outs.push_back({"", d, {}, ""});
        u.order = order++;
        units_.push_back(std::move(u));
        continue;
      }
      auto topo = st->topologicalOrder();
      if (!topo) return topo.takeError();
      auto scopes = st->scopeOf();
      if (!scopes) return scopes.takeError();
      for (Node* n : *topo) {
        std::string where = nodePath(opt_.where, *n);
        if (n->kind() == ElementKind::LibraryNode)
          return fail(where, "library node '" + n->label() + "' is not expanded", "expand it (pure) before differentiating");
        if (n->kind() == ElementKind::Tasklet || n->kind() == ElementKind::NestedSdfg) {
          Unit u;
          u.kind = n->kind() == ElementKind::Tasklet ? Unit::Kind::Tasklet : Unit::Kind::Nested;
          u.state = st;
          u.node = n;
          if (u.kind == Unit::Kind::Tasklet) {
            auto it = scopes->find(n->id());
            const MapEntry* s = it == scopes->end() ? nullptr : it->second;
            while (s) {
              u.scopes.insert(u.scopes.begin(), s);
              auto jt = scopes->find(s->id());
              s = jt == scopes->end() ? nullptr : jt->second;
            }
          }
          for (auto* e : st->inEdges(n->id())) {
            if (e->memlet.isEmpty()) continue;
            Node* src = st->node(e->src);
            if (src && (src->kind() == ElementKind::Tasklet || src->kind() == ElementKind::NestedSdfg))
              return fail(where, "'" + n->label() + "' reads the output of '" + src->label() + "' directly (no data container between)",
                          "differentiation needs every value in a data container");
            u.ins.push_back({e->dstConnector, e->memlet.data, e->memlet.subset, e->memlet.wcr});
          }
          for (auto* e : st->outEdges(n->id())) {
            if (e->memlet.isEmpty()) continue;
            Node* dst = st->node(e->dst);
            if (dst && (dst->kind() == ElementKind::Tasklet || dst->kind() == ElementKind::NestedSdfg))
              return fail(where, "'" + n->label() + "' writes into '" + dst->label() + "' directly (no data container between)",
                          "differentiation needs every value in a data container");
            u.outs.push_back({e->srcConnector, e->memlet.data, e->memlet.subset, e->memlet.wcr});
          }
          u.order = order++;
          units_.push_back(std::move(u));
        } else if (n->kind() == ElementKind::AccessNode) {
          auto* dstNode = static_cast<AccessNode*>(n);
          for (auto* e : st->inEdges(n->id())) {
            Node* src = st->node(e->src);
            if (e->memlet.isEmpty() || !src || src->kind() != ElementKind::AccessNode) continue;
            auto* srcNode = static_cast<AccessNode*>(src);
            const DataDescriptor* S = sdfg_.findData(srcNode->data());
            const DataDescriptor* D = sdfg_.findData(dstNode->data());
            if (!S || !D) return fail(where, "copy between unknown data");
            auto fullOf = [](const DataDescriptor& d) { return Subset::fullOf(d.shape); };
            Subset ss, ds;
            const Memlet& m = e->memlet;
            if (m.data == srcNode->data()) {
              ss = m.subset;
              ds = m.otherSubset ? *m.otherSubset : fullOf(*D);
            } else {
              ds = m.subset;
              ss = m.otherSubset ? *m.otherSubset : fullOf(*S);
            }
            if (ss.empty() && !S->shape.empty()) ss = fullOf(*S);
            if (ds.empty() && !D->shape.empty()) ds = fullOf(*D);
            Unit u;
            u.kind = Unit::Kind::Copy;
            u.state = st;
            u.node = n;
            u.edge = e;
            u.ins.push_back({"", srcNode->data(), ss, ""});
            u.outs.push_back({"", dstNode->data(), ds, m.wcr});
            u.order = order++;
            units_.push_back(std::move(u));
          }
        }
      }
    }
    return {};
  }

  bool isFloatData(const std::string& d) const {
    const DataDescriptor* desc = sdfg_.findData(d);
    return desc && isFloating(desc->dtype) && desc->wrappers.empty();
  }

  void activity() {
    std::set<std::string> fwd, bwd;
    for (auto& d : opt_.gradOut) fwd.insert(d);
    for (auto& d : opt_.gradIn) bwd.insert(d);
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& u : units_) {
        bool in = std::any_of(u.ins.begin(), u.ins.end(), [&](const Acc& a) { return fwd.count(a.data) && isFloatData(a.data); });
        if (in)
          for (auto& o : u.outs)
            if (isFloatData(o.data) && fwd.insert(o.data).second) changed = true;
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = units_.rbegin(); it != units_.rend(); ++it) {
        bool out = std::any_of(it->outs.begin(), it->outs.end(), [&](const Acc& a) { return bwd.count(a.data); });
        if (out)
          for (auto& i : it->ins)
            if (isFloatData(i.data) && bwd.insert(i.data).second) changed = true;
      }
    }
    for (auto& d : fwd)
      if (bwd.count(d)) active_.insert(d);
    for (auto& d : opt_.gradIn) active_.insert(d);
    for (auto& d : opt_.gradOut) active_.insert(d);
  }

  bool activeIn(const Acc& a) const { return active_.count(a.data) && isFloatData(a.data); }
  bool activeOut(const Acc& a) const { return active_.count(a.data) && isFloatData(a.data); }
  bool relevant(const Unit& u) const {
    return std::any_of(u.ins.begin(), u.ins.end(), [&](const Acc& a) { return activeIn(a); }) &&
           std::any_of(u.outs.begin(), u.outs.end(), [&](const Acc& a) { return activeOut(a); });
  }

  std::string unitName(const Unit& u) const {
    if (u.kind == Unit::Kind::Region) return opt_.where + pathOf(*u.region);
    return nodePath(opt_.where, *u.node);
  }

  Expected<void> checkRegions() {
    for (auto& u : units_)
      if (u.kind == Unit::Kind::Region && relevant(u))
        return fail(unitName(u),
                    std::string(u.region->kind() == ElementKind::LoopRegion ? "loop" : "control-flow region") + " '" +
                        u.region->label() + "' computes values the differentiated outputs depend on",
                    "loops and conditionals are not differentiable yet (future work: store per-iteration values)");
    return {};
  }

  // A non-WCR write of data that an earlier active unit wrote (in an earlier state, or ordered before
  // it in the same state) would hide that write's contribution: refused.
  Expected<void> checkOverwrites() {
    std::map<std::string, std::vector<const Unit*>> writers;
    for (auto& u : units_)
      for (auto& o : u.outs) {
        if (!active_.count(o.data)) continue;
        auto& list = writers[o.data];
        if (o.wcr.empty()) {
          for (const Unit* w : list) {
            if (!relevant(*w)) continue;
            if (w->kind != Unit::Kind::Region && u.kind != Unit::Kind::Region && w->state != u.state) {
              // Earlier state: the backward pass zeroes the gradient of what this unit overwrote.
              auto& list2 = clears_[&u];
              if (std::find(list2.begin(), list2.end(), &o) == list2.end()) list2.push_back(&o);
              continue;
            }
            bool ordered = w->kind == Unit::Kind::Region || u.kind == Unit::Kind::Region ||
                           reachable(*u.state, w->node->id(), u.node->id());
            if (ordered)
              return fail(unitName(u), "'" + o.data + "' is overwritten here after '" +
                                           (w->node ? w->node->label() : w->region->label()) +
                                           "' wrote a value that the differentiated outputs depend on",
                          "differentiation needs each value written once (or accumulated with WCR); write to a new container");
          }
        }
        if (list.empty() || list.back() != &u) list.push_back(&u);
      }
    writers_ = std::move(writers);
    return {};
  }

  // ---- emission ------------------------------------------------------------------------------

  std::string uniqueData(const std::string& base) const {
    std::string n = base;
    for (int k = 1; sdfg_.findData(n); ++k) n = base + "_" + std::to_string(k);
    return n;
  }

  void makeGradients() {
    for (auto& d : active_) {
      const DataDescriptor* f = sdfg_.findData(d);
      if (!f || !isFloating(f->dtype)) continue;
      auto g = std::make_unique<DataDescriptor>(uniqueData(d + "_grad"));
      g->dataKind = f->shape.empty() ? DataKind::Scalar : DataKind::Array;
      g->dtype = f->dtype;
      g->shape = f->shape;
      g->strides = DataDescriptor::contiguousStrides(f->shape);
      bool external = opt_.root ? opt_.gradOut.count(d) > 0 : (opt_.gradOut.count(d) || opt_.gradIn.count(d));
      g->transient = !external;
      std::string name = g->name();
      ed_.addData(sdfg_, std::move(g));
      result_.gradName[d] = name;
    }
  }

  void link(ControlFlowBlock* b) {
    if (last_) ed_.addInterstateEdge(sdfg_, last_->id(), b->id());
    else if (!chain_.empty()) ed_.addInterstateEdge(sdfg_, chain_.back()->id(), b->id());
    else ed_.setStartBlock(sdfg_, b->id());
    last_ = b;
  }

  AccessNode* addAccess(State& st, const std::string& data) {
    return static_cast<AccessNode*>(ed_.addNode(st, std::make_unique<AccessNode>(data)));
  }

  // A map nest (or none) over `shape` writing `value` into every element of `data`.
  void fill(State& st, const std::string& data, const std::string& value) {
    const DataDescriptor* d = sdfg_.findData(data);
    auto t = std::make_unique<Tasklet>("init_" + data, "o = " + value);
    t->addOut({"o", d->dtype});
    AccessNode* w = addAccess(st, data);
    if (d->shape.empty()) {
      Node* tn = ed_.addNode(st, std::move(t));
      ed_.addEdge(st, *tn, "o", *w, "", Memlet::full(data, {}));
      return;
    }
    auto me = std::make_unique<MapEntry>("init_" + data + "_map");
    auto mx = std::make_unique<MapExit>("init_" + data + "_map_exit");
    std::vector<Range> idx;
    for (size_t k = 0; k < d->shape.size(); ++k) {
      me->params.push_back("i" + std::to_string(k));
      idx.push_back(Range::index(sym::Expr::symbol("i" + std::to_string(k))));
    }
    me->range = Subset::fullOf(d->shape);
    me->schedule = Schedule::CpuMulticore;
    mx->addIn({"IN_" + data});
    mx->addOut({"OUT_" + data});
    auto* e = static_cast<MapEntry*>(ed_.addNode(st, std::move(me)));
    auto* x = static_cast<MapExit*>(ed_.addNode(st, std::move(mx)));
    e->exitId = x->id();
    x->entryId = e->id();
    Node* tn = ed_.addNode(st, std::move(t));
    ed_.addEdge(st, *e, "", *tn, "", Memlet{});
    ed_.addEdge(st, *tn, "o", *x, "IN_" + data, Memlet::simple(data, Subset(idx)));
    ed_.addEdge(st, *x, "OUT_" + data, *w, "", Memlet::full(data, d->shape));
  }

  Expected<void> emitInit(ControlFlowBlock*) {
    std::vector<std::pair<std::string, std::string>> fills; // grad -> value
    std::vector<std::pair<std::string, std::string>> copies; // seed -> grad
    for (auto& [d, g] : result_.gradName) {
      if (opt_.root) {
        if (opt_.gradIn.count(d)) {
          auto s = opt_.seeds.find(d);
          if (s != opt_.seeds.end()) copies.push_back({s->second, g});
          else fills.push_back({g, "1.0"});
        } else {
          fills.push_back({g, "0.0"});
        }
      } else if (!opt_.gradIn.count(d) && !opt_.gradOut.count(d)) {
        fills.push_back({g, "0.0"});
      }
    }
    if (fills.empty() && copies.empty()) return {};
    State* st = ed_.addState(sdfg_, sdfg_.uniqueBlockLabel("grad_init"));
    link(st);
    for (auto& [g, v] : fills) fill(*st, g, v);
    for (auto& [s, g] : copies) {
      const DataDescriptor* sd = sdfg_.findData(s);
      const DataDescriptor* gd = sdfg_.findData(g);
      AccessNode* a = addAccess(*st, s);
      AccessNode* b = addAccess(*st, g);
      Memlet m = Memlet::full(s, sd->shape);
      m.otherSubset = Subset::fullOf(gd->shape);
      ed_.addEdge(*st, *a, "", *b, "", m);
    }
    return {};
  }

  // The node to read forward data `d` from in this backward state (its recomputed copy when asked).
  Expected<AccessNode*> fwdRead(Emitter& em, const std::string& d) {
    if (auto it = em.fwd.find(d); it != em.fwd.end()) return it->second;
    if (opt_.recompute.count(d)) {
      auto r = recompute(em, d);
      if (!r) return r.takeError();
      return *r;
    }
    result_.forwardReads.insert(d);
    AccessNode* n = addAccess(*em.st, d);
    em.fwd[d] = n;
    return n;
  }

  AccessNode* gradNode(Emitter& em, const std::string& d) {
    const std::string& g = result_.gradName.at(d);
    if (auto it = em.grad.find(g); it != em.grad.end()) return it->second;
    AccessNode* n = addAccess(*em.st, g);
    em.grad[g] = n;
    return n;
  }

  // Re-runs the forward nested SDFG that writes `d`, into fresh transients, in this backward state.
  Expected<AccessNode*> recompute(Emitter& em, const std::string& d) {
    auto wit = writers_.find(d);
    const Unit* p = nullptr;
    if (wit != writers_.end() && wit->second.size() == 1) p = wit->second.front();
    if (!p) {
      for (auto& u : units_)
        for (auto& o : u.outs)
          if (o.data == d && !p) p = &u;
    }
    if (!p || p->kind != Unit::Kind::Nested)
      return fail(opt_.where + "@" + d, "cannot recompute '" + d + "': it is not written by exactly one operator",
                  "store it instead");
    auto& fwdNode = static_cast<NestedSdfgNode&>(*p->node);
    auto copy = cloneSdfg(fwdNode.sdfg());
    if (!copy) return copy.takeError();
    auto n = std::make_unique<NestedSdfgNode>("recompute_" + fwdNode.label(), std::move(*copy));
    for (auto& c : fwdNode.inConnectors()) n->addIn(c);
    for (auto& c : fwdNode.outConnectors()) n->addOut(c);
    n->symbolMapping = fwdNode.symbolMapping;
    Node* rn = ed_.addNode(*em.st, std::move(n));
    for (auto* e : p->state->inEdges(fwdNode.id())) {
      if (e->memlet.isEmpty()) continue;
      auto src = fwdRead(em, e->memlet.data);
      if (!src) return src.takeError();
      Memlet m = e->memlet;
      m.data = (*src)->data();
      ed_.addEdge(*em.st, **src, "", *rn, e->dstConnector, m);
    }
    AccessNode* result = nullptr;
    for (auto* e : p->state->outEdges(fwdNode.id())) {
      if (e->memlet.isEmpty()) continue;
      const std::string& o = e->memlet.data;
      const DataDescriptor* od = sdfg_.findData(o);
      std::string name = uniqueData(o + "_recomputed");
      ed_.addTransient(sdfg_, name, od->dtype, od->shape);
      AccessNode* w = addAccess(*em.st, name);
      Memlet m = e->memlet;
      m.data = name;
      m.wcr.clear();
      ed_.addEdge(*em.st, *rn, e->srcConnector, *w, "", m);
      if (opt_.recompute.count(o) && !em.fwd.count(o)) {
        em.fwd[o] = w;
        result_.recomputed.insert(o);
      }
      if (o == d) result = w;
    }
    if (!result) return fail(opt_.where + "@" + d, "cannot recompute '" + d + "'");
    return result;
  }

  Expected<void> emitUnit(Emitter& em, const Unit& u) {
    switch (u.kind) {
    case Unit::Kind::Tasklet: return emitTasklet(em, u);
    case Unit::Kind::Nested: return emitNested(em, u);
    case Unit::Kind::Copy: return emitCopy(em, u);
    case Unit::Kind::Region: return fail(unitName(u), "control-flow regions are not differentiable yet");
    }
    return {};
  }

  Expected<void> emitCopy(Emitter& em, const Unit& u) {
    const Acc& in = u.ins.front();
    const Acc& out = u.outs.front();
    if (!activeIn(in) || !activeOut(out)) return {};
    if (!out.wcr.empty() && out.wcr != "sum")
      return fail(unitName(u), "copy with write-conflict resolution '" + out.wcr + "' is not differentiable");
    if (in.data == out.data) return fail(unitName(u), "copy of '" + in.data + "' onto itself is not differentiable");
    AccessNode* gy = gradNode(em, out.data);
    AccessNode* gx = gradNode(em, in.data);
    const std::string& gyName = result_.gradName.at(out.data);
    Memlet m = Memlet::simple(gyName, out.subset);
    m.otherSubset = in.subset;
    m.wcr = "sum";
    ed_.addEdge(*em.st, *gy, "", *gx, "", m);
    ++result_.units;
    return {};
  }

  // ---- map nests -----------------------------------------------------------------------------

  struct ScopeSpec {
    std::string label;
    std::vector<std::string> params;
    Subset range;
    Schedule schedule = Schedule::Default;
  };
  struct Nest {
    std::vector<MapEntry*> entries;
    std::vector<MapExit*> exits;
    std::set<std::pair<Node*, std::string>> routed; // (map node, data) already connected
  };
  struct Port {
    std::string conn;
    AccessNode* node;   // read from / write to
    Subset subset;      // the element, in the map parameters
    DType dtype;
    std::string wcr;
  };

  static std::vector<ScopeSpec> specsOf(const std::vector<const MapEntry*>& scopes) {
    std::vector<ScopeSpec> out;
    for (const MapEntry* s : scopes) out.push_back({"bwd_" + s->label(), s->params, s->range, s->schedule});
    return out;
  }

  // One tasklet inside a fresh map nest, reading and writing through the nest's connectors.
  void emitMapped(State& st, const std::vector<ScopeSpec>& specs, std::unique_ptr<Tasklet> t, const std::vector<Port>& reads,
                  const std::vector<Port>& writes) {
    for (auto& r : reads) t->addIn({r.conn, r.dtype});
    for (auto& w : writes) t->addOut({w.conn, w.dtype});
    Node* tn = ed_.addNode(st, std::move(t));
    Nest nest;
    for (auto& s : specs) {
      auto me = std::make_unique<MapEntry>(s.label);
      me->params = s.params;
      me->range = s.range;
      me->schedule = s.schedule;
      auto mx = std::make_unique<MapExit>(s.label + "_exit");
      auto* e = static_cast<MapEntry*>(ed_.addNode(st, std::move(me)));
      auto* x = static_cast<MapExit*>(ed_.addNode(st, std::move(mx)));
      e->exitId = x->id();
      x->entryId = e->id();
      nest.entries.push_back(e);
      nest.exits.push_back(x);
    }
    auto shapeOf = [&](const std::string& d) { return sdfg_.findData(d)->shape; };
    for (auto& r : reads) {
      const std::string& data = r.node->data();
      Node* from = r.node;
      std::string fromConn;
      for (MapEntry* e : nest.entries) {
        if (nest.routed.insert({e, data}).second) {
          e->addIn({"IN_" + data});
          e->addOut({"OUT_" + data});
          ed_.addEdge(st, *from, fromConn, *e, "IN_" + data, Memlet::full(data, shapeOf(data)));
        }
        from = e;
        fromConn = "OUT_" + data;
      }
      ed_.addEdge(st, *from, fromConn, *tn, r.conn, Memlet::simple(data, r.subset));
    }
    if (reads.empty() && !nest.entries.empty()) ed_.addEdge(st, *nest.entries.back(), "", *tn, "", Memlet{});
    for (auto& w : writes) {
      const std::string& data = w.node->data();
      Memlet inner = Memlet::simple(data, w.subset);
      inner.wcr = w.wcr;
      if (nest.exits.empty()) {
        ed_.addEdge(st, *tn, w.conn, *w.node, "", inner);
        continue;
      }
      Node* to = nest.exits.back();
      bool first = nest.routed.insert({to, data}).second;
      if (first) {
        to->addIn({"IN_" + data});
        to->addOut({"OUT_" + data});
      }
      ed_.addEdge(st, *tn, w.conn, *to, "IN_" + data, inner);
      if (!first) continue;
      for (size_t k = nest.exits.size() - 1; k-- > 0;) {
        MapExit* outer = nest.exits[k];
        nest.routed.insert({outer, data});
        outer->addIn({"IN_" + data});
        outer->addOut({"OUT_" + data});
        Memlet m = Memlet::full(data, shapeOf(data));
        m.wcr = w.wcr;
        ed_.addEdge(st, *to, "OUT_" + data, *outer, "IN_" + data, m);
        to = outer;
      }
      Memlet m = Memlet::full(data, shapeOf(data));
      m.wcr = w.wcr;
      ed_.addEdge(st, *to, "OUT_" + data, *w.node, "", m);
    }
  }

  // Element `lin` (row-major) of a subset: begin + ((lin / stride) mod size) * step per dimension.
  static Subset elementOf(const Subset& s, const sym::Expr& lin) {
    std::vector<Range> out;
    auto sizes = s.sizes();
    sym::Expr stride(1);
    std::vector<sym::Expr> strides(sizes.size());
    for (size_t k = sizes.size(); k-- > 0;) {
      strides[k] = stride;
      stride = stride * sizes[k];
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      sym::Expr q = strides[k] == sym::Expr(1) ? lin : sym::floorDiv(lin, strides[k]);
      if (k > 0) q = sym::mod(q, sizes[k]);
      out.push_back(Range::index(s[k].begin + q * s[k].step));
    }
    return Subset(out);
  }

  // Writes 0 into the gradient of what unit `u` overwrote (`a`): the earlier values are dead.
  void emitClear(Emitter& em, const Unit& u, const Acc& a) {
    std::vector<ScopeSpec> specs;
    if (u.kind == Unit::Kind::Tasklet) specs = specsOf(u.scopes);
    Subset elem = a.subset;
    bool whole = false;
    for (auto& r : a.subset.ranges()) whole = whole || !r.isIndex();
    if (whole) {
      ScopeSpec s{"clear_" + a.data, {}, {}, Schedule::CpuMulticore};
      std::vector<Range> ranges, idx;
      for (size_t k = 0; k < a.subset.rank(); ++k) {
        std::string p = "z" + std::to_string(k);
        s.params.push_back(p);
        ranges.push_back(Range::full(a.subset[k].size()));
        idx.push_back(Range::index(a.subset[k].begin + sym::Expr::symbol(p) * a.subset[k].step));
      }
      s.range = Subset(ranges);
      specs.push_back(s);
      elem = Subset(idx);
    }
    const std::string& g = result_.gradName.at(a.data);
    emitMapped(*em.st, specs, std::make_unique<Tasklet>("clear_" + a.data, "o = 0.0"), {},
               {{"o", gradNode(em, a.data), elem, sdfg_.findData(g)->dtype, ""}});
  }

  // ---- tasklets ------------------------------------------------------------------------------

  using EP = tasklet::ExprPtr;

  static EP substitute(const EP& e, const std::map<std::string, EP>& defs) {
    if (!e) return e;
    if (e->kind == tasklet::ExprKind::Name) {
      auto it = defs.find(e->text);
      return it == defs.end() ? e : it->second;
    }
    std::vector<EP> args;
    bool changed = false;
    for (auto& a : e->args) {
      args.push_back(substitute(a, defs));
      changed = changed || args.back() != a;
    }
    if (!changed) return e;
    auto c = std::make_shared<tasklet::Expr>(*e);
    c->args = std::move(args);
    return c;
  }

  Expected<void> emitTasklet(Emitter& em, const Unit& u) {
    auto& t = static_cast<const Tasklet&>(*u.node);
    std::string where = unitName(u);
    if (t.language != TaskletLanguage::Dcw)
      return fail(where, "tasklet '" + t.label() + "' is written in C++ and cannot be differentiated symbolically");
    auto prog = tasklet::parse(t.code, where);
    if (!prog) return prog.takeError();
    tasklet::Program fwd = *prog;

    std::set<std::string> taken;
    for (auto& c : t.inConnectors()) taken.insert(c.name);
    for (auto& c : t.outConnectors()) taken.insert(c.name);
    for (auto& n : tasklet::readNames(fwd)) taken.insert(n);
    for (auto& s : fwd.statements) taken.insert(s.target);
    for (const MapEntry* s : u.scopes) taken.insert(s->params.begin(), s->params.end());
    auto fresh = [&](const std::string& base) {
      std::string n = base;
      for (int k = 1; taken.count(n) || tasklet::isFunction(n); ++k) n = base + "_" + std::to_string(k);
      taken.insert(n);
      return n;
    };

    std::map<std::string, const Acc*> inAcc, finalAcc, gradOfOut;
    std::map<std::string, std::string> outGrad; // output connector -> its gradient connector
    for (auto& a : u.ins) inAcc[a.conn] = &a;
    for (auto& a : u.outs) {
      if (!activeOut(a)) continue;
      std::string g = fresh("grad_" + a.conn);
      outGrad[a.conn] = g;
      gradOfOut[g] = &a;
      if (a.wcr.empty() || a.wcr == "sum") continue;
      if (a.wcr != "max" && a.wcr != "min")
        return fail(where, "output '" + a.conn + "' is written with write-conflict resolution '" + a.wcr +
                               "', which is not differentiable");
      // Only the element that reached the final value gets the gradient: y = (e == final) ? e : 0.
      std::string fin = fresh("final_" + a.conn);
      finalAcc[fin] = &a;
      bool found = false;
      for (auto& s : fwd.statements)
        if (!s.local && s.target == a.conn) {
          found = true;
          auto cond = mk(tasklet::ExprKind::Binary, "==", {s.value, mk(tasklet::ExprKind::Name, fin, {})});
          s.value = mk(tasklet::ExprKind::Ternary, "?", {cond, s.value, mk(tasklet::ExprKind::Number, "0", {}, true)});
        }
      if (!found) return fail(where, "tasklet '" + t.label() + "' does not assign its output '" + a.conn + "'");
    }
    if (outGrad.empty()) return {};

    // Array connectors indexed in the code (`x[i]`, e.g. Gather): each indexed read becomes a scalar
    // `at_x` (locals inlined first so that the index is self-contained); its gradient is scattered
    // back by a second tasklet in a map over the elements of the array (x_grad[l] += i == l ? g : 0).
    std::map<std::string, std::vector<std::pair<std::string, EP>>> indexed;
    std::function<EP(const EP&)> rewrite = [&](const EP& e) -> EP {
      if (!e) return e;
      if (e->kind == tasklet::ExprKind::Index) {
        auto it = inAcc.find(e->text);
        if (it != inAcc.end() && activeIn(*it->second)) {
          EP idx = rewrite(e->args.empty() ? nullptr : e->args[0]);
          std::string at = fresh("at_" + e->text);
          indexed[e->text].push_back({at, idx});
          return mk(tasklet::ExprKind::Name, at, {});
        }
      }
      std::vector<EP> args;
      bool changed = false;
      for (auto& a : e->args) {
        args.push_back(rewrite(a));
        changed = changed || args.back() != a;
      }
      if (!changed) return e;
      auto c = std::make_shared<tasklet::Expr>(*e);
      c->args = std::move(args);
      return c;
    };
    bool hasIndex = false;
    std::function<void(const EP&)> scan = [&](const EP& e) {
      if (!e) return;
      if (e->kind == tasklet::ExprKind::Index && inAcc.count(e->text) && activeIn(*inAcc.at(e->text))) hasIndex = true;
      for (auto& a : e->args) scan(a);
    };
    for (auto& s : fwd.statements) scan(s.value);
    if (hasIndex) {
      tasklet::Program flat;
      std::map<std::string, EP> defs;
      for (auto& s : fwd.statements) {
        EP v = substitute(s.value, defs);
        if (s.local) defs[s.target] = v;
        else flat.statements.push_back({s.target, false, rewrite(v)});
      }
      fwd = flat;
      if (indexed.size() > 1)
        return fail(where, "tasklet '" + t.label() + "' indexes more than one array whose gradient is needed",
                     "split the tasklet so that each indexes one array");
    }
    // `let at_x = x[i]` for the indexed reads, in front of a backward program.
    auto withLets = [&](tasklet::Program p) {
      std::vector<tasklet::Statement> lets;
      for (auto& [conn, list] : indexed)
        for (auto& [at, idx] : list)
          lets.push_back({at, true, mk(tasklet::ExprKind::Index, conn, {idx})});
      p.statements.insert(p.statements.begin(), lets.begin(), lets.end());
      return p;
    };

    std::vector<ScopeSpec> specs = specsOf(u.scopes);
    auto readsOf = [&](const tasklet::Program& bp) -> Expected<std::vector<Port>> {
      std::vector<Port> reads;
      for (auto& r : tasklet::readNames(bp)) {
        const Acc* a = nullptr;
        AccessNode* n = nullptr;
        if (auto it = gradOfOut.find(r); it != gradOfOut.end()) {
          a = it->second;
          n = gradNode(em, a->data);
        } else {
          if (auto ft = finalAcc.find(r); ft != finalAcc.end()) a = ft->second;
          else if (auto at = inAcc.find(r); at != inAcc.end()) a = at->second;
          if (!a) continue; // a symbol or map parameter
          auto fn = fwdRead(em, a->data);
          if (!fn) return fn.takeError();
          n = *fn;
        }
        reads.push_back({r, n, a->subset, sdfg_.findData(a->data)->dtype, ""});
      }
      return reads;
    };

    // Scalar inputs.
    tasklet::BackwardSpec spec;
    spec.outputGradient = outGrad;
    std::map<std::string, const Acc*> gradOfIn;
    for (auto& a : u.ins)
      if (activeIn(a) && !indexed.count(a.conn)) {
        std::string g = fresh("grad_" + a.conn);
        spec.inputGradient[a.conn] = g;
        gradOfIn[g] = &a;
      }
    if (!spec.inputGradient.empty()) {
      auto bp = tasklet::backwardProgram(fwd, spec, where);
      if (!bp) return bp.takeError();
      tasklet::Program code = withLets(*bp);
      auto reads = readsOf(code);
      if (!reads) return reads.takeError();
      std::vector<Port> writes;
      for (auto& w : tasklet::writtenNames(code)) {
        auto it = gradOfIn.find(w);
        if (it == gradOfIn.end()) return fail(where, "the backward tasklet writes unexpected '" + w + "'");
        writes.push_back({w, gradNode(em, it->second->data), it->second->subset, sdfg_.findData(it->second->data)->dtype, "sum"});
      }
      emitMapped(*em.st, specs, std::make_unique<Tasklet>("bwd_" + t.label(), code.str()), *reads, writes);
    }

    // Indexed arrays: scatter.
    for (auto& [conn, list] : indexed) {
      const Acc& a = *inAcc.at(conn);
      tasklet::BackwardSpec ispec;
      ispec.outputGradient = outGrad;
      for (auto& [at, idx] : list) ispec.inputGradient[at] = fresh("grad_" + at);
      auto bp = tasklet::backwardProgram(fwd, ispec, where);
      if (!bp) return bp.takeError();
      tasklet::Program code = withLets(*bp);
      for (auto& s : code.statements) s.local = s.local || std::any_of(ispec.inputGradient.begin(), ispec.inputGradient.end(),
                                                                        [&](auto& p) { return p.second == s.target; });
      std::string lin = fresh("l");
      std::string gx = fresh("grad_" + conn);
      EP sum;
      for (auto& [at, idx] : list) {
        EP term = mk(tasklet::ExprKind::Ternary, "?",
                     {mk(tasklet::ExprKind::Binary, "==", {idx, mk(tasklet::ExprKind::Name, lin, {})}),
                      mk(tasklet::ExprKind::Name, ispec.inputGradient.at(at), {}), mk(tasklet::ExprKind::Number, "0", {}, true)});
        sum = sum ? mk(tasklet::ExprKind::Binary, "+", {sum, term}) : term;
      }
      code.statements.push_back({gx, false, sum});
      auto reads = readsOf(code);
      if (!reads) return reads.takeError();
      std::vector<ScopeSpec> ss = specs;
      ss.push_back({"bwd_" + t.label() + "_scatter", {lin}, Subset({Range::full(a.subset.volume())}), Schedule::Sequential});
      Subset elem = elementOf(a.subset, sym::Expr::symbol(lin));
      emitMapped(*em.st, ss, std::make_unique<Tasklet>("bwd_" + t.label() + "_scatter", code.str()), *reads,
                 {{gx, gradNode(em, a.data), elem, sdfg_.findData(a.data)->dtype, "sum"}});
    }
    ++result_.units;
    return {};
  }

  Expected<void> emitNested(Emitter& em, const Unit& u) {
    auto& fwdNode = static_cast<NestedSdfgNode&>(*u.node);
    std::string where = unitName(u);
    std::set<std::string> ins, outs;
    std::map<std::string, const Acc*> byConn;
    for (auto& a : u.ins) {
      byConn[a.conn] = &a;
      if (activeIn(a)) ins.insert(a.conn);
    }
    for (auto& a : u.outs) {
      if (byConn.count(a.conn) && activeOut(a))
        return fail(where, "connector '" + a.conn + "' of '" + fwdNode.label() + "' is read and written (in place)",
                    "in-place operators are not differentiable yet");
      byConn[a.conn] = &a;
      if (activeOut(a)) outs.insert(a.conn);
    }
    if (ins.empty() || outs.empty()) return {};

    auto copy = cloneSdfg(fwdNode.sdfg());
    if (!copy) return copy.takeError();
    Sdfg& inner = **copy;
    std::vector<ElementId> forwardBlocks;
    for (auto& b : inner.blocks()) forwardBlocks.push_back(b->id());
    edit::Editor sub(inner);
    ReverseOptions o;
    o.gradIn = outs;
    o.gradOut = ins;
    o.where = where;
    auto rr = reverse(sub, inner, o);
    if (!rr) return rr.takeError();
    if (rr->units == 0) {
      (void)sub.takeJournal();
      return {};
    }
    bool needForward = false;
    for (auto& r : rr->forwardReads)
      if (const DataDescriptor* d = inner.findData(r); d && d->transient) needForward = true;
    if (needForward) {
      for (auto& a : u.outs)
        if (DataDescriptor* d = inner.findData(a.conn)) d->transient = true;
    } else {
      for (ElementId id : forwardBlocks) sub.removeBlock(inner, id);
    }
    // Drop data nothing refers to any more (unused arguments become unconnected otherwise).
    std::set<std::string> used;
    std::function<void(const ControlFlowBlock&)> collect = [&](const ControlFlowBlock& b) {
      std::set<std::string> r, w;
      regionAccesses(b, r, w);
      used.insert(r.begin(), r.end());
      used.insert(w.begin(), w.end());
      if (auto* st = dynamic_cast<const State*>(&b))
        for (auto& n : st->nodes())
          if (n->kind() == ElementKind::AccessNode) used.insert(static_cast<const AccessNode&>(*n).data());
    };
    for (auto& b : inner.blocks()) collect(*b);
    std::vector<std::string> unused;
    for (auto& d : inner.data())
      if (!used.count(d->name())) unused.push_back(d->name());
    for (auto& n : unused) sub.removeData(inner, n);
    (void)sub.takeJournal();

    std::map<std::string, std::string> gradOfOut, gradOfIn; // inner grad name -> connector
    for (auto& c : outs) gradOfOut[rr->gradName.at(c)] = c;
    for (auto& c : ins) gradOfIn[rr->gradName.at(c)] = c;
    inner.inputs.clear();
    inner.outputs.clear();
    std::vector<const DataDescriptor*> args;
    for (auto& d : inner.data())
      if (!d->transient) args.push_back(d.get());

    auto node = std::make_unique<NestedSdfgNode>("bwd_" + fwdNode.label(), std::move(*copy));
    Sdfg& bs = node->sdfg();
    struct Edge {
      AccessNode* src = nullptr;   // into the node
      AccessNode* dst = nullptr;   // out of the node
      std::string conn;
      Memlet in, out;
    };
    std::vector<Edge> edges;
    for (const DataDescriptor* d : args) {
      const std::string& name = d->name();
      Edge e;
      e.conn = name;
      if (auto it = gradOfOut.find(name); it != gradOfOut.end()) {
        const Acc* a = byConn.at(it->second);
        e.src = gradNode(em, a->data);
        e.in = Memlet::simple(result_.gradName.at(a->data), a->subset);
        bs.inputs.push_back(name);
      } else if (auto jt = gradOfIn.find(name); jt != gradOfIn.end()) {
        const Acc* a = byConn.at(jt->second);
        const std::string& g = result_.gradName.at(a->data);
        e.src = gradNode(em, a->data);
        e.in = Memlet::simple(g, a->subset);
        e.out = e.in;
        bs.inputs.push_back(name);
        bs.outputs.push_back(name);
      } else {
        auto at = byConn.find(name);
        if (at == byConn.end()) continue; // unconnected in the forward node too
        auto n = fwdRead(em, at->second->data);
        if (!n) return n.takeError();
        e.src = *n;
        e.in = Memlet::simple((*n)->data(), at->second->subset);
        bs.inputs.push_back(name);
      }
      node->addIn({name, d->dtype});
      if (!e.out.isEmpty()) node->addOut({name, d->dtype});
      edges.push_back(std::move(e));
    }
    node->symbolMapping = fwdNode.symbolMapping;
    State& st = *em.st;
    Node* bn = ed_.addNode(st, std::move(node));
    for (auto& e : edges) {
      ed_.addEdge(st, *e.src, "", *bn, e.conn, e.in);
      if (!e.out.isEmpty()) {
        AccessNode* w = addAccess(st, e.out.data);
        ed_.addEdge(st, *bn, e.conn, *w, "", e.out);
        em.grad[e.out.data] = w;
      }
    }
    ++result_.units;
    return {};
  }

  edit::Editor& ed_;
  Sdfg& sdfg_;
  const ReverseOptions& opt_;
  std::vector<ControlFlowBlock*> chain_;
  std::deque<Unit> units_;
  std::set<std::string> active_;
  std::map<std::string, std::vector<const Unit*>> writers_;
  std::map<const Unit*, std::vector<const Acc*>> clears_; // overwrites whose gradient is zeroed after
  ControlFlowBlock* last_ = nullptr;
  ReverseResult result_;
};

} // namespace

Expected<ReverseResult> reverse(edit::Editor& editor, Sdfg& sdfg, const ReverseOptions& options) {
  Pass p(editor, sdfg, options);
  return p.run();
}

} // namespace dcw::autodiff::detail
