#include "transforms/catalogue/ConstantFolding.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/FoldConstants.h"

#include <algorithm>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

std::vector<sym::Expr> dimsOf(const Tensor& t) {
  std::vector<sym::Expr> s;
  for (auto d : t.dims) s.emplace_back(d);
  return s;
}

// Why `n` does not fold (the cases evaluateFoldable refuses, most specific first).
std::string whyNotFoldable(const Sdfg& sdfg, const State& st, const LibraryNode& n) {
  if (!n.domain.empty()) return "'" + n.className() + "' is not an op of the default ONNX domain";
  if (!n.subgraphs().empty()) return "'" + n.className() + "' has subgraphs";
  auto outs = st.outEdges(n.id());
  if (outs.size() != 1) return "the node has " + std::to_string(outs.size()) + " output edges, not one";
  auto* oa = dynamic_cast<AccessNode*>(st.node(outs[0]->dst));
  const DataDescriptor* out = oa ? sdfg.findData(oa->data()) : nullptr;
  if (!out) return "the output is not an access node";
  if (!out->transient || out->constant) return "the output '" + out->name() + "' is not a transient container";
  const bool shapeOp = n.opType == "Shape" || n.opType == "Size";
  for (auto* e : st.inEdges(n.id())) {
    auto* a = dynamic_cast<AccessNode*>(st.node(e->src));
    const DataDescriptor* d = a ? sdfg.findData(a->data()) : nullptr;
    if (!d) continue;
    if (!shapeOp && !d->constant) return "operand '" + d->name() + "' is not constant";
    if (shapeOp && !d->constant) {
      for (auto& x : d->shape)
        if (!x.isConstant()) return "operand '" + d->name() + "' has no static shape (" + d->typeString() + ")";
    }
  }
  return "'" + n.opType + "' is not one of the integer ops that fold, or its operands do not evaluate";
}

} // namespace

const Pattern& ConstantFolding::pattern() const {
  static const Pattern p = Pattern::node("node", {ElementKind::LibraryNode});
  return p;
}

bool ConstantFolding::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  const std::string& path = match.elements.at("node");
  auto* n = b->get<LibraryNode>("node");
  State* st = b->stateOf("node");
  if (!n || !st) {
    if (whyNot) whyNot->error(path, "is not a library node");
    return false;
  }
  const Sdfg& sdfg = *owningSdfg(n);
  const DataDescriptor* out = nullptr;
  auto value = evaluateFoldable(sdfg, *st, *n, &out);
  if (!value) {
    if (whyNot) whyNot->error(path, whyNotFoldable(sdfg, *st, *n), "fold the operations producing its operands first");
    return false;
  }
  const ElementId outNode = st->outEdges(n->id())[0]->dst;
  const bool reshaped = dimsOf(*value) != out->shape;
  for (State* s : sdfg.allStates()) {
    for (auto& nd : s->nodes()) {
      auto* a = dynamic_cast<AccessNode*>(nd.get());
      if (a && a->id() != outNode && a->data() == out->name() && !s->inEdges(a->id()).empty()) {
        if (whyNot) whyNot->error(path, "'" + out->name() + "' is also written elsewhere", "only a value with one producer can become a constant");
        return false;
      }
    }
    if (reshaped)
      for (auto& e : s->edges())
        if (e->memlet.data == out->name() && s->node(e->src)->kind() != ElementKind::AccessNode &&
            s->node(e->dst)->kind() != ElementKind::AccessNode) {
          if (whyNot) whyNot->error(path, "'" + out->name() + "' is indexed inside a map while its shape would change");
          return false;
        }
  }
  return true;
}

Expected<void> ConstantFolding::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* n = b.get<LibraryNode>("node");
  State& st = *b.stateOf("node");
  Sdfg& sdfg = *owningSdfg(n);
  const DataDescriptor* outc = nullptr;
  auto value = evaluateFoldable(sdfg, st, *n, &outc);
  if (!value) return fail(match.elements.at("node"), "does not fold");
  DataDescriptor& out = *sdfg.findData(outc->name());
  std::vector<sym::Expr> shape = dimsOf(*value);
  const bool reshaped = shape != out.shape;

  std::set<ElementId> neighbours;
  for (auto* e : st.inEdges(n->id())) neighbours.insert(e->src);
  for (auto* e : st.outEdges(n->id())) neighbours.insert(e->dst);
  ed.removeNode(st, n->id());

  ed.set(out, &DataDescriptor::constant, std::shared_ptr<const Tensor>(std::make_shared<const Tensor>(std::move(*value))));
  ed.set(out, &DataDescriptor::transient, false);
  if (reshaped || !out.rankKnown) {
    ed.set(out, &DataDescriptor::dataKind, shape.empty() ? DataKind::Scalar : DataKind::Array);
    ed.set(out, &DataDescriptor::strides, DataDescriptor::contiguousStrides(shape));
    ed.set(out, &DataDescriptor::shape, shape);
    ed.set(out, &DataDescriptor::rankKnown, true);
    for (State* s : sdfg.allStates())
      for (auto& e : s->edges())
        if (e->memlet.data == out.name()) ed.set(*e, &DataflowEdge::memlet, Memlet::full(out.name(), shape));
  }

  // Access nodes left without edges, then the data nothing accesses any more.
  std::set<std::string> touched;
  for (ElementId id : neighbours) {
    auto* a = dynamic_cast<AccessNode*>(st.node(id));
    if (!a || !st.inEdges(id).empty() || !st.outEdges(id).empty()) continue;
    touched.insert(a->data());
    ed.removeNode(st, id);
  }
  for (const std::string& name : touched) {
    if (std::count(sdfg.inputs.begin(), sdfg.inputs.end(), name) || std::count(sdfg.outputs.begin(), sdfg.outputs.end(), name))
      continue;
    bool used = false;
    for (State* s : sdfg.allStates())
      for (auto& nd : s->nodes())
        if (auto* a = dynamic_cast<AccessNode*>(nd.get()); a && a->data() == name) used = true;
    if (!used && sdfg.findData(name)) ed.removeData(sdfg, name);
  }
  return {};
}

} // namespace dcw::transforms
