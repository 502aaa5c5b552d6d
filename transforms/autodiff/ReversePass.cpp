// ReversePass: see ReversePass.h. Structure of this file:
//   (counted loops: emitLoop, stores and restores per iteration, see the comment above it)
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
#include "core/tasklet/Derivative.h"
#include "core/tasklet/TaskletCode.h"
#include "transforms/autodiff/CountedLoop.h"

#include <algorithm>
#include <deque>
#include <functional>

namespace dcw::autodiff::detail {

using namespace dcw::ir;

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
  LoopRegion* loop = nullptr;            // the counted loop whose body holds `state` (nullptr: top level)
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

// Names used by control flow (loop headers, interstate conditions and assignments) inside a block:
// data read there (an ONNX Loop's trip count) must survive the removal of unused data.
void controlFlowNames(const ControlFlowBlock& b, std::set<std::string>& names) {
  auto add = [&](const sym::Expr& e) {
    for (auto& s : e.freeSymbols()) names.insert(s);
  };
  if (auto* l = dynamic_cast<const LoopRegion*>(&b)) {
    add(l->init);
    add(l->condition);
    add(l->update);
  }
  if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
    for (auto& e : r->edges()) {
      add(e->condition);
      for (auto& [n, v] : e->assignments) add(v);
    }
    for (auto& c : r->blocks()) controlFlowNames(*c, names);
  } else if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
    for (auto& br : c->branches()) {
      if (br->condition) add(*br->condition);
      controlFlowNames(*br, names);
    }
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
    DCW_CHECK(collectChain());
    DCW_CHECK(collectUnits());
    activity();
    DCW_CHECK(checkRegions());
    DCW_CHECK(checkOverwrites());
    makeGradients();
    ControlFlowBlock* prev = chain_.empty() ? nullptr : chain_.back();
    DCW_CHECK(emitInit(prev));
    for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
      if (auto* l = dynamic_cast<LoopRegion*>(*it); l && loopBody_.count(l)) {
        DCW_CHECK(emitLoop(*l));
        continue;
      }
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
          DCW_CHECK(emitUnit(em, **u));
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
    State* loopState = nullptr;                   // in a reversed loop body: the forward body state
    std::map<std::string, AccessNode*> gout;      // data -> taken output gradient (overwritten in a loop)
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

  // The body of a loop as a chain of states (nullopt: it branches or holds regions).
  static std::optional<std::vector<State*>> bodyChain(LoopRegion& l) {
    std::vector<State*> out;
    if (l.blocks().empty()) return out;
    ControlFlowBlock* cur = l.block(l.startBlock());
    std::set<ElementId> seen;
    while (cur) {
      auto* st = dynamic_cast<State*>(cur);
      if (!st || !seen.insert(cur->id()).second) return std::nullopt;
      out.push_back(st);
      auto outs = l.outEdges(cur->id());
      if (outs.empty()) break;
      if (outs.size() > 1 || !outs.front()->isUnconditional() || !outs.front()->assignments.empty()) return std::nullopt;
      cur = l.block(outs.front()->dst);
    }
    if (out.size() != l.blocks().size()) return std::nullopt;
    return out;
  }

  Expected<void> collectUnits() {
    size_t order = 0;
    for (ControlFlowBlock* b : chain_) {
      auto* st = dynamic_cast<State*>(b);
      if (auto* l = dynamic_cast<LoopRegion*>(b)) {
        if (auto body = bodyChain(*l)) {
          loopBody_[l] = *body;
          for (State* s : *body)
            DCW_CHECK(collectState(s, l, order));
          continue;
        }
      }
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
      DCW_CHECK(collectState(st, nullptr, order));
    }
    return {};
  }

