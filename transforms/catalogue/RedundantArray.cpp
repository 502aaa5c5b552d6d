#include "transforms/catalogue/RedundantArray.h"

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

// The edges inside map exits that feed `conn` of `n` (transitively through nested exits).
void upstream(const State& st, const Node& n, const std::string& conn, std::vector<DataflowEdge*>& out) {
  if (n.kind() != ElementKind::MapExit || conn.rfind("OUT_", 0) != 0) return;
  std::string in = "IN_" + conn.substr(4);
  for (auto* e : st.inEdges(n.id()))
    if (e->dstConnector == in) {
      out.push_back(e);
      if (Node* src = st.node(e->src)) upstream(st, *src, e->srcConnector, out);
    }
}

struct Plan {
  const DataDescriptor* a = nullptr;
  const DataDescriptor* b = nullptr;
  DataflowEdge* copy = nullptr;
  DataflowEdge* producer = nullptr;
  std::vector<DataflowEdge*> inner; // memlets naming A inside the producer's map scopes
  std::vector<sym::Expr> offset;    // origin of the copy's region in B
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
  if (!p.a->transient) return fail(path, "'" + A + "' is not transient: it is an argument of its SDFG", "only internal arrays can be removed");
  if (p.a->constant) return fail(path, "'" + A + "' is a constant");
  if (p.a->dtype != p.b->dtype) return fail(path, "'" + A + "' and '" + B + "' have different element types");
  if (!p.a->wrappers.empty() || !p.b->wrappers.empty() || !p.a->rankKnown || !p.b->rankKnown)
    return fail(path, "only plain tensors of known rank are handled");
  if (accessCount(*sdfg, A) != 1) return fail(path, "'" + A + "' is accessed elsewhere too", "A must be written once and only copied");
  if (namedInControlFlow(*sdfg, A)) return fail(path, "'" + A + "' is named by control flow");
  auto outs = st->outEdges(in->id());
  if (outs.size() != 1) return fail(path, "'" + A + "' is read by more than the copy");
  p.copy = outs[0];
  if (p.copy->dst != out->id()) return fail(path, "'" + A + "' is not copied to '" + B + "'");
  if (p.copy->memlet.isEmpty() || !p.copy->memlet.wcr.empty()) return fail(path, "the copy is empty or has write-conflict resolution");
  auto ins = st->inEdges(in->id());
  if (ins.size() != 1) return fail(path, "'" + A + "' must be written by exactly one edge (" + std::to_string(ins.size()) + " here)");
  p.producer = ins[0];
  if (st->inEdges(out->id()).size() != 1) return fail(path, "'" + B + "' is also written by other edges here");
  int bHere = 0;
  for (auto& nd : st->nodes())
    if (auto* x = dynamic_cast<AccessNode*>(nd.get()); x && x->data() == B) ++bHere;
  if (bHere != 1) return fail(path, "'" + B + "' has other access nodes in this state", "its order relative to them would change");
  CopySides c = copySides(p.copy->memlet, *p.a, *p.b);
  if (!coversAll(c.src, *p.a)) return fail(path, "the copy moves only part of '" + A + "' (" + c.src.str() + ")");
  if (p.a->shape.empty()) {
    if (!p.b->shape.empty() && !coversAll(c.dst, *p.b)) return fail(path, "a scalar is copied into an element of '" + B + "'");
  } else {
    if (c.dst.rank() != p.a->shape.size()) return fail(path, "the copy reshapes (rank " + std::to_string(p.a->shape.size()) + " to " + std::to_string(c.dst.rank()) + ")");
    for (size_t k = 0; k < c.dst.rank(); ++k) {
      if (c.dst[k].step != sym::Expr(1)) return fail(path, "the copy writes '" + B + "' with a step");
      if (!sameExpr(c.dst[k].size(), p.a->shape[k])) return fail(path, "the copy reshapes: region " + c.dst.str() + " of '" + B + "' does not match the shape of '" + A + "'");
      p.offset.push_back(c.dst[k].begin);
    }
  }
  bool zero = true;
  for (auto& o : p.offset)
    if (!sameExpr(o, 0)) zero = false;
  if (zero) p.offset.clear();
  // The producer.
  const Memlet& pm = p.producer->memlet;
  if (!pm.wcr.empty()) return fail(path, "'" + A + "' is written with write-conflict resolution (" + pm.wcr + ")", "the old contents of '" + B + "' would take part");
  Node* src = st->node(p.producer->src);
  Subset aSide;
  if (src->kind() == ElementKind::AccessNode) {
    auto* sa = static_cast<AccessNode*>(src);
    const DataDescriptor* sd = sdfg->findData(sa->data());
    if (!sd) return fail(path, "the producer accesses unknown data");
    aSide = pm.data == A ? pm.subset : (pm.otherSubset ? *pm.otherSubset : Subset::fullOf(p.a->shape));
  } else {
    if (pm.data != A) return fail(path, "the producer's memlet names '" + pm.data + "', not '" + A + "'");
    aSide = pm.subset;
  }
  if (aSide.empty()) aSide = Subset::fullOf(p.a->shape);
  if (!coversAll(aSide, *p.a)) return fail(path, "the producer writes only part of '" + A + "' (" + aSide.str() + ")");
  if ((src->kind() == ElementKind::NestedSdfg || src->kind() == ElementKind::LibraryNode) &&
      (!p.offset.empty() || !coversAll(c.dst, *p.b)))
    return fail(path, "'" + src->label() + "' would have to write a region of '" + B + "'", "a nested SDFG's argument must be a whole array");
  upstream(*st, *src, p.producer->srcConnector, p.inner);
  for (auto* e : p.inner) {
    if (!e->memlet.wcr.empty()) return fail(path, "'" + A + "' is written with write-conflict resolution inside the map");
    if (!e->memlet.isEmpty() && e->memlet.data != A) return fail(path, "a memlet inside the producer names '" + e->memlet.data + "'");
  }
  return p;
}

