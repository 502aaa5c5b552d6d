#include "transforms/catalogue/RedundantSecondArray.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

bool sameExpr(const sym::Expr& a, const sym::Expr& b) {
  if (a == b) return true;
  auto d = (a - b).constantValue();
  return d && *d == 0;
}

int accessCount(const Sdfg& s, const std::string& data) {
  int n = 0;
  for (State* st : s.allStates())
    for (auto& nd : st->nodes())
      if (auto* a = dynamic_cast<const AccessNode*>(nd.get()); a && a->data() == data) ++n;
  return n;
}

bool namedInControlFlow(const Sdfg& s, const std::string& name) {
  bool found = false;
  auto has = [&](const sym::Expr& x) { return x.freeSymbols().count(name) > 0; };
  s.forEachElement([&](const Element& e) {
    if (found) return;
    if (auto* ie = dynamic_cast<const InterstateEdge*>(&e)) {
      if (has(ie->condition)) found = true;
      for (auto& [k, v] : ie->assignments)
        if (k == name || has(v)) found = true;
    } else if (auto* l = dynamic_cast<const LoopRegion*>(&e)) {
      if (has(l->init) || has(l->condition) || has(l->update)) found = true;
    } else if (auto* b = dynamic_cast<const BranchRegion*>(&e)) {
      if (b->condition && has(*b->condition)) found = true;
    }
  });
  return found;
}

bool coversAll(const Subset& s, const DataDescriptor& d) {
  if (d.shape.empty()) return s.empty() || (s.rank() == 1 && s[0] == Range::index(0));
  if (s.rank() != d.shape.size()) return false;
  for (size_t k = 0; k < s.rank(); ++k)
    if (!sameExpr(s[k].begin, 0) || !sameExpr(s[k].end, d.shape[k]) || s[k].step != sym::Expr(1)) return false;
  return true;
}

Subset shifted(const Subset& s, const std::vector<sym::Expr>& off) {
  if (off.empty()) return s;
  Subset r = s;
  for (size_t k = 0; k < r.rank() && k < off.size(); ++k) {
    r.ranges()[k].begin = s[k].begin + off[k];
    r.ranges()[k].end = s[k].end + off[k];
  }
  return r;
}

// The region of the source (`in` data) and of the destination (`out` data) a copy edge moves.
struct CopySides {
  Subset src, dst;
};
CopySides copySides(const Memlet& m, const DataDescriptor& src, const DataDescriptor& dst) {
  CopySides c;
  if (m.data == src.name()) {
    c.src = m.subset;
    c.dst = m.otherSubset ? *m.otherSubset : Subset::fullOf(dst.shape);
  } else {
    c.dst = m.subset;
    c.src = m.otherSubset ? *m.otherSubset : Subset::fullOf(src.shape);
  }
  if (c.src.empty()) c.src = Subset::fullOf(src.shape);
  if (c.dst.empty()) c.dst = Subset::fullOf(dst.shape);
  return c;
}

// The edges inside map entries fed by `conn` of `n` (transitively through nested entries).
void downstream(const State& st, const Node& n, const std::string& conn, std::vector<DataflowEdge*>& out) {
  if (n.kind() != ElementKind::MapEntry || conn.rfind("IN_", 0) != 0) return;
  std::string o = "OUT_" + conn.substr(3);
  for (auto* e : st.outEdges(n.id()))
    if (e->srcConnector == o) {
      out.push_back(e);
      if (Node* dst = st.node(e->dst)) downstream(st, *dst, e->dstConnector, out);
    }
}

struct Plan {
  const DataDescriptor* a = nullptr;
  const DataDescriptor* b = nullptr;
  DataflowEdge* copy = nullptr;
  std::vector<DataflowEdge*> readers; // edges leaving B
  std::vector<DataflowEdge*> inner;   // memlets naming B inside the readers' map scopes
  std::vector<sym::Expr> offset;      // origin of the copied region in A
};

