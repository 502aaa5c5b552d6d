#include "transforms/catalogue/ReshapeToView.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/View.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct Plan {
  State* state = nullptr;
  Sdfg* sdfg = nullptr;
  const AccessNode* input = nullptr;
  const LibraryNode* op = nullptr;
  const AccessNode* output = nullptr;
  DataDescriptor* view = nullptr;
  const DataDescriptor* array = nullptr;
  std::vector<ElementId> dropped; // the op's other inputs' access nodes that nothing else uses
};

// The data connector of a reshaping op ("" for an op that is not one).
std::string dataConnector(const LibraryNode& op) {
  if (!op.domain.empty() || op.opaque) return "";
  if (op.opType == "Reshape" || op.opType == "Squeeze" || op.opType == "Unsqueeze") return "data";
  if (op.opType == "Flatten") return "input";
  return "";
}

bool analyse(const Match& match, const Sdfg& root, Plan& p, Diagnostics* whyNot) {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  const std::string& path = match.elements.at("reshape");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.input = b->get<AccessNode>("input");
  p.op = b->get<LibraryNode>("reshape");
  p.output = b->get<AccessNode>("output");
  if (!p.input || !p.op || !p.output) return fail("not an access node, a library node and an access node");
  const std::string conn = dataConnector(*p.op);
  if (conn.empty()) return fail("'" + p.op->label() + "' is a " + p.op->className() + ", not a Reshape, Flatten, Squeeze or Unsqueeze");
  p.state = p.op->parent();
  p.sdfg = const_cast<Sdfg*>(owningSdfg(p.op));
  if (!p.state || !p.sdfg) return fail("the op is in no state");
  const State& st = *p.state;
  if (scope::enclosing(st, *p.op)) return fail("the op is inside a map");
  const DataflowEdge* in = graph::inEdge(st, *p.op, conn);
  if (!in || in->src != p.input->id()) return fail("its " + conn + " input does not come from '" + p.input->data() + "'");
  auto outs = st.outEdges(p.op->id());
  if (outs.size() != 1 || outs.front()->dst != p.output->id()) return fail("the op has more than one output edge");
  p.array = p.sdfg->findData(p.input->data());
  p.view = p.sdfg->findData(p.output->data());
  if (!p.array || !p.view) return fail("its input or output is not declared");
  const DataDescriptor& a = *p.array;
  DataDescriptor& v = *p.view;
  if (a.dataKind != DataKind::Array || a.constant)
    return fail("'" + a.name() + "' is " + (a.constant ? "a constant (ConstantFolding folds its reshape)" : "not an array (a view, stream or scalar)"));
  if (!rowMajor(a)) return fail("'" + a.name() + "' is not row-major (channels-last, or strided)", "its reshape reorders the elements: a copy is needed");
  if (!graph::wholeArray(in->memlet, a)) return fail("the op reads part of '" + a.name() + "'");
  if (v.dataKind != DataKind::Array || !v.transient || v.constant) return fail("'" + v.name() + "' is not a transient array");
  if (!rowMajor(v)) return fail("'" + v.name() + "' is not row-major");
  if (!graph::wholeArray(outs.front()->memlet, v) || outs.front()->memlet.data != v.name()) return fail("the op writes part of '" + v.name() + "'");
  if (v.dtype != a.dtype) return fail("'" + v.name() + "' has another element type than '" + a.name() + "'");
  if (v.totalSize() != a.totalSize())
    return fail("'" + v.name() + "' has " + v.totalSize().str() + " elements, '" + a.name() + "' " + a.totalSize().str());
  if (graph::accessCount(*p.sdfg, v.name()) != 1) return fail("'" + v.name() + "' has more than one access node");
  if (st.inEdges(p.output->id()).size() != 1) return fail("'" + v.name() + "' is written by more than the op");
  if (graph::namedInControlFlow(*p.sdfg, v.name()) || graph::namedInControlFlow(*p.sdfg, a.name()))
    return fail("control flow reads '" + v.name() + "' or '" + a.name() + "'");
  if (scope::enclosing(st, *p.input) || scope::enclosing(st, *p.output)) return fail("an access node is inside a map");
  // A must not change while B is read: no access node of A but the op's input is written.
  for (State* s : p.sdfg->allStates())
    for (auto& n : s->nodes()) {
      auto* an = dynamic_cast<const AccessNode*>(n.get());
      if (an && an->data() == a.name() && an != p.input && !s->inEdges(an->id()).empty())
        return fail("'" + a.name() + "' is written again elsewhere, so a view of it could change under its readers");
    }
  // The op's other inputs (shape, axes): their access nodes go too when the op was their only reader.
  p.dropped.clear();
  for (auto* e : st.inEdges(p.op->id())) {
    if (e == in) continue;
    auto* other = dynamic_cast<const AccessNode*>(st.node(e->src));
    if (other && st.inEdges(other->id()).empty() && st.outEdges(other->id()).size() == 1) p.dropped.push_back(other->id());
  }
  return true;
}

} // namespace

const Pattern& ReshapeToView::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"input", {ElementKind::AccessNode}}, {"reshape", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool ReshapeToView::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  Plan p;
  return analyse(match, root, p, whyNot);
}

Expected<void> ReshapeToView::apply(const Match& match, edit::Editor& ed) const {
  Plan p;
  if (auto ok = analyseForApply(analyse, match, ed.root(), p, "reshape"); !ok) return ok;
  State& st = *p.state;
  const ElementId input = p.input->id(), output = p.output->id();
  const std::string array = p.array->name();
  const std::vector<sym::Expr> shape = p.array->shape;
  ed.removeNode(st, p.op->id()); // with its edges
  for (ElementId id : p.dropped) ed.removeNode(st, id);
  ed.addEdge(st, *st.node(input), "", *st.node(output), "", Memlet::full(array, shape));
  ed.set(*p.view, &DataDescriptor::dataKind, DataKind::View);
  return {};
}

} // namespace dcw::transforms
