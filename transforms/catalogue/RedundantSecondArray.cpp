#include "transforms/catalogue/RedundantSecondArray.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/CopyTools.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct RedundantSecondArrayPlan {
  const DataDescriptor* a = nullptr;
  const DataDescriptor* b = nullptr;
  DataflowEdge* copy = nullptr;
  std::vector<DataflowEdge*> readers; // edges leaving B
  std::vector<DataflowEdge*> inner;   // memlets naming B inside the readers' map scopes
  std::vector<sym::Expr> offset;      // origin of the copied region in A
};

Expected<RedundantSecondArrayPlan> planRedundantSecondArray(const Binding& b, const std::string& path) {
  DCW_TRY(auto ends, copy::resolveCopyEnds(b, path, copy::Removed::Out));
  RedundantSecondArrayPlan p;
  AccessNode* in = ends.in;
  AccessNode* out = ends.out;
  State* st = ends.st;
  const Sdfg* sdfg = ends.sdfg;
  p.a = ends.a;
  p.b = ends.b;
  const std::string A = p.a->name(), B = p.b->name();
  if (graph::accessCount(*sdfg, B) != 1) return fail(path, "'" + B + "' is accessed elsewhere too", "B must only hold the copy");
  if (graph::namedInControlFlow(*sdfg, B)) return fail(path, "'" + B + "' is named by control flow");
  auto ins = st->inEdges(out->id());
  if (ins.size() != 1) return fail(path, "'" + B + "' is written by more than the copy");
  p.copy = ins[0];
  if (p.copy->src != in->id()) return fail(path, "'" + B + "' is not a copy of '" + A + "'");
  if (p.copy->memlet.isEmpty() || !p.copy->memlet.wcr.empty()) return fail(path, "the copy is empty or has write-conflict resolution");
  for (auto& nd : st->nodes())
    if (auto* x = dynamic_cast<AccessNode*>(nd.get()); x && x != in && x->data() == A && !st->inEdges(x->id()).empty())
      return fail(path, "'" + A + "' is also written in this state", "its readers might see a newer value");
  copy::CopySides c = copy::copySides(p.copy->memlet, *p.a, *p.b);
  if (!copy::coversAll(c.dst, *p.b)) return fail(path, "the copy fills only part of '" + B + "' (" + c.dst.str() + ")");
  if (std::string(copy::memoryOf(*p.a)) != copy::memoryOf(*p.b))
    return fail(path, "the copy moves '" + A + "' from " + copy::memoryOf(*p.a) + " memory to '" + B + "' in " + copy::memoryOf(*p.b) +
                          " memory: a transfer, not a redundant array",
                "code on each side reads only its own memory");
  if (p.a->channelBlock != p.b->channelBlock)
    return fail(path, "the copy changes the layout ('" + (p.a->channelBlock ? A : B) + "' has its channels in blocks): it is a reorder",
                "the readers' code may depend on the layout they read");
  if (p.a->isChannelsLast() != p.b->isChannelsLast())
    return fail(path, "the copy changes the layout ('" + (p.a->isChannelsLast() ? A : B) + "' is channels-last): it is a reorder",
                "the readers' code may depend on the layout they read");
  if (p.b->shape.empty()) {
    if (!p.a->shape.empty() && !copy::coversAll(c.src, *p.a)) return fail(path, "an element of '" + A + "' is copied into a scalar");
  } else {
    if (c.src.rank() != p.b->shape.size()) return fail(path, "the copy reshapes (rank " + std::to_string(c.src.rank()) + " to " + std::to_string(p.b->shape.size()) + ")");
    for (size_t k = 0; k < c.src.rank(); ++k) {
      if (c.src[k].step != sym::Expr(1)) return fail(path, "the copy reads '" + A + "' with a step");
      if (!copy::sameExpr(c.src[k].size(), p.b->shape[k])) return fail(path, "the copy reshapes: region " + c.src.str() + " of '" + A + "' does not match the shape of '" + B + "'");
      p.offset.push_back(c.src[k].begin);
    }
  }
  copy::dropZeroOffset(p.offset);
  for (auto* e : st->outEdges(out->id())) {
    p.readers.push_back(e);
    Node* dst = st->node(e->dst);
    const Memlet& m = e->memlet;
    if (m.isEmpty()) continue;
    if (!m.wcr.empty()) return fail(path, "an edge leaving '" + B + "' has write-conflict resolution");
    if (dst->kind() == ElementKind::AccessNode) continue;
    if (m.data != B) return fail(path, "a reader's memlet names '" + m.data + "', not '" + B + "'");
    if ((dst->kind() == ElementKind::NestedSdfg || dst->kind() == ElementKind::LibraryNode) &&
        (!p.offset.empty() || !copy::coversAll(c.src, *p.a)))
      return fail(path, "'" + dst->label() + "' would have to read a region of '" + A + "'", "a nested SDFG's argument must be a whole array");
    scope::downstream(*st, *dst, e->dstConnector, p.inner);
  }
  for (auto* e : p.inner)
    if (!e->memlet.isEmpty() && e->memlet.data != B) return fail(path, "a memlet inside a reader names '" + e->memlet.data + "'");
  return p;
}

} // namespace

const Pattern& RedundantSecondArray::pattern() const {
  static const Pattern p = Pattern::dataflow({{"in", {ElementKind::AccessNode}}, {"out", {ElementKind::AccessNode}}}, {{0, 1}});
  return p;
}

bool RedundantSecondArray::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  return holds(b, whyNot) && holds(planRedundantSecondArray(*b, match.elements.at("out")), whyNot);
}

Expected<void> RedundantSecondArray::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto p, planRedundantSecondArray(b, match.elements.at("out")));
  auto* in = b.get<AccessNode>("in");
  auto* out = b.get<AccessNode>("out");
  State& st = *b.stateOf("in");
  Sdfg& sdfg = *owningSdfg(in);
  const std::string A = p.a->name(), B = p.b->name();
  for (auto* e : p.inner) ed.set(*e, &DataflowEdge::memlet, copy::retarget(e->memlet, B, A, p.offset));
  struct Saved {
    ElementId dst;
    std::string dstConn;
    Memlet m;
  };
  std::vector<Saved> saved;
  for (auto* e : p.readers) {
    Memlet m = e->memlet;
    Node* dst = st.node(e->dst);
    if (m.isEmpty()) {
    } else if (m.data == B) {
      m = copy::retarget(m, B, A, p.offset);
    } else if (dst->kind() == ElementKind::AccessNode) { // a copy out of B named by its destination
      Subset bSide = m.otherSubset ? *m.otherSubset : Subset::fullOf(p.b->shape);
      if (bSide.empty()) bSide = Subset::fullOf(p.b->shape);
      m.otherSubset = copy::shifted(bSide, p.offset);
    }
    saved.push_back({e->dst, e->dstConnector, m});
  }
  ed.removeNode(st, out->id());
  for (auto& s : saved) ed.addEdge(st, *in, "", *st.node(s.dst), s.dstConn, s.m);
  ed.removeData(sdfg, B);
  return {};
}

} // namespace dcw::transforms
