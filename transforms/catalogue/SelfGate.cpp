#include "transforms/catalogue/SelfGate.h"

#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace dcw::transforms::selfgate {

using namespace dcw::ir;

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}
} // namespace

bool analyse(const Match& match, const Sdfg& root, const std::string& gateSlot, const std::string& gateOp,
             const std::string& activation, Plan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at(gateSlot);
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  const std::string gateName = lower(gateOp);
  p.gate = bind->get<LibraryNode>(gateSlot);
  p.s = bind->get<AccessNode>("output");
  p.mul = bind->get<LibraryNode>("mul");
  auto onnxOp = [](const LibraryNode* n, const std::string& op) { return n && !n->opaque && n->domain.empty() && n->opType == op; };
  if (!onnxOp(p.gate, gateOp)) return fail("is not an ONNX " + gateOp);
  if (!p.s) return fail("the " + gateOp + "'s result is not an access node");
  if (!onnxOp(p.mul, "Mul")) return fail("the " + gateOp + "'s result does not go to an ONNX Mul");
  const State& st = *p.gate->parent();
  const Sdfg& sdfg = *owningSdfg(p.gate);
  auto in = st.inEdges(p.gate->id());
  auto* xNode = in.size() == 1 ? dynamic_cast<const AccessNode*>(st.node(in[0]->src)) : nullptr;
  const DataDescriptor* X = xNode ? sdfg.findData(xNode->data()) : nullptr;
  if (!X) return fail("the " + gateOp + " does not read one access node");
  p.x = in[0];
  if (X->dtype != DType::Float32 && X->dtype != DType::Float64)
    return fail("x is " + std::string(dtypeName(X->dtype)) + "; " + activation + " takes float32 or float64");
  p.dtype = X->dtype;
  const DataDescriptor* S = sdfg.findData(p.s->data());
  auto sOut = st.outEdges(p.gate->id());
  if (sOut.size() != 1 || sOut[0]->dst != p.s->id()) return fail("the " + gateOp + " must have exactly one output edge");
  if (!S || !S->transient || graph::accessCount(sdfg, S->name()) != 1 || st.inEdges(p.s->id()).size() != 1 ||
      st.outEdges(p.s->id()).size() != 1 || graph::namedInControlFlow(sdfg, S->name()))
    return fail("the " + gateOp + "'s result '" + p.s->data() + "' is used by other nodes than the Mul",
                "the " + activation + " node would no longer compute it");
  // The Mul multiplies the gate by x itself.
  const DataflowEdge* a = graph::inEdge(st, *p.mul, "A");
  const DataflowEdge* b = graph::inEdge(st, *p.mul, "B");
  if (!a || !b || st.inEdges(p.mul->id()).size() != 2) return fail("the Mul does not have its two operands connected");
  const DataflowEdge* other = a->src == p.s->id() ? b : a;
  auto* oNode = dynamic_cast<const AccessNode*>(st.node(other->src));
  if (other->src == p.s->id() || !oNode || oNode->data() != X->name())
    return fail("the Mul multiplies the " + gateName + " by another tensor than its input",
                "a gate x * " + gateName + "(g) is no " + activation);
  auto out = st.outEdges(p.mul->id());
  auto* yNode = out.size() == 1 ? dynamic_cast<const AccessNode*>(st.node(out[0]->dst)) : nullptr;
  const DataDescriptor* Y = yNode ? sdfg.findData(yNode->data()) : nullptr;
  if (!Y) return fail("the Mul must have exactly one output edge, to an access node");
  if (Y->dtype != X->dtype || !epilogue::sameShape(*Y, X->shape))
    return fail("the Mul's output " + Y->typeString() + " does not have x's type " + X->typeString());
  p.y = out[0];
  return true;
}

void replace(edit::Editor& ed, const Plan& p, std::unique_ptr<LibraryNode> node, const std::string& suffix) {
  State& st = *p.gate->parent();
  Sdfg& sdfg = *owningSdfg(p.gate);
  const ElementId xNode = p.x->src, yNode = p.y->dst;
  const std::string xConn = p.x->srcConnector, yConn = p.y->dstConnector;
  const Memlet xMemlet = p.x->memlet, yMemlet = p.y->memlet;
  std::set<ElementId> read; // the Mul's x, when another access node than the gate's
  for (auto* e : st.inEdges(p.mul->id()))
    if (e->src != p.s->id() && e->src != xNode) read.insert(e->src);
  const std::string sData = p.s->data();
  const std::string& op = p.gate->opType;
  std::string label = p.gate->label();
  if (label.size() >= op.size() && label.compare(label.size() - op.size(), op.size(), op) == 0)
    label = label.substr(0, label.size() - op.size()) + suffix;
  else
    label += "_" + lower(suffix);
  node->setLabel(label);
  node->addIn(Connector{"X", p.dtype, false});
  node->addOut(Connector{"Y", p.dtype, false});
  ed.removeNode(st, p.mul->id());
  ed.removeNode(st, p.gate->id());
  ed.removeNode(st, p.s->id());
  ed.removeData(sdfg, sData);
  Node* n = ed.addNode(st, std::move(node));
  ed.addEdge(st, *st.node(xNode), xConn, *n, "X", xMemlet);
  ed.addEdge(st, *n, "Y", *st.node(yNode), yConn, yMemlet);
  epilogue::removeUnread(ed, st, read);
}

} // namespace dcw::transforms::selfgate
