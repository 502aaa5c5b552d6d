#include "transforms/catalogue/ChannelShuffleFusion.h"

#include "core/edit/Editor.h"
#include "core/expansions/FusedOp.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/WholeArray.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

struct ChannelShuffleFusionPlan {
  State* state = nullptr;
  Sdfg* sdfg = nullptr;
  LibraryNode* concat = nullptr;
  std::vector<ElementId> removed;   // T, the Reshape, U, the Transpose, V, the Reshape (access nodes and ops)
  std::vector<std::string> data;    // T, U, V
  ElementId output = 0;             // Y's access node
  std::string outputConnector;      // the connector of Y's access node the last Reshape wrote into ("")
  Memlet outputMemlet;
  DType dtype = DType::Float32;
};

bool analyseChannelShuffleFusion(const Match& match, const Sdfg& root, ChannelShuffleFusionPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("concat");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.concat = bind->get<LibraryNode>("concat");
  if (!p.concat) return fail("not a library node");
  const LibraryNode& c = *p.concat;
  if (c.opaque || !c.domain.empty() || c.opType != "Concat") return fail("not a Concat (a " + c.className() + ")");
  if (!c.implementation.empty() && c.implementation != "pure" && c.implementation != "onednn")
    return fail("the Concat has implementation '" + c.implementation + "', which the fused node lacks", "the fused node has pure and onednn");
  p.state = c.parent();
  p.sdfg = const_cast<Sdfg*>(owningSdfg(&c));
  if (!p.state || !p.sdfg) return fail("the Concat is in no state");
  const State& st = *p.state;
  const Sdfg& sdfg = *p.sdfg;
  if (scope::enclosing(st, c)) return fail("the Concat is inside a map");

  // The pieces: K >= 2 whole arrays of one shape [N, C, ..], C known.
  std::vector<sym::Expr> piece;
  size_t K = 0;
  for (auto* e : st.inEdges(c.id())) {
    if (!fused::isConcatPiece(e->dstConnector)) return fail("the Concat reads '" + e->dstConnector + "', which is no piece");
    auto* an = dynamic_cast<const AccessNode*>(st.node(e->src));
    const DataDescriptor* d = an ? sdfg.findData(an->data()) : nullptr;
    if (!d || !ir::wholeArray(e->memlet, *d)) return fail("piece '" + e->dstConnector + "' is not the whole of an array");
    if (K == 0) piece = d->shape;
    else if (!(d->shape == piece)) return fail("the pieces differ in shape ('" + e->dstConnector + "' is " + d->typeString() + ")");
    ++K;
  }
  if (K < 2) return fail("the Concat has fewer than two pieces");
  if (piece.size() < 2 || !piece[1].constantValue()) return fail("the pieces have no known channel dim (dim 1)");

  // Follows the chain: an access node written by `from` alone and read by one library node alone, as its `conn`.
  auto step = [&](const Node& from, const std::string& what, const DataDescriptor*& d, const AccessNode*& an) -> const LibraryNode* {
    auto refuse = [&](const std::string& msg) -> const LibraryNode* {
      fail(msg);
      d = nullptr;
      return nullptr;
    };
    auto outs = st.outEdges(from.id());
    if (outs.size() != 1) return refuse("'" + from.label() + "' has more than one output edge");
    an = dynamic_cast<const AccessNode*>(st.node(outs[0]->dst));
    d = an ? sdfg.findData(an->data()) : nullptr;
    if (!d) return refuse("'" + from.label() + "' writes no array");
    if (!ir::wholeArray(outs[0]->memlet, *d) || outs[0]->memlet.data != d->name())
      return refuse("'" + from.label() + "' writes part of '" + d->name() + "'");
    if (what.empty()) return nullptr; // the end of the chain: Y
    if (d->dataKind != DataKind::Array || !d->transient || d->constant)
      return refuse("'" + d->name() + "' is not a transient array");
    if (graph::accessCount(sdfg, d->name()) != 1 || st.inEdges(an->id()).size() != 1 || st.outEdges(an->id()).size() != 1)
      return refuse("'" + d->name() + "' is accessed elsewhere, or read by more than the " + what);
    if (graph::namedInControlFlow(sdfg, d->name())) return refuse("control flow names '" + d->name() + "'");
    const DataflowEdge* next = st.outEdges(an->id())[0];
    auto* op = dynamic_cast<const LibraryNode*>(st.node(next->dst));
    if (!op || op->opaque || !op->domain.empty() || op->opType != what || next->dstConnector != "data" || !ir::wholeArray(next->memlet, *d))
      return refuse("'" + d->name() + "' is not the whole data input of a " + what);
    if (!op->implementation.empty() && op->implementation != "pure")
      return refuse("the " + what + " '" + op->label() + "' has implementation '" + op->implementation + "'");
    return op;
  };
  const DataDescriptor *t = nullptr, *u = nullptr, *v = nullptr, *y = nullptr;
  const AccessNode *tn = nullptr, *un = nullptr, *vn = nullptr, *yn = nullptr;
  const LibraryNode* split = step(c, "Reshape", t, tn);
  if (!split) return false;
  const LibraryNode* transpose = step(*split, "Transpose", u, un);
  if (!transpose) return false;
  const LibraryNode* merge = step(*transpose, "Reshape", v, vn);
  if (!merge) return false;
  step(*merge, "", y, yn);
  if (!y) return false;
  if (st.inEdges(yn->id()).size() != 1) return fail("'" + y->name() + "' is written by more than the last Reshape");

  // Shapes: T [N, K C, ..], U [N, K, C, ..], V [N, C, K, ..], Y as T; the Transpose swaps dims 1 and 2.
  const sym::Expr k{static_cast<int64_t>(K)}, C = piece[1];
  std::vector<sym::Expr> joined = piece, grouped = piece, swapped = piece;
  joined[1] = C * k;
  grouped.insert(grouped.begin() + 1, k);
  swapped.insert(swapped.begin() + 2, k);
  if (!(t->shape == joined)) return fail("the concatenation '" + t->name() + "' is not the pieces joined along the channels");
  if (!(u->shape == grouped))
    return fail("the first Reshape does not split the " + (C * k).str() + " channels into " + std::to_string(K) + " groups of " + C.str() +
                " (it makes " + u->typeString() + ")", "a shuffle into as many groups as there are pieces");
  std::vector<int64_t> perm;
  if (auto* a = transpose->attribute("perm"); a && std::get_if<std::vector<int64_t>>(&a->value)) perm = *std::get_if<std::vector<int64_t>>(&a->value);
  std::vector<int64_t> swap;
  for (size_t d = 0; d < grouped.size(); ++d) swap.push_back(d == 1 ? 2 : d == 2 ? 1 : int64_t(d));
  if (perm != swap) return fail("the Transpose does not swap the groups and the channels (dims 1 and 2) alone");
  if (!(v->shape == swapped)) return fail("'" + v->name() + "' is not " + u->name() + " with dims 1 and 2 swapped");
  if (!(y->shape == joined)) return fail("the last Reshape does not merge the channels back (it makes " + y->typeString() + ")");
  if (t->dtype != y->dtype) return fail("'" + y->name() + "' has another element type than '" + t->name() + "'");

  p.removed = {tn->id(), split->id(), un->id(), transpose->id(), vn->id(), merge->id()};
  // The Reshapes' shape inputs go with them when nothing else reads them.
  for (const LibraryNode* r : {split, merge})
    for (auto* e : st.inEdges(r->id())) {
      if (e->dstConnector == "data") continue;
      auto* other = dynamic_cast<const AccessNode*>(st.node(e->src));
      if (other && st.inEdges(other->id()).empty() && st.outEdges(other->id()).size() == 1) p.removed.push_back(other->id());
    }
  p.data = {t->name(), u->name(), v->name()};
  const DataflowEdge* toY = st.inEdges(yn->id())[0];
  p.output = yn->id();
  p.outputConnector = toY->dstConnector;
  p.outputMemlet = toY->memlet;
  p.dtype = y->dtype;
  return true;
}

} // namespace