  Expected<void> collectState(State* st, LoopRegion* loop, size_t& order) {
    {
      DCW_TRY(auto topo, st->topologicalOrder());
      DCW_TRY(auto scopes, st->scopeOf());
      for (Node* n : topo) {
        std::string where = nodePath(opt_.where, *n);
        if (n->kind() == ElementKind::LibraryNode)
          return fail(where, "library node '" + n->label() + "' is not expanded", "expand it (pure) before differentiating");
        if (n->kind() == ElementKind::Tasklet || n->kind() == ElementKind::NestedSdfg) {
          Unit u;
          u.kind = n->kind() == ElementKind::Tasklet ? Unit::Kind::Tasklet : Unit::Kind::Nested;
          u.state = st;
          u.loop = loop;
          u.node = n;
          if (u.kind == Unit::Kind::Tasklet) {
            auto it = scopes.find(n->id());
            const MapEntry* s = it == scopes.end() ? nullptr : it->second;
            while (s) {
              u.scopes.insert(u.scopes.begin(), s);
              auto jt = scopes.find(s->id());
              s = jt == scopes.end() ? nullptr : jt->second;
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
            u.loop = loop;
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
    for (auto& u : units_) {
      if (u.kind != Unit::Kind::Region || !relevant(u)) continue;
      if (u.region->kind() == ElementKind::LoopRegion)
        return fail(unitName(u), "loop '" + u.region->label() + "' computes values the differentiated outputs depend on, "
                                 "and its body is not a chain of states",
                    "only loops whose body is a straight chain of states are reversed (nest inner loops in a nested SDFG)");
      return fail(unitName(u),
                  "conditional region '" + u.region->label() + "' computes values the differentiated outputs depend on",
                  "conditionals are not differentiable yet (the backward pass would need the branch taken stored)");
    }
    for (auto& [l, body] : loopBody_) {
      bool needed = false;
      for (auto& u : units_) needed = needed || (u.loop == l && relevant(u));
      if (!needed) continue;
      DCW_TRY(auto c, countedLoop(*l, opt_.where + pathOf(*l)));
      // Stores are sized by the trip count; where it reads data (an ONNX Loop's M), by its upper bound.
      for (auto& sname : c.trip.freeSymbols())
        if (!sdfg_.symbols().count(sname)) {
          auto [lo, hi] = sym::bounds(c.trip);
          if (!hi)
            return fail(opt_.where + pathOf(*l), "loop '" + l->label() + "' runs " + c.trip.str() +
                                                     " times, a count that depends on data ('" + sname + "')",
                        "per-iteration values need storage of a known size: give the loop a constant trip count or a bound");
          c.trip = sym::Expr(*hi);
          break;
        }
      counted_[l] = c;
      // A unit before the loop whose backward reads data the loop overwrites would see the last value.
      std::set<std::string> written;
      for (auto& u : units_)
        if (u.loop == l)
          for (auto& o : u.outs) written.insert(o.data);
      size_t first = units_.size();
      for (size_t k = 0; k < units_.size(); ++k)
        if (units_[k].loop == l) first = std::min(first, k);
      for (size_t k = 0; k < first; ++k) {
        const Unit& u = units_[k];
        if (u.loop || u.kind == Unit::Kind::Copy || !relevant(u)) continue;
        for (auto& a : u.ins)
          if (written.count(a.data))
            return fail(unitName(u), "'" + a.data + "' is read here and overwritten later by loop '" + l->label() + "'",
                        "read a copy of the value instead");
      }
    }
    return {};
  }

  // A non-WCR write of data that an earlier active unit wrote (in an earlier state, or ordered before
  // it in the same state) would hide that write's contribution: refused.
  Expected<void> checkOverwrites() {
    std::map<std::string, std::vector<const Unit*>> writers;
    for (auto& u : units_)
      for (auto& o : u.outs) {
        if (!active_.count(o.data)) continue;
        if (u.loop) continue; // overwrites inside a reversed loop: the gradient is taken and reset per iteration
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
    if (em.loopState && loopWritten_.count(d)) {
      // Overwritten across iterations: the value this iteration's state saw, restored from its store.
      AccessNode* n = addAccess(*em.st, iterData(d));
      em.fwd[d] = n;
      result_.forwardReads.insert(storeData(d, em.loopState));
      loopNeeds_[em.loopState].insert(d);
      return n;
    }
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

  // The gradient arriving at an output `d` of a unit: the taken copy where the unit overwrites `d` in a
  // reversed loop (the gradient array itself is reset for the iteration before), else the array.
  AccessNode* outGradNode(Emitter& em, const std::string& d) {
    if (auto it = em.gout.find(d); it != em.gout.end()) return it->second;
    return gradNode(em, d);
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
    auto n = fwdNode.clone();
    n->setLabel("recompute_" + fwdNode.label());
    Node* rn = ed_.addNode(*em.st, std::move(n));
    for (auto* e : p->state->inEdges(fwdNode.id())) {
      if (e->memlet.isEmpty()) continue;
      DCW_TRY(auto src, fwdRead(em, e->memlet.data));
      Memlet m = e->memlet;
      m.data = src->data();
      ed_.addEdge(*em.st, *src, "", *rn, e->dstConnector, m);
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

  // ---- counted loops -------------------------------------------------------------------------
  // The backward of a counted loop is a loop over the same iterations in reverse order whose body
  // holds, per forward body state s (last first):
  //   restore/take  values of data the body overwrites, as s saw them, from their per-iteration
  //                 store (`d_store[index]` -> `d_iter`); the gradient of each output that s
  //                 overwrites (not at an index of the loop variable) copied aside (`d_grad_out`);
  //   clear         those gradients reset to 0 where s writes them (the earlier value is dead);
  //   adjoints      of the active units of s, reading overwritten outputs' gradients from the copy.
  // The forward body gets, before each such s, a state writing the stores at `index`.

  std::string iterData(const std::string& d) {
    auto it = iterData_.find(d);
    if (it != iterData_.end()) return it->second;
    const DataDescriptor* f = sdfg_.findData(d);
    std::string n = uniqueData(d + "_iter");
    ed_.addTransient(sdfg_, n, f->dtype, f->shape);
    return iterData_[d] = n;
  }

  std::string storeData(const std::string& d, State* s) {
    auto key = std::make_pair(d, s);
    auto it = storeData_.find(key);
    if (it != storeData_.end()) return it->second;
    const DataDescriptor* f = sdfg_.findData(d);
    std::vector<sym::Expr> shape{curLoop_->trip};
    shape.insert(shape.end(), f->shape.begin(), f->shape.end());
    std::string n = uniqueData(d + "_store");
    ed_.addTransient(sdfg_, n, f->dtype, shape);
    return storeData_[key] = n;
  }

  std::string goutData(const std::string& d) {
    auto it = goutData_.find(d);
    if (it != goutData_.end()) return it->second;
    const std::string& g = result_.gradName.at(d);
    const DataDescriptor* f = sdfg_.findData(g);
    std::string n = uniqueData(g + "_out");
    ed_.addTransient(sdfg_, n, f->dtype, f->shape);
    return goutData_[d] = n;
  }

  // dst[dstAt..., :] = src[srcAt..., :] element by element (the trailing dims: `src`'s shape less srcAt).
  void copyElements(State& st, AccessNode* src, const std::vector<sym::Expr>& srcAt, AccessNode* dst,
                    const std::vector<sym::Expr>& dstAt) {
    const DataDescriptor* sd = sdfg_.findData(src->data());
    std::vector<sym::Expr> shape(sd->shape.begin() + long(srcAt.size()), sd->shape.end());
    std::vector<ScopeSpec> specs;
    std::vector<Range> si, di;
    for (auto& e : srcAt) si.push_back(Range::index(e));
    for (auto& e : dstAt) di.push_back(Range::index(e));
    if (!shape.empty()) {
      ScopeSpec sp{"copy_" + src->data(), {}, Subset::fullOf(shape), Schedule::Default};
      for (size_t k = 0; k < shape.size(); ++k) {
        std::string p = "ad_k" + std::to_string(k);
        sp.params.push_back(p);
        si.push_back(Range::index(sym::Expr::symbol(p)));
        di.push_back(Range::index(sym::Expr::symbol(p)));
      }
      specs.push_back(sp);
    }
    emitMapped(st, specs, std::make_unique<Tasklet>("copy_" + src->data(), "o = i"),
               {{"i", src, Subset(si), sd->dtype, ""}}, {{"o", dst, Subset(di), sdfg_.findData(dst->data())->dtype, ""}});
  }

  static bool usesSymbol(const Subset& s, const std::string& v) {
    for (auto& r : s.ranges())
      if (r.begin.freeSymbols().count(v) || r.end.freeSymbols().count(v)) return true;
    return false;
  }

  // A new state in `region` just before `s`, taking over the interstate edges into `s`.
  State* insertBefore(LoopRegion& region, State& s, const std::string& label) {
    State* n = ed_.addState(region, region.uniqueBlockLabel(label));
    for (InterstateEdge* e : region.inEdges(s.id())) {
      InterstateEdge* c = ed_.addInterstateEdge(region, e->src, n->id(), e->condition);
      if (!e->assignments.empty()) ed_.set(*c, &InterstateEdge::assignments, e->assignments);
      ed_.removeInterstateEdge(region, e->id());
    }
    bool start = region.startBlock() == s.id();
    ed_.addInterstateEdge(region, n->id(), s.id());
    if (start) ed_.setStartBlock(region, n->id());
    return n;
  }

  void linkIn(ControlFlowRegion& region, ControlFlowBlock*& last, ControlFlowBlock* b) {
    if (last) ed_.addInterstateEdge(region, last->id(), b->id());
    else ed_.setStartBlock(region, b->id());
    last = b;
  }

  Expected<void> emitLoop(LoopRegion& l) {
    auto ct = counted_.find(&l);
    if (ct == counted_.end()) return {}; // nothing in it is on the differentiated path
    const CountedLoop& c = ct->second;
    curLoop_ = &c;
    loopWritten_.clear();
    for (auto& u : units_)
      if (u.loop == &l)
        for (auto& o : u.outs) loopWritten_.insert(o.data);
    ControlFlowBlock* bl = ed_.addBlock(sdfg_, c.reversed(sdfg_.uniqueBlockLabel("bwd_" + l.label())));
    auto& bwd = static_cast<LoopRegion&>(*bl);
    link(bl);
    ControlFlowBlock* last = nullptr;
    std::vector<sym::Expr> at{c.index};
    const std::vector<State*>& body = loopBody_.at(&l);
    for (auto it = body.rbegin(); it != body.rend(); ++it) {
      State* s = *it;
      std::vector<Unit*> units;
      std::vector<std::pair<const Unit*, const Acc*>> overwrites;
      for (auto& u : units_) {
        if (u.state != s) continue;
        if (relevant(u)) units.push_back(&u);
        for (auto& o : u.outs)
          if (active_.count(o.data) && isFloatData(o.data) && o.wcr.empty() && !usesSymbol(o.subset, c.var))
            overwrites.push_back({&u, &o});
      }
      if (units.empty() && overwrites.empty()) continue;
      State* b = ed_.addState(bwd, bwd.uniqueBlockLabel("bwd_" + s->label()));
      Emitter em{b};
      em.loopState = s;
      std::vector<std::string> takes;
      for (auto& [u, o] : overwrites)
        if (relevant(*u) && !em.gout.count(o->data)) {
          em.gout[o->data] = addAccess(*b, goutData(o->data));
          takes.push_back(o->data);
        }
      for (auto u = units.rbegin(); u != units.rend(); ++u)
        DCW_CHECK(emitUnit(em, **u));
      std::set<std::string> needs = loopNeeds_[s];
      // A value read here must be the one the state saw on entry: refuse a write by another unit of s.
      for (auto& d : needs)
        for (auto& u : units_) {
          if (u.state != s) continue;
          bool writes = std::any_of(u.outs.begin(), u.outs.end(), [&](const Acc& a) { return a.data == d; });
          bool reads = std::any_of(u.ins.begin(), u.ins.end(), [&](const Acc& a) { return a.data == d; });
          if (writes && !reads && std::any_of(units.begin(), units.end(), [&](const Unit* r) {
                return r != &u && std::any_of(r->ins.begin(), r->ins.end(), [&](const Acc& a) { return a.data == d; });
              }))
            return fail(unitName(u), "'" + d + "' is written here and read by another operator of the same state in loop '" +
                                         l.label() + "'",
                        "split the state so that the value is written before the state that reads it");
        }
      if (!needs.empty() || !takes.empty()) {
        State* t = ed_.addState(bwd, bwd.uniqueBlockLabel("bwd_" + s->label() + "_restore"));
        for (auto& d : needs) copyElements(*t, addAccess(*t, storeData(d, s)), at, addAccess(*t, iterData(d)), {});
        for (auto& d : takes) copyElements(*t, addAccess(*t, result_.gradName.at(d)), {}, addAccess(*t, goutData(d)), {});
        linkIn(bwd, last, t);
      }
      if (!overwrites.empty()) {
        State* cs = ed_.addState(bwd, bwd.uniqueBlockLabel("bwd_" + s->label() + "_clear"));
        Emitter ec{cs};
        for (auto& [u, a] : overwrites) emitClear(ec, *u, *a);
        linkIn(bwd, last, cs);
      }
      linkIn(bwd, last, b);
    }
    // The stores, written by the forward body before the states that read them.
    for (State* s : body) {
      auto nt = loopNeeds_.find(s);
      if (nt == loopNeeds_.end() || nt->second.empty()) continue;
      State* st = insertBefore(l, *s, "store_" + s->label());
      for (auto& d : nt->second) copyElements(*st, addAccess(*st, d), {}, addAccess(*st, storeData(d, s)), at);
    }
    curLoop_ = nullptr;
    loopWritten_.clear();
    return {};
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
    AccessNode* gy = outGradNode(em, out.data);
    AccessNode* gx = gradNode(em, in.data);
    const std::string gyName = gy->data();
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
      // Each write has its own connector path through the exits (an input connector takes one edge):
      // a second write of the same data (e.g. two elements of one bias) gets `IN_<data>_1`.
      std::string conn = data;
      for (int k = 1; !nest.routed.insert({nest.exits.back(), conn}).second; ++k) conn = data + "_" + std::to_string(k);
      Node* to = nest.exits.back();
      to->addIn({"IN_" + conn});
      to->addOut({"OUT_" + conn});
      ed_.addEdge(st, *tn, w.conn, *to, "IN_" + conn, inner);
      for (size_t k = nest.exits.size() - 1; k-- > 0;) {
        MapExit* outer = nest.exits[k];
        nest.routed.insert({outer, conn});
        outer->addIn({"IN_" + conn});
        outer->addOut({"OUT_" + conn});
        Memlet m = Memlet::full(data, shapeOf(data));
        m.wcr = w.wcr;
        ed_.addEdge(st, *to, "OUT_" + conn, *outer, "IN_" + conn, m);
        to = outer;
      }
      Memlet m = Memlet::full(data, shapeOf(data));
      m.wcr = w.wcr;
      ed_.addEdge(st, *to, "OUT_" + conn, *w.node, "", m);
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
    if (t.language != TaskletLanguage::Dcw) {
      // Opaque C++ (an implementation such as `onednn`): name the node it was expanded from.
      const Sdfg* owner = t.parent() ? owningSdfg(t.parent()) : nullptr;
      std::string impl, op;
      if (owner) {
        if (auto it = owner->metadata.find("implementation"); it != owner->metadata.end()) impl = it->second;
        if (auto it = owner->metadata.find("expanded_from"); it != owner->metadata.end()) op = it->second;
      }
      // The expanded node: this pass runs on a copy of its nested SDFG and opt_.where names it; at the
      // root (no copy) it is the tasklet's path less the expansion's state and the tasklet.
      std::string node = opt_.where;
      if (node.empty()) {
        node = where.substr(0, where.rfind('/'));
        node = node.substr(0, node.rfind('/'));
      }
      const bool settable = node.find(' ') == std::string::npos; // a model path, not "X (in the copy Y)"
      // The ops whose output size is counted at run time (expansions/ops/DataDependent.cpp) have no
      // other implementation: say that, not "choose pure".
      bool counted = false;
      for (auto& c : t.outConnectors()) counted = counted || c.name == "extent";
      if (impl == "pure" && counted)
        return fail(where, "cannot differentiate through " + op + " node '" + node +
                               "': its output size is counted at run time (a data-dependent extent), and DCW has no derivative for it",
                    "differentiate a part of the model that does not pass through it, or take its output as a constant input");
      return fail(where, "cannot differentiate through tasklet '" + t.label() + "': it is opaque C++" +
                             (impl.empty() ? std::string() : " (implementation '" + impl + "' of " + op + " node '" + node + "')"),
                  impl.empty() ? "write the tasklet in the tasklet language"
                               : "choose the `pure` implementation for that node" +
                                     (settable ? " (set " + node + " implementation=pure)" : std::string()) + " and expand again");
    }
    DCW_TRY(auto prog, tasklet::parse(t.code, where));
    tasklet::Program fwd = prog;

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
          n = outGradNode(em, a->data);
        } else {
          if (auto ft = finalAcc.find(r); ft != finalAcc.end()) a = ft->second;
          else if (auto at = inAcc.find(r); at != inAcc.end()) a = at->second;
          if (!a) continue; // a symbol or map parameter
          DCW_TRY(auto fn, fwdRead(em, a->data));
          n = fn;
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
      DCW_TRY(auto bp, tasklet::backwardProgram(fwd, spec, where));
      tasklet::Program code = withLets(bp);
      DCW_TRY(auto reads, readsOf(code));
      std::vector<Port> writes;
      for (auto& w : tasklet::writtenNames(code)) {
        auto it = gradOfIn.find(w);
        if (it == gradOfIn.end()) return fail(where, "the backward tasklet writes unexpected '" + w + "'");
        writes.push_back({w, gradNode(em, it->second->data), it->second->subset, sdfg_.findData(it->second->data)->dtype, "sum"});
      }
      emitMapped(*em.st, specs, std::make_unique<Tasklet>("bwd_" + t.label(), code.str()), reads, writes);
    }

    // Indexed arrays: scatter.
    for (auto& [conn, list] : indexed) {
      const Acc& a = *inAcc.at(conn);
      tasklet::BackwardSpec ispec;
      ispec.outputGradient = outGrad;
      for (auto& [at, idx] : list) ispec.inputGradient[at] = fresh("grad_" + at);
      DCW_TRY(auto bp, tasklet::backwardProgram(fwd, ispec, where));
      tasklet::Program code = withLets(bp);
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
      DCW_TRY(auto reads, readsOf(code));
      std::vector<ScopeSpec> ss = specs;
      ss.push_back({"bwd_" + t.label() + "_scatter", {lin}, Subset({Range::full(a.subset.volume())}), Schedule::Sequential});
      Subset elem = elementOf(a.subset, sym::Expr::symbol(lin));
      emitMapped(*em.st, ss, std::make_unique<Tasklet>("bwd_" + t.label() + "_scatter", code.str()), reads,
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

    auto copy = fwdNode.sdfg().clone();
    Sdfg& inner = *copy;
    std::vector<ElementId> forwardBlocks;
    for (auto& b : inner.blocks()) forwardBlocks.push_back(b->id());
    edit::Editor sub(inner);
    ReverseOptions o;
    o.gradIn = outs;
    o.gradOut = ins;
    o.where = where;
    DCW_TRY(auto rr, reverse(sub, inner, o));
    if (rr.units == 0) {
      (void)sub.takeJournal();
      return {};
    }
    bool needForward = false;
    for (auto& r : rr.forwardReads)
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
    controlFlowNames(inner, used);
    std::vector<std::string> unused;
    for (auto& d : inner.data())
      if (!used.count(d->name())) unused.push_back(d->name());
    for (auto& n : unused) sub.removeData(inner, n);
    (void)sub.takeJournal();

    std::map<std::string, std::string> gradOfOut, gradOfIn; // inner grad name -> connector
    for (auto& c : outs) gradOfOut[rr.gradName.at(c)] = c;
    for (auto& c : ins) gradOfIn[rr.gradName.at(c)] = c;
    inner.inputs.clear();
    inner.outputs.clear();
    std::vector<const DataDescriptor*> args;
    for (auto& d : inner.data())
      if (!d->transient) args.push_back(d.get());

    auto node = std::make_unique<NestedSdfgNode>("bwd_" + fwdNode.label(), std::move(copy));
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
        e.src = outGradNode(em, a->data);
        e.in = Memlet::simple(e.src->data(), a->subset);
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
        DCW_TRY(auto n, fwdRead(em, at->second->data));
        e.src = n;
        e.in = Memlet::simple(n->data(), at->second->subset);
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
  std::map<LoopRegion*, std::vector<State*>> loopBody_;   // loops whose body is a chain of states
  std::map<LoopRegion*, CountedLoop> counted_;            // ... with active units: reversed
  const CountedLoop* curLoop_ = nullptr;                  // the loop being reversed
  std::set<std::string> loopWritten_;                     // data its body writes
  std::map<State*, std::set<std::string>> loopNeeds_;     // body state -> data restored from stores
  std::map<std::string, std::string> iterData_, goutData_;
  std::map<std::pair<std::string, State*>, std::string> storeData_;
  ControlFlowBlock* last_ = nullptr;
  ReverseResult result_;
};

} // namespace

Expected<ReverseResult> reverse(edit::Editor& editor, Sdfg& sdfg, const ReverseOptions& options) {
  Pass p(editor, sdfg, options);
  return p.run();
}

} // namespace dcw::autodiff::detail