Expected<Plan> plan(const Binding& b, const std::string& path) {
  Plan p;
  auto* in = b.get<AccessNode>("in");
  auto* out = b.get<AccessNode>("out");
  State* st = b.stateOf("in");
  if (!in || !out || !st || b.stateOf("out") != st) return fail(path, "`in` and `out` must be access nodes of one state");
  const Sdfg* sdfg = owningSdfg(in);
  p.a = sdfg->findData(in->data());
  p.b = sdfg->findData(out->data());
  if (!p.a || !p.b) return fail(path, "accesses unknown data");
  const std::string A = p.a->name(), B = p.b->name();
  if (A == B) return fail(path, "both access nodes name '" + A + "'");
  if (!p.b->transient) return fail(path, "'" + B + "' is not transient: it is an argument of its SDFG", "only internal arrays can be removed");
  if (p.b->constant) return fail(path, "'" + B + "' is a constant");
  if (p.a->dtype != p.b->dtype) return fail(path, "'" + A + "' and '" + B + "' have different element types");
  if (!p.a->wrappers.empty() || !p.b->wrappers.empty() || !p.a->rankKnown || !p.b->rankKnown)
    return fail(path, "only plain tensors of known rank are handled");
  if (accessCount(*sdfg, B) != 1) return fail(path, "'" + B + "' is accessed elsewhere too", "B must only hold the copy");
  if (namedInControlFlow(*sdfg, B)) return fail(path, "'" + B + "' is named by control flow");
  auto ins = st->inEdges(out->id());
  if (ins.size() != 1) return fail(path, "'" + B + "' is written by more than the copy");
  p.copy = ins[0];
  if (p.copy->src != in->id()) return fail(path, "'" + B + "' is not a copy of '" + A + "'");
  if (p.copy->memlet.isEmpty() || !p.copy->memlet.wcr.empty()) return fail(path, "the copy is empty or has write-conflict resolution");
  for (auto& nd : st->nodes())
    if (auto* x = dynamic_cast<AccessNode*>(nd.get()); x && x != in && x->data() == A && !st->inEdges(x->id()).empty())
      return fail(path, "'" + A + "' is also written in this state", "its readers might see a newer value");
  CopySides c = copySides(p.copy->memlet, *p.a, *p.b);
  if (!coversAll(c.dst, *p.b)) return fail(path, "the copy fills only part of '" + B + "' (" + c.dst.str() + ")");
  if (p.b->shape.empty()) {
    if (!p.a->shape.empty() && !coversAll(c.src, *p.a)) return fail(path, "an element of '" + A + "' is copied into a scalar");
  } else {
    if (c.src.rank() != p.b->shape.size()) return fail(path, "the copy reshapes (rank " + std::to_string(c.src.rank()) + " to " + std::to_string(p.b->shape.size()) + ")");
    for (size_t k = 0; k < c.src.rank(); ++k) {
      if (c.src[k].step != sym::Expr(1)) return fail(path, "the copy reads '" + A + "' with a step");
      if (!sameExpr(c.src[k].size(), p.b->shape[k])) return fail(path, "the copy reshapes: region " + c.src.str() + " of '" + A + "' does not match the shape of '" + B + "'");
      p.offset.push_back(c.src[k].begin);
    }
  }
  bool zero = true;
  for (auto& o : p.offset)
    if (!sameExpr(o, 0)) zero = false;
  if (zero) p.offset.clear();
  for (auto* e : st->outEdges(out->id())) {
    p.readers.push_back(e);
    Node* dst = st->node(e->dst);
    const Memlet& m = e->memlet;
    if (m.isEmpty()) continue;
    if (!m.wcr.empty()) return fail(path, "an edge leaving '" + B + "' has write-conflict resolution");
    if (dst->kind() == ElementKind::AccessNode) continue;
    if (m.data != B) return fail(path, "a reader's memlet names '" + m.data + "', not '" + B + "'");
    if ((dst->kind() == ElementKind::NestedSdfg || dst->kind() == ElementKind::LibraryNode) &&
        (!p.offset.empty() || !coversAll(c.src, *p.a)))
      return fail(path, "'" + dst->label() + "' would have to read a region of '" + A + "'", "a nested SDFG's argument must be a whole array");
    downstream(*st, *dst, e->dstConnector, p.inner);
  }
  for (auto* e : p.inner)
    if (!e->memlet.isEmpty() && e->memlet.data != B) return fail(path, "a memlet inside a reader names '" + e->memlet.data + "'");
  return p;
}

Memlet retarget(const Memlet& m, const std::string& B, const std::string& A, const std::vector<sym::Expr>& off) {
  Memlet r = m;
  if (m.data == B) {
    r.data = A;
    r.subset = shifted(m.subset, off);
  }
  return r;
}

} // namespace

const Pattern& RedundantSecondArray::pattern() const {
  static const Pattern p = Pattern::dataflow({{"in", {ElementKind::AccessNode}}, {"out", {ElementKind::AccessNode}}}, {{0, 1}});
  return p;
}

bool RedundantSecondArray::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!b) {
    if (whyNot) whyNot->add(b.error());
    return false;
  }
  auto p = plan(*b, match.elements.at("out"));
  if (!p) {
    if (whyNot) whyNot->add(p.error());
    return false;
  }
  return true;
}

Expected<void> RedundantSecondArray::apply(const Match& match, edit::Editor& ed) const {
  auto b = Binding::resolve(match, ed.root());
  if (!b) return b.takeError();
  auto p = plan(*b, match.elements.at("out"));
  if (!p) return p.takeError();
  auto* in = b->get<AccessNode>("in");
  auto* out = b->get<AccessNode>("out");
  State& st = *b->stateOf("in");
  Sdfg& sdfg = *owningSdfg(in);
  const std::string A = p->a->name(), B = p->b->name();
  for (auto* e : p->inner) ed.set(*e, &DataflowEdge::memlet, retarget(e->memlet, B, A, p->offset));
  struct Saved {
    ElementId dst;
    std::string dstConn;
    Memlet m;
  };
  std::vector<Saved> saved;
  for (auto* e : p->readers) {
    Memlet m = e->memlet;
    Node* dst = st.node(e->dst);
    if (m.isEmpty()) {
    } else if (m.data == B) {
      m = retarget(m, B, A, p->offset);
    } else if (dst->kind() == ElementKind::AccessNode) { // a copy out of B named by its destination
      Subset bSide = m.otherSubset ? *m.otherSubset : Subset::fullOf(p->b->shape);
      if (bSide.empty()) bSide = Subset::fullOf(p->b->shape);
      m.otherSubset = shifted(bSide, p->offset);
    }
    saved.push_back({e->dst, e->dstConnector, m});
  }
  ed.removeNode(st, out->id());
  for (auto& s : saved) ed.addEdge(st, *in, "", *st.node(s.dst), s.dstConn, s.m);
  ed.removeData(sdfg, B);
  return {};
}

} // namespace dcw::transforms
