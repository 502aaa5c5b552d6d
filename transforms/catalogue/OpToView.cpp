#include "transforms/catalogue/OpToView.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/WholeArray.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

bool bindOpToView(const Match& match, const Sdfg& root, const std::string& opKey, OpToView& p, Diagnostics* whyNot) {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  p.input = b->get<AccessNode>("input");
  p.op = b->get<LibraryNode>(opKey);
  p.output = b->get<AccessNode>("output");
  if (!p.input || !p.op || !p.output) {
    if (whyNot) whyNot->error(match.elements.at(opKey), "not an access node, a library node and an access node");
    return false;
  }
  return true;
}

bool checkOpToView(OpToView& p, const std::string& connector, const std::string& path, Diagnostics* whyNot) {
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.state = p.op->parent();
  p.sdfg = const_cast<Sdfg*>(owningSdfg(p.op));
  if (!p.state || !p.sdfg) return fail("the op is in no state");
  const State& st = *p.state;
  if (scope::enclosing(st, *p.op)) return fail("the op is inside a map");
  const DataflowEdge* in = p.in = graph::inEdge(st, *p.op, connector);
  if (!in || in->src != p.input->id()) return fail("its " + connector + " input does not come from '" + p.input->data() + "'");
  auto outs = st.outEdges(p.op->id());
  if (outs.size() != 1 || outs.front()->dst != p.output->id()) return fail("the op has more than one output edge");
  p.array = p.sdfg->findData(p.input->data());
  p.view = p.sdfg->findData(p.output->data());
  if (!p.array || !p.view) return fail("its input or output is not declared");
  const DataDescriptor& a = *p.array;
  const DataDescriptor& v = *p.view;
  if (a.dataKind != DataKind::Array || a.constant)
    return fail("'" + a.name() + "' is " + (a.constant ? "a constant (ConstantFolding folds it)" : "not an array (a view, stream or scalar)"));
  if (!ir::wholeArray(in->memlet, a)) return fail("the op reads part of '" + a.name() + "'");
  if (v.dataKind != DataKind::Array || !v.transient || v.constant) return fail("'" + v.name() + "' is not a transient array");
  if (!ir::wholeArray(outs.front()->memlet, v) || outs.front()->memlet.data != v.name()) return fail("the op writes part of '" + v.name() + "'");
  if (v.dtype != a.dtype) return fail("'" + v.name() + "' has another element type than '" + a.name() + "'");
  if (graph::accessCount(*p.sdfg, v.name()) != 1) return fail("'" + v.name() + "' has more than one access node");
  if (st.inEdges(p.output->id()).size() != 1) return fail("'" + v.name() + "' is written by more than the op");
  // A view shows an array, not a view: one that shows the output already keeps it an array.
  if (const DataDescriptor* rd = graph::viewJoinedTo(*p.sdfg, st, *p.output))
    return fail("'" + rd->name() + "' is a view of '" + v.name() + "', which must stay an array (a view shows an array, not a view)");
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

void applyOpToView(const OpToView& p, edit::Editor& ed) {
  State& st = *p.state;
  const ElementId input = p.input->id(), output = p.output->id();
  const std::string array = p.array->name();
  const std::vector<sym::Expr> shape = p.array->shape;
  ed.removeNode(st, p.op->id()); // with its edges
  ed.addEdge(st, *st.node(input), "", *st.node(output), "", Memlet::full(array, shape));
  ed.set(*p.view, &DataDescriptor::dataKind, DataKind::View);
}

} // namespace dcw::transforms
