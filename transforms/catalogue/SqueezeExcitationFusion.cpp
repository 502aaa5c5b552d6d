#include "transforms/catalogue/SqueezeExcitationFusion.h"

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

struct SqueezeExcitationFusionPlan {
  LibraryNode* mul = nullptr;
  AccessNode* t = nullptr;
  LibraryNode* conv = nullptr;
  const DataflowEdge* x = nullptr; // x -> Mul
  const DataflowEdge* s = nullptr; // s -> Mul
  const DataflowEdge* w = nullptr; // W -> Conv
  const DataDescriptor *X = nullptr, *T = nullptr, *W = nullptr;
};

bool isOnnxOp(const LibraryNode* n, const char* op) { return n && !n->opaque && n->domain.empty() && n->opType == op; }

int64_t groupOf(const LibraryNode& conv) {
  const Attribute* a = conv.attribute("group");
  const int64_t* v = a ? std::get_if<int64_t>(&a->value) : nullptr;
  return v ? *v : 1;
}

bool analyseSqueezeExcitationFusion(const Match& match, const Sdfg& root, SqueezeExcitationFusionPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("mul");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.mul = bind->get<LibraryNode>("mul");
  p.t = bind->get<AccessNode>("scaled");
  p.conv = bind->get<LibraryNode>("conv");
  if (!isOnnxOp(p.mul, "Mul")) return fail("is not an ONNX Mul");
  if (!p.t) return fail("the Mul's result is not an access node");
  const bool fusedConv = p.conv && !p.conv->opaque && p.conv->domain == fused::kDomain && p.conv->opType == "FusedConv";
  if (!isOnnxOp(p.conv, "Conv") && !fusedConv) return fail("the Mul's result does not go to a Conv (ONNX Conv or dcw FusedConv)");
  const State& st = *p.mul->parent();
  const Sdfg& sdfg = *owningSdfg(p.mul);
  auto dataOf = [&](const DataflowEdge* e, bool src) -> const DataDescriptor* {
    auto* an = e ? dynamic_cast<const AccessNode*>(st.node(src ? e->src : e->dst)) : nullptr;
    return an ? sdfg.findData(an->data()) : nullptr;
  };
  // The product t: written by the Mul, read as the Conv's X, nowhere else.
  p.T = sdfg.findData(p.t->data());
  auto mulOut = st.outEdges(p.mul->id());
  if (mulOut.size() != 1 || mulOut[0]->dst != p.t->id()) return fail("the Mul must have exactly one output edge, to its result");
  if (!p.T || !p.T->transient || graph::accessCount(sdfg, p.T->name()) != 1 || st.inEdges(p.t->id()).size() != 1 ||
      st.outEdges(p.t->id()).size() != 1 || graph::namedInControlFlow(sdfg, p.T->name()))
    return fail("the scaled activation '" + p.t->data() + "' is used by other nodes than the Conv",
                "it is computed only as the Conv's input; another reader still needs it");
  const DataflowEdge* toConv = st.outEdges(p.t->id())[0];
  if (toConv->dst != p.conv->id() || toConv->dstConnector != "X")
    return fail("the scaled activation is not the Conv's input X", "a scale of the weights W or the bias B is no squeeze-and-excitation");
  // The operands: x of t's shape, s the channel scale.
  const DataflowEdge* a = graph::inEdge(st, *p.mul, "A");
  const DataflowEdge* b = graph::inEdge(st, *p.mul, "B");
  if (!a || !b || st.inEdges(p.mul->id()).size() != 2) return fail("the Mul does not have its two operands connected");
  const DataDescriptor *A = dataOf(a, true), *B = dataOf(b, true);
  if (!A || !B) return fail("the Mul's operands are not access nodes");
  if (!p.T->rankKnown || p.T->shape.size() < 3) return fail("the scaled activation " + p.T->typeString() + " is not an image batch [N, C, ...]");
  const size_t r = p.T->shape.size();
  auto isScale = [&](const DataDescriptor& d) {
    if (!d.rankKnown || d.shape.size() > r || d.shape.size() < r - 1 || !d.wrappers.empty()) return false;
    const size_t lead = r - d.shape.size(); // d's dims align with the right of t's
    for (size_t k = 0; k < d.shape.size(); ++k) {
      const size_t td = k + lead;
      const sym::Expr want = td == 1 ? p.T->shape[1] : sym::Expr(1);
      if (sym::proveEqual(d.shape[k], want) != true) return false;
    }
    return true;
  };
  const bool aIsX = epilogue::sameShape(*A, p.T->shape) && isScale(*B);
  const bool bIsX = !aIsX && epilogue::sameShape(*B, p.T->shape) && isScale(*A);
  if (!aIsX && !bIsX) {
    const DataDescriptor* scale = epilogue::sameShape(*A, p.T->shape) ? B : A;
    return fail("the Mul's operands are not an activation " + p.T->typeString() + " and a scale per channel [1, " +
                    p.T->shape[1].str() + ", 1, ..] (the other operand is " + scale->typeString() + ")",
                "the scale must be the same for every image and every position: a batch above 1 gives each image its own");
  }
  p.x = aIsX ? a : b;
  p.s = aIsX ? b : a;
  p.X = aIsX ? A : B;
  const DataDescriptor* S = aIsX ? B : A;
  if (p.x->src == p.s->src) return fail("the Mul multiplies a tensor by itself");
  for (const DataDescriptor* d : {p.X, S, p.T})
    if (d->dtype != DType::Float32 && d->dtype != DType::Float64)
      return fail("'" + d->name() + "' is " + std::string(dtypeName(d->dtype)) + "; the fusion takes float32 or float64");
  if (p.X->dtype != S->dtype || p.X->dtype != p.T->dtype) return fail("the Mul's operands and result differ in dtype");
  // The Conv: group 1, W [M, C, K..] of x's rank.
  if (groupOf(*p.conv) != 1)
    return fail("the Conv has " + std::to_string(groupOf(*p.conv)) + " groups",
                "each group reads other channels: the scale would have to be regrouped with the weights");
  p.w = graph::inEdge(st, *p.conv, "W");
  p.W = dataOf(p.w, true);
  if (!p.W) return fail("the Conv's weights W are not an access node");
  if (!p.W->rankKnown || p.W->shape.size() != r || sym::proveEqual(p.W->shape[1], p.T->shape[1]) != true)
    return fail("the Conv's weights " + p.W->typeString() + " do not have the activation's " + p.T->shape[1].str() +
                " input channels at rank " + std::to_string(r));
  if (p.W->dtype != p.X->dtype) return fail("the Conv's weights have another dtype than the activation");
  return true;
}

