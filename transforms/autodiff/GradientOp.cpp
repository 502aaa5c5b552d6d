// GradientOp: ONNX's Gradient op as an autodiff request; see GradientOp.h.
#include "transforms/autodiff/GradientOp.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Path.h"
#include "transforms/autodiff/Autodiff.h"

#include <algorithm>

namespace dcw::autodiff {

using namespace dcw::ir;

namespace {

LibraryNode* findGradientNode(const Sdfg& root, State** state) {
  for (State* st : root.allStates())
    for (auto& n : st->nodes())
      if (auto* l = dynamic_cast<LibraryNode*>(n.get()); l && l->domain == "ai.onnx.preview.training" && l->opType == "Gradient") {
        *state = st;
        return l;
      }
  return nullptr;
}

ControlFlowBlock* firstSinkBlock(Sdfg& root) {
  for (auto& b : root.blocks())
    if (root.outEdges(b->id()).empty()) return b.get();
  return nullptr;
}

Expected<void> lowerOne(edit::Editor& ed, State& st, LibraryNode& node) {
  Sdfg& root = ed.root();
  const std::string where = root.name() + "/" + st.label() + "/" + node.label();
  const Attribute* xsAttr = node.attribute("xs");
  const Attribute* yAttr = node.attribute("y");
  auto* xs = xsAttr ? std::get_if<std::vector<std::string>>(&xsAttr->value) : nullptr;
  auto* y = yAttr ? std::get_if<std::string>(&yAttr->value) : nullptr;
  if (!xs || !y || xs->empty())
    return fail(where, "Gradient needs the attributes xs (strings) and y (string)", "fix the model's Gradient node");
  // Output i of the node is the gradient with respect to xs[i]: the data its edges write.
  std::vector<std::string> targets(xs->size());
  std::vector<ElementId> attached;
  for (auto* e : st.outEdges(node.id())) {
    auto& outs = node.outConnectors();
    auto it = std::find_if(outs.begin(), outs.end(), [&](const Connector& c) { return c.name == e->srcConnector; });
    auto* a = dynamic_cast<AccessNode*>(st.node(e->dst));
    if (it == outs.end() || !a) continue;
    size_t k = size_t(it - outs.begin());
    if (k < targets.size()) targets[k] = a->data();
    attached.push_back(a->id());
  }
  for (auto* e : st.inEdges(node.id())) attached.push_back(e->src);
  for (size_t k = 0; k < targets.size(); ++k)
    if (targets[k].empty()) return fail(where, "Gradient output " + std::to_string(k) + " (for '" + (*xs)[k] + "') is not used", "");

  ed.removeNode(st, node.id());
  for (ElementId id : attached)
    if (st.node(id) && st.inEdges(id).empty() && st.outEdges(id).empty()) ed.removeNode(st, id);
  // The gradients' data are written by the copies below; y must be an output for the request.
  DataDescriptor* yd = root.findData(*y);
  if (!yd) return fail(where, "Gradient's y '" + *y + "' is not a tensor of the model", "");
  const bool yWasOutput = std::find(root.outputs.begin(), root.outputs.end(), *y) != root.outputs.end();
  const bool yTransient = yd->transient;
  if (!yWasOutput) {
    ed.set(*yd, &DataDescriptor::transient, false);
    auto outs = root.outputs;
    outs.push_back(*y);
    ed.set(root, &Sdfg::outputs, outs);
  }
  Request req;
  req.of = {*y};
  req.wrt = *xs;
  auto rep = differentiate(ed, req);
  if (!rep) {
    Diagnostic d = rep.error();
    d.message = "Gradient (" + where + "): " + d.message;
    return fail(d);
  }
  ControlFlowBlock* sink = firstSinkBlock(root);
  State* copy = ed.addState(root, root.uniqueBlockLabel("gradient_outputs"));
  if (sink) ed.addInterstateEdge(root, sink->id(), copy->id());
  auto outs = root.outputs;
  for (size_t k = 0; k < targets.size(); ++k) {
    const std::string& g = rep->gradients[k];
    const DataDescriptor* gd = root.findData(g);
    const DataDescriptor* td = root.findData(targets[k]);
    auto* a = static_cast<AccessNode*>(ed.addNode(*copy, std::make_unique<AccessNode>(g)));
    auto* b = static_cast<AccessNode*>(ed.addNode(*copy, std::make_unique<AccessNode>(targets[k])));
    Memlet m = Memlet::full(g, gd->shape);
    m.otherSubset = Subset::fullOf(td->shape);
    ed.addEdge(*copy, *a, "", *b, "", m);
    outs.erase(std::remove(outs.begin(), outs.end(), g), outs.end());
    ed.set(*root.findData(g), &DataDescriptor::transient, true);
  }
  if (!yWasOutput) {
    outs.erase(std::remove(outs.begin(), outs.end(), *y), outs.end());
    ed.set(*root.findData(*y), &DataDescriptor::transient, yTransient);
  }
  ed.set(root, &Sdfg::outputs, outs);
  return {};
}

} // namespace

Expected<int> lowerGradientOps(edit::Editor& ed) {
  int n = 0;
  State* st = nullptr;
  while (LibraryNode* node = findGradientNode(ed.root(), &st)) {
    DCW_CHECK(lowerOne(ed, *st, *node));
    ++n;
  }
  return n;
}

} // namespace dcw::autodiff
