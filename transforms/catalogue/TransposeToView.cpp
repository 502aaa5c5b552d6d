#include "transforms/catalogue/TransposeToView.h"

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
};

// The constant values of `exprs`, or nothing when one is not a constant.
std::optional<std::vector<int64_t>> constants(const std::vector<sym::Expr>& exprs) {
  std::vector<int64_t> out;
  for (auto& e : exprs) {
    auto c = e.constantValue();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

std::string str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

bool analyse(const Match& match, const Sdfg& root, Plan& p, Diagnostics* whyNot) {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  const std::string& path = match.elements.at("transpose");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.input = b->get<AccessNode>("input");
  p.op = b->get<LibraryNode>("transpose");
  p.output = b->get<AccessNode>("output");
  if (!p.input || !p.op || !p.output) return fail("not an access node, a library node and an access node");
  if (!p.op->domain.empty() || p.op->opaque || p.op->opType != "Transpose")
    return fail("'" + p.op->label() + "' is a " + p.op->className() + ", not a Transpose");
  p.state = p.op->parent();
  p.sdfg = const_cast<Sdfg*>(owningSdfg(p.op));
  if (!p.state || !p.sdfg) return fail("the op is in no state");
  const State& st = *p.state;
  if (scope::enclosing(st, *p.op)) return fail("the op is inside a map");
  const DataflowEdge* in = graph::inEdge(st, *p.op, "data");
  if (!in || in->src != p.input->id()) return fail("its data input does not come from '" + p.input->data() + "'");
  auto outs = st.outEdges(p.op->id());
  if (outs.size() != 1 || outs.front()->dst != p.output->id()) return fail("the op has more than one output edge");
  p.array = p.sdfg->findData(p.input->data());
  p.view = p.sdfg->findData(p.output->data());
  if (!p.array || !p.view) return fail("its input or output is not declared");
  const DataDescriptor& a = *p.array;
  DataDescriptor& v = *p.view;
  if (a.dataKind != DataKind::Array || a.constant)
    return fail("'" + a.name() + "' is " + (a.constant ? "a constant (ConstantFolding folds its transpose)" : "not an array (a view, stream or scalar)"));
  if (!graph::wholeArray(in->memlet, a)) return fail("the op reads part of '" + a.name() + "'");
  if (v.dataKind != DataKind::Array || !v.transient || v.constant) return fail("'" + v.name() + "' is not a transient array");
  if (!graph::wholeArray(outs.front()->memlet, v) || outs.front()->memlet.data != v.name()) return fail("the op writes part of '" + v.name() + "'");
  if (v.dtype != a.dtype) return fail("'" + v.name() + "' has another element type than '" + a.name() + "'");
  if (a.channelBlock > 0 || v.channelBlock > 0) return fail("'" + (a.channelBlock > 0 ? a.name() : v.name()) + "' has its channels in blocks");
  const auto as = constants(a.elementStrides()), vs = constants(v.elementStrides()), ashape = constants(a.shape), vshape = constants(v.shape);
  const auto ao = a.offset.constantValue(), vo = v.offset.constantValue();
  if (!as || !vs || !ashape || !vshape || !ao || !vo || *ao != 0 || *vo != 0)
    return fail("'" + a.name() + "' or '" + v.name() + "' has a shape, strides or offset that are not known numbers");
  // The permutation: ONNX's default reverses the dims.
  const size_t rank = ashape->size();
  std::vector<int64_t> perm;
  if (const Attribute* attr = p.op->attribute("perm")) {
    const auto* ints = std::get_if<std::vector<int64_t>>(&attr->value);
    if (!ints) return fail("its perm is not a list of ints");
    perm = *ints;
  } else {
    for (size_t k = rank; k-- > 0;) perm.push_back(int64_t(k));
  }
  if (perm.size() != rank || vshape->size() != rank) return fail("its perm does not fit the ranks of '" + a.name() + "' and '" + v.name() + "'");
  for (size_t k = 0; k < rank; ++k) {
    if (perm[k] < 0 || perm[k] >= int64_t(rank)) return fail("its perm " + str(perm) + " names a dim that is not there");
    if ((*vshape)[k] != (*ashape)[size_t(perm[k])]) return fail("'" + v.name() + "' does not have the permuted shape of '" + a.name() + "'");
  }
  // Each element of B where the copy read it: B's stride in dim k is A's in dim perm[k] (a dim of
  // extent 1 has no step).
  std::vector<int64_t> want(rank);
  for (size_t k = 0; k < rank; ++k) want[k] = (*as)[size_t(perm[k])];
  for (size_t k = 0; k < rank; ++k)
    if ((*vshape)[k] > 1 && (*vs)[k] != want[k])
      return fail("'" + v.name() + "' with strides " + str(*vs) + " is not '" + a.name() + "' read in place (that needs strides " + str(want) +
                      "): the transpose reorders the elements",
                  "where its neighbours run on oneDNN, ChannelsLast first stores the NCHW side channels-last");
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
  return true;
}

} // namespace

const Pattern& TransposeToView::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"input", {ElementKind::AccessNode}}, {"transpose", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool TransposeToView::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  Plan p;
  return analyse(match, root, p, whyNot);
}

Expected<void> TransposeToView::apply(const Match& match, edit::Editor& ed) const {
  Plan p;
  if (auto ok = analyseForApply(analyse, match, ed.root(), p, "transpose"); !ok) return ok;
  State& st = *p.state;
  const ElementId input = p.input->id(), output = p.output->id();
  const std::string array = p.array->name();
  const std::vector<sym::Expr> shape = p.array->shape;
  ed.removeNode(st, p.op->id()); // with its edges
  ed.addEdge(st, *st.node(input), "", *st.node(output), "", Memlet::full(array, shape));
  ed.set(*p.view, &DataDescriptor::dataKind, DataKind::View);
  return {};
}

} // namespace dcw::transforms
