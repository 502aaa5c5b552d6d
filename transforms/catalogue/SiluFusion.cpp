#include "transforms/catalogue/SiluFusion.h"

#include "core/expansions/FusedOp.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

struct SiluFusionPlan {
  LibraryNode* sigmoid = nullptr;
  LibraryNode* mul = nullptr;
  AccessNode* s = nullptr;
  const DataflowEdge* x = nullptr; // x -> Sigmoid
  const DataflowEdge* y = nullptr; // Mul -> y
  DType dtype = DType::Undefined;
};

bool analyseSiluFusion(const Match& match, const Sdfg& root, SiluFusionPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("sigmoid");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.sigmoid = bind->get<LibraryNode>("sigmoid");
  p.s = bind->get<AccessNode>("output");
  p.mul = bind->get<LibraryNode>("mul");
  auto onnxOp = [](const LibraryNode* n, const char* op) { return n && !n->opaque && n->domain.empty() && n->opType == op; };
  if (!onnxOp(p.sigmoid, "Sigmoid")) return fail("is not an ONNX Sigmoid");
  if (!p.s) return fail("the Sigmoid's result is not an access node");
  if (!onnxOp(p.mul, "Mul")) return fail("the Sigmoid's result does not go to an ONNX Mul");
  const State& st = *p.sigmoid->parent();
  const Sdfg& sdfg = *owningSdfg(p.sigmoid);
  auto in = st.inEdges(p.sigmoid->id());
  auto* xNode = in.size() == 1 ? dynamic_cast<const AccessNode*>(st.node(in[0]->src)) : nullptr;
  const DataDescriptor* X = xNode ? sdfg.findData(xNode->data()) : nullptr;
  if (!X) return fail("the Sigmoid does not read one access node");
  p.x = in[0];
  if (X->dtype != DType::Float32 && X->dtype != DType::Float64)
    return fail("x is " + std::string(dtypeName(X->dtype)) + "; Silu takes float32 or float64");
  p.dtype = X->dtype;
  const DataDescriptor* S = sdfg.findData(p.s->data());
  auto sOut = st.outEdges(p.sigmoid->id());
  if (sOut.size() != 1 || sOut[0]->dst != p.s->id()) return fail("the Sigmoid must have exactly one output edge");
  if (!S || !S->transient || graph::accessCount(sdfg, S->name()) != 1 || st.inEdges(p.s->id()).size() != 1 ||
      st.outEdges(p.s->id()).size() != 1 || graph::namedInControlFlow(sdfg, S->name()))
    return fail("the Sigmoid's result '" + p.s->data() + "' is used by other nodes than the Mul", "the Silu node would no longer compute it");
  // The Mul multiplies the sigmoid by x itself.
  const DataflowEdge* a = graph::inEdge(st, *p.mul, "A");
  const DataflowEdge* b = graph::inEdge(st, *p.mul, "B");
  if (!a || !b || st.inEdges(p.mul->id()).size() != 2) return fail("the Mul does not have its two operands connected");
  const DataflowEdge* other = a->src == p.s->id() ? b : a;
  auto* oNode = dynamic_cast<const AccessNode*>(st.node(other->src));
  if (other->src == p.s->id() || !oNode || oNode->data() != X->name())
    return fail("the Mul multiplies the sigmoid by another tensor than its input", "a gate x * sigmoid(g) is no SiLU");
  auto out = st.outEdges(p.mul->id());
  auto* yNode = out.size() == 1 ? dynamic_cast<const AccessNode*>(st.node(out[0]->dst)) : nullptr;
  const DataDescriptor* Y = yNode ? sdfg.findData(yNode->data()) : nullptr;
  if (!Y) return fail("the Mul must have exactly one output edge, to an access node");
  if (Y->dtype != X->dtype || !epilogue::sameShape(*Y, X->shape))
    return fail("the Mul's output " + Y->typeString() + " does not have x's type " + X->typeString());
  p.y = out[0];
  return true;
}

} // namespace

const Pattern& SiluFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"sigmoid", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}, {"mul", {ElementKind::LibraryNode}}}, {{0, 1}, {1, 2}});
  return p;
}

bool SiluFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  SiluFusionPlan p;
  return analyseSiluFusion(match, root, p, whyNot);
}

Expected<void> SiluFusion::apply(const Match& match, edit::Editor& ed) const {
  SiluFusionPlan p;
  if (auto ok = analyseForApply(analyseSiluFusion, match, ed.root(), p, "sigmoid"); !ok) return ok;
  State& st = *p.sigmoid->parent();
  Sdfg& sdfg = *owningSdfg(p.sigmoid);
  const ElementId xNode = p.x->src, yNode = p.y->dst;
  const std::string xConn = p.x->srcConnector, yConn = p.y->dstConnector;
  const Memlet xMemlet = p.x->memlet, yMemlet = p.y->memlet;
  std::set<ElementId> read; // the Mul's x, when another access node than the Sigmoid's
  for (auto* e : st.inEdges(p.mul->id()))
    if (e->src != p.s->id() && e->src != xNode) read.insert(e->src);
  const std::string sData = p.s->data();
  std::string label = p.sigmoid->label();
  if (label.size() >= 7 && label.compare(label.size() - 7, 7, "Sigmoid") == 0) label = label.substr(0, label.size() - 7) + "Silu";
  else label += "_silu";
  auto silu = std::make_unique<LibraryNode>(label);
  silu->domain = fused::kDomain;
  silu->opType = fused::kSilu;
  silu->opsetVersion = 1;
  silu->addIn(Connector{"X", p.dtype, false});
  silu->addOut(Connector{"Y", p.dtype, false});
  ed.removeNode(st, p.mul->id());
  ed.removeNode(st, p.sigmoid->id());
  ed.removeNode(st, p.s->id());
  ed.removeData(sdfg, sData);
  Node* n = ed.addNode(st, std::move(silu));
  ed.addEdge(st, *st.node(xNode), xConn, *n, "X", xMemlet);
  ed.addEdge(st, *n, "Y", *st.node(yNode), yConn, yMemlet);
  epilogue::removeUnread(ed, st, read);
  return {};
}

} // namespace dcw::transforms