const Pattern& ChannelShuffleFusion::pattern() const {
  static const Pattern p = Pattern::node("concat", {ElementKind::LibraryNode});
  return p;
}

bool ChannelShuffleFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  ChannelShuffleFusionPlan p;
  return analyseChannelShuffleFusion(match, root, p, whyNot);
}

Expected<void> ChannelShuffleFusion::apply(const Match& match, edit::Editor& ed) const {
  ChannelShuffleFusionPlan p;
  if (auto ok = analyseForApply(analyseChannelShuffleFusion, match, ed.root(), p, "concat"); !ok) return ok;
  State& st = *p.state;
  LibraryNode& c = *p.concat;
  for (ElementId id : p.removed) ed.removeNode(st, id); // with their edges
  for (const std::string& d : p.data) ed.removeData(*p.sdfg, d);
  ed.removeOutConnector(c, "concat_result");
  ed.addOutConnector(c, Connector{"Y", p.dtype, false});
  ed.addEdge(st, c, "Y", *st.node(p.output), p.outputConnector, p.outputMemlet);
  ed.set(c, &LibraryNode::domain, std::string(fused::kDomain));
  ed.set(c, &LibraryNode::opType, std::string(fused::kShuffledConcat));
  ed.set(c, &LibraryNode::opsetVersion, int64_t(1));
  ed.set(c, &LibraryNode::attributes, std::vector<Attribute>{});
  return {};
}

} // namespace dcw::transforms