Memlet retarget(const Memlet& m, const std::string& A, const std::string& B, const std::vector<sym::Expr>& off) {
  Memlet r = m;
  if (m.data == A) {
    r.data = B;
    r.subset = shifted(m.subset, off);
  }
  return r;
}

} // namespace

const Pattern& RedundantArray::pattern() const {
  static const Pattern p = Pattern::dataflow({{"in", {ElementKind::AccessNode}}, {"out", {ElementKind::AccessNode}}}, {{0, 1}});
  return p;
}

bool RedundantArray::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!b) {
    if (whyNot) whyNot->add(b.error());
    return false;
  }
  auto p = plan(*b, match.elements.at("in"));
  if (!p) {
    if (whyNot) whyNot->add(p.error());
    return false;
  }
  return true;
}

Expected<void> RedundantArray::apply(const Match& match, edit::Editor& ed) const {
  auto b = Binding::resolve(match, ed.root());
  if (!b) return b.takeError();
  auto p = plan(*b, match.elements.at("in"));
  if (!p) return p.takeError();
  auto* in = b->get<AccessNode>("in");
  auto* out = b->get<AccessNode>("out");
  State& st = *b->stateOf("in");
  Sdfg& sdfg = *owningSdfg(in);
  const std::string A = p->a->name(), B = p->b->name();
  for (auto* e : p->inner) ed.set(*e, &DataflowEdge::memlet, retarget(e->memlet, A, B, p->offset));
  DataflowEdge& pe = *p->producer;
  Memlet m = pe.memlet;
  if (m.data == A) {
    m = retarget(m, A, B, p->offset);
  } else { // a copy into A named by its source: A is the other side
    Subset aSide = m.otherSubset ? *m.otherSubset : Subset::fullOf(p->a->shape);
    if (aSide.empty()) aSide = Subset::fullOf(p->a->shape);
    m.otherSubset = shifted(aSide, p->offset);
  }
  Node& src = *st.node(pe.src);
  std::string srcConn = pe.srcConnector, dstConn = pe.dstConnector;
  ed.removeEdge(st, pe.id());
  ed.addEdge(st, src, srcConn, *out, "", m);
  ed.removeNode(st, in->id());
  ed.removeData(sdfg, A);
  return {};
}

} // namespace dcw::transforms