std::optional<int64_t> elements(const DataDescriptor& d) {
  auto dims = graph::constantShape(d);
  if (!dims) return std::nullopt;
  int64_t n = 1;
  for (int64_t v : *dims) n *= v;
  return n;
}

} // namespace

const Pattern& SqueezeExcitationFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"mul", {ElementKind::LibraryNode}}, {"scaled", {ElementKind::AccessNode}}, {"conv", {ElementKind::LibraryNode}}}, {{0, 1}, {1, 2}});
  return p;
}

bool SqueezeExcitationFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  SqueezeExcitationFusionPlan p;
  return analyseSqueezeExcitationFusion(match, root, p, whyNot);
}

bool SqueezeExcitationFusion::weightsSmallerThanActivation(const Match& match, const Sdfg& root) {
  SqueezeExcitationFusionPlan p;
  if (!analyseSqueezeExcitationFusion(match, root, p, nullptr)) return false;
  auto w = elements(*p.W), t = elements(*p.T);
  return w && t && *w < *t;
}

Expected<void> SqueezeExcitationFusion::apply(const Match& match, edit::Editor& ed) const {
  SqueezeExcitationFusionPlan p;
  if (auto ok = analyseForApply(analyseSqueezeExcitationFusion, match, ed.root(), p, "mul"); !ok) return ok;
  State& st = *p.mul->parent();
  Sdfg& sdfg = *owningSdfg(p.mul);
  // What to reconnect, by id (removing nodes invalidates the edges).
  const ElementId xNode = p.x->src, sNode = p.s->src, wNode = p.w->src;
  const std::string xConn = p.x->srcConnector, sConn = p.s->srcConnector, wConn = p.w->srcConnector;
  const Memlet xMemlet = p.x->memlet, sMemlet = p.s->memlet, wMemlet = p.w->memlet;
  const ElementId wEdge = p.w->id();
  const std::string tData = p.t->data(), mulLabel = p.mul->label();
  const int64_t mulOpset = p.mul->opsetVersion;
  const DType dtype = p.W->dtype;
  const std::vector<sym::Expr> wShape = p.W->shape;
  LibraryNode& conv = *p.conv;

  auto scaled = std::make_unique<DataDescriptor>(graph::freshDataName(sdfg, p.W->name() + "_scaled"));
  scaled->dtype = dtype;
  scaled->shape = wShape;
  scaled->strides = DataDescriptor::contiguousStrides(wShape);
  scaled->transient = true;

  ed.removeNode(st, p.mul->id());
  ed.removeNode(st, p.t->id());
  ed.removeData(sdfg, tData);
  ed.removeEdge(st, wEdge);
  DataDescriptor* ws = ed.addData(sdfg, std::move(scaled));
  if (!ws) return fail(match.elements.at("mul"), "could not add the scaled weights");

  auto mul = std::make_unique<LibraryNode>(mulLabel);
  mul->domain = "";
  mul->opType = "Mul";
  mul->opsetVersion = mulOpset;
  mul->addIn(Connector{"A", dtype, false});
  mul->addIn(Connector{"B", dtype, false});
  mul->addOut(Connector{"C", dtype, false});
  Node* m = ed.addNode(st, std::move(mul));
  Node* wsNode = ed.add<AccessNode>(st, ws->name());
  ed.addEdge(st, *st.node(wNode), wConn, *m, "A", wMemlet);
  ed.addEdge(st, *st.node(sNode), sConn, *m, "B", sMemlet);
  ed.addEdge(st, *m, "C", *wsNode, "", Memlet::full(ws->name(), ws->shape));
  ed.addEdge(st, *wsNode, "", conv, "W", Memlet::full(ws->name(), ws->shape));
  ed.addEdge(st, *st.node(xNode), xConn, conv, "X", xMemlet);
  return {};
}

} // namespace dcw::transforms
