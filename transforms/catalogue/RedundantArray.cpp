#include "transforms/catalogue/RedundantArray.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/CopyTools.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct RedundantArrayPlan {
  const DataDescriptor* a = nullptr;
  const DataDescriptor* b = nullptr;
  DataflowEdge* copy = nullptr;
  DataflowEdge* producer = nullptr;
  std::vector<DataflowEdge*> inner; // memlets naming A inside the producer's map scopes
  std::vector<sym::Expr> offset;    // origin of the copy's region in B
};

Expected<RedundantArrayPlan> planRedundantArray(const Binding& b, const std::string& path) {
  DCW_TRY(auto ends, copy::resolveCopyEnds(b, path, copy::Removed::In));
  RedundantArrayPlan p;
  AccessNode* in = ends.in;
  AccessNode* out = ends.out;
  State* st = ends.st;
  const Sdfg* sdfg = ends.sdfg;
  p.a = ends.a;
  p.b = ends.b;
  const std::string A = p.a->name(), B = p.b->name();
  if (graph::accessCount(*sdfg, A) != 1) return fail(path, "'" + A + "' is accessed elsewhere too", "A must be written once and only copied");
  if (graph::namedInControlFlow(*sdfg, A)) return fail(path, "'" + A + "' is named by control flow");
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
  copy::CopySides c = copy::copySides(p.copy->memlet, *p.a, *p.b);
  if (!copy::coversAll(c.src, *p.a)) return fail(path, "the copy moves only part of '" + A + "' (" + c.src.str() + ")");
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
  if (p.a->shape.empty()) {
    if (!p.b->shape.empty() && !copy::coversAll(c.dst, *p.b)) return fail(path, "a scalar is copied into an element of '" + B + "'");
  } else {
    if (c.dst.rank() != p.a->shape.size()) return fail(path, "the copy reshapes (rank " + std::to_string(p.a->shape.size()) + " to " + std::to_string(c.dst.rank()) + ")");
    for (size_t k = 0; k < c.dst.rank(); ++k) {
      if (c.dst[k].step != sym::Expr(1)) return fail(path, "the copy writes '" + B + "' with a step");
      if (!copy::sameExpr(c.dst[k].size(), p.a->shape[k])) return fail(path, "the copy reshapes: region " + c.dst.str() + " of '" + B + "' does not match the shape of '" + A + "'");
      p.offset.push_back(c.dst[k].begin);
    }
  }
  copy::dropZeroOffset(p.offset);
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
  if (!copy::coversAll(aSide, *p.a)) return fail(path, "the producer writes only part of '" + A + "' (" + aSide.str() + ")");
  if ((src->kind() == ElementKind::NestedSdfg || src->kind() == ElementKind::LibraryNode) &&
      (!p.offset.empty() || !copy::coversAll(c.dst, *p.b)))
    return fail(path, "'" + src->label() + "' would have to write a region of '" + B + "'", "a nested SDFG's argument must be a whole array");
  scope::upstream(*st, *src, p.producer->srcConnector, p.inner);
  for (auto* e : p.inner) {
    if (!e->memlet.wcr.empty()) return fail(path, "'" + A + "' is written with write-conflict resolution inside the map");
    if (!e->memlet.isEmpty() && e->memlet.data != A) return fail(path, "a memlet inside the producer names '" + e->memlet.data + "'");
  }
  return p;
}

} // namespace

const Pattern& RedundantArray::pattern() const {
  static const Pattern p = Pattern::dataflow({{"in", {ElementKind::AccessNode}}, {"out", {ElementKind::AccessNode}}}, {{0, 1}});
  return p;
}

bool RedundantArray::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  return holds(b, whyNot) && holds(planRedundantArray(*b, match.elements.at("in")), whyNot);
}

Expected<void> RedundantArray::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto p, planRedundantArray(b, match.elements.at("in")));
  auto* in = b.get<AccessNode>("in");
  auto* out = b.get<AccessNode>("out");
  State& st = *b.stateOf("in");
  Sdfg& sdfg = *owningSdfg(in);
  const std::string A = p.a->name(), B = p.b->name();
  for (auto* e : p.inner) ed.set(*e, &DataflowEdge::memlet, copy::retarget(e->memlet, A, B, p.offset));
  DataflowEdge& pe = *p.producer;
  Memlet m = pe.memlet;
  if (m.data == A) {
    m = copy::retarget(m, A, B, p.offset);
  } else { // a copy into A named by its source: A is the other side
    Subset aSide = m.otherSubset ? *m.otherSubset : Subset::fullOf(p.a->shape);
    if (aSide.empty()) aSide = Subset::fullOf(p.a->shape);
    m.otherSubset = copy::shifted(aSide, p.offset);
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
