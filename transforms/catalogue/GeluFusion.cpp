#include "transforms/catalogue/GeluFusion.h"

#include "core/expansions/FusedOp.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

#include <cmath>
#include <functional>
#include <optional>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

struct GeluFusionPlan {
  std::vector<const LibraryNode*> ops;  // the chain's ops
  std::vector<ElementId> intermediates; // access nodes of the transients between them
  const DataflowEdge* x = nullptr;      // the edge x -> the scaling op
  const DataflowEdge* y = nullptr;      // the last op's output edge
  std::string xData;
  std::string label;
};

// Follows and checks the chain from the matched scaling op.
class Walk {
public:
  Walk(const State& st, const Sdfg& sdfg, GeluFusionPlan& plan, const std::function<bool(const std::string&, const std::string&)>& fail)
      : st_(st), sdfg_(sdfg), plan_(plan), fail_(fail) {}

  bool run(const LibraryNode* scale, const AccessNode* scaled, const LibraryNode* erf) {
    // x / sqrt(2), or x * (1 / sqrt(2)).
    if (!onnxOp(scale, "Div") && !onnxOp(scale, "Mul")) return fail("is not an ONNX Div or Mul");
    const bool div = scale->opType == "Div";
    auto [sa, sb] = operands(scale);
    if (!sa || !sb) return fail("the " + scale->opType + " does not have its two operands connected");
    const double want = div ? std::sqrt(2.0) : 1 / std::sqrt(2.0);
    const DataflowEdge* xEdge = nullptr;
    if (near(constant(sb), want)) xEdge = sa;
    else if (!div && near(constant(sa), want)) xEdge = sb;
    else return fail(std::string("the ") + (div ? "Div is not by sqrt(2)" : "Mul is not by 1/sqrt(2)"));
    auto* xNode = dynamic_cast<const AccessNode*>(st_.node(xEdge->src));
    const DataDescriptor* X = xNode ? sdfg_.findData(xNode->data()) : nullptr;
    if (!X) return fail("x is not an access node");
    if (X->dtype != DType::Float32 && X->dtype != DType::Float64) return fail("x is " + std::string(dtypeName(X->dtype)) + "; Gelu takes float32 or float64");
    plan_.x = xEdge;
    plan_.xData = X->name();
    plan_.ops = {scale};
    if (!intermediate(scale, scaled, erf)) return false;
    // erf(.) + 1
    if (!onnxOp(erf, "Erf") || st_.inEdges(erf->id()).size() != 1) return fail("the scaled value does not go to an ONNX Erf alone");
    plan_.ops.push_back(erf);
    plan_.label = erf->label();
    const LibraryNode* add = next(erf);
    if (!add) return false;
    if (!onnxOp(add, "Add")) return fail("the Erf's result does not go to an ONNX Add");
    if (!near(constant(other(add, plan_.intermediates.back())), 1.0)) return fail("the Add does not add 1 to the Erf's result");
    plan_.ops.push_back(add);
    const LibraryNode* m1 = next(add);
    if (!m1) return false;
    if (!onnxOp(m1, "Mul")) return fail("1 + erf(.) does not go to an ONNX Mul");
    plan_.ops.push_back(m1);
    const DataflowEdge* o = other(m1, plan_.intermediates.back());
    if (!o) return fail("the Mul does not have two operands");
    const LibraryNode* last = m1;
    if (isX(o)) { // Mul(x, a) -> Mul(., 0.5)
      const LibraryNode* m2 = last = next(m1);
      if (!m2) return false;
      if (!onnxOp(m2, "Mul") || !near(constant(other(m2, plan_.intermediates.back())), 0.5))
        return fail("x (1 + erf(.)) is not halved by a Mul with 0.5");
      plan_.ops.push_back(m2);
    } else if (near(constant(o), 0.5)) { // Mul(a, 0.5) -> Mul(x, .)
      const LibraryNode* m2 = last = next(m1);
      if (!m2) return false;
      if (!onnxOp(m2, "Mul") || !isX(other(m2, plan_.intermediates.back())))
        return fail("(1 + erf(.)) / 2 is not multiplied by x");
      plan_.ops.push_back(m2);
    } else { // Mul(x, 0.5) -> h; Mul(h, a)
      auto* h = dynamic_cast<const AccessNode*>(st_.node(o->src));
      auto in = h ? st_.inEdges(h->id()) : std::vector<DataflowEdge*>{};
      const LibraryNode* m0 = in.size() == 1 ? dynamic_cast<const LibraryNode*>(st_.node(in[0]->src)) : nullptr;
      if (!m0 || !onnxOp(m0, "Mul")) return fail("1 + erf(.) is not multiplied by x, by 0.5 or by x / 2");
      auto [ha, hb] = operands(m0);
      if (!ha || !hb || !((isX(ha) && near(constant(hb), 0.5)) || (isX(hb) && near(constant(ha), 0.5))))
        return fail("1 + erf(.) is not multiplied by x / 2");
      if (!intermediate(m0, h, m1)) return false;
      plan_.ops.push_back(m0);
    }
    // y: x's type and shape.
    auto out = st_.outEdges(last->id());
    if (out.size() != 1) return fail("the last Mul must have exactly one output edge");
    auto* yNode = dynamic_cast<const AccessNode*>(st_.node(out[0]->dst));
    const DataDescriptor* Y = yNode ? sdfg_.findData(yNode->data()) : nullptr;
    if (!Y) return fail("the result is not an access node");
    if (Y->dtype != X->dtype || !epilogue::sameShape(*Y, X->shape))
      return fail("the result " + Y->typeString() + " does not have x's type " + X->typeString(), "a constant broadcasts x");
    plan_.y = out[0];
    return true;
  }

private:
  static bool onnxOp(const LibraryNode* n, const char* op) { return n && !n->opaque && n->domain.empty() && n->opType == op; }

  std::pair<const DataflowEdge*, const DataflowEdge*> operands(const LibraryNode* n) const {
    if (st_.inEdges(n->id()).size() != 2) return {nullptr, nullptr};
    return {graph::inEdge(st_, *n, "A"), graph::inEdge(st_, *n, "B")};
  }

  // The operand of binary `n` that is not the access node `not_`.
  const DataflowEdge* other(const LibraryNode* n, ElementId not_) const {
    auto [a, b] = operands(n);
    if (!a || !b) return nullptr;
    if (a->src == not_ && b->src != not_) return b;
    if (b->src == not_ && a->src != not_) return a;
    return nullptr;
  }

  bool isX(const DataflowEdge* e) const {
    auto* an = e ? dynamic_cast<const AccessNode*>(st_.node(e->src)) : nullptr;
    return an && an->data() == plan_.xData;
  }

  std::optional<double> constant(const DataflowEdge* e) const { return graph::scalarConstant(sdfg_, st_, e); }

  static bool near(std::optional<double> v, double want) { return v && std::abs(*v - want) <= 1e-6 * std::abs(want); }

  // `node` is a transient written by `from` alone and read by `to` alone.
  bool intermediate(const LibraryNode* from, const AccessNode* node, const LibraryNode* to) {
    const DataDescriptor* d = node ? sdfg_.findData(node->data()) : nullptr;
    if (!d) return fail("an intermediate of the chain is not an access node");
    auto out = st_.outEdges(from->id());
    if (out.size() != 1 || out[0]->dst != node->id()) return fail("the " + from->opType + " must have exactly one output edge");
    if (!d->transient || graph::accessCount(sdfg_, d->name()) != 1 || st_.inEdges(node->id()).size() != 1 ||
        st_.outEdges(node->id()).size() != 1 || st_.outEdges(node->id())[0]->dst != to->id() || graph::namedInControlFlow(sdfg_, d->name()))
      return fail("the " + from->opType + "'s result '" + d->name() + "' is used elsewhere", "the Gelu node would no longer compute it");
    plan_.intermediates.push_back(node->id());
    return true;
  }

  // The op that alone reads the one result of `from` (recorded as an intermediate).
  const LibraryNode* next(const LibraryNode* from) {
    auto out = st_.outEdges(from->id());
    auto* node = out.size() == 1 ? dynamic_cast<const AccessNode*>(st_.node(out[0]->dst)) : nullptr;
    auto reads = node ? st_.outEdges(node->id()) : std::vector<DataflowEdge*>{};
    auto* to = reads.size() == 1 ? dynamic_cast<const LibraryNode*>(st_.node(reads[0]->dst)) : nullptr;
    if (!to) {
      fail("the " + from->opType + "'s result does not go to one library node alone");
      return nullptr;
    }
    return intermediate(from, node, to) ? to : nullptr;
  }

  bool fail(const std::string& message, const std::string& hint = {}) const { return fail_(message, hint); }

  const State& st_;
  const Sdfg& sdfg_;
  GeluFusionPlan& plan_;
  const std::function<bool(const std::string&, const std::string&)>& fail_;
};

bool analyseGeluFusion(const Match& match, const Sdfg& root, GeluFusionPlan& plan, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("scale");
  std::function<bool(const std::string&, const std::string&)> fail = [&](const std::string& msg, const std::string& hint) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  auto* scale = bind->get<LibraryNode>("scale");
  auto* scaled = bind->get<AccessNode>("scaled");
  auto* erf = bind->get<LibraryNode>("erf");
  if (!scale || !scaled || !erf) return fail("is not a library node followed by its result and another library node", "");
  plan = GeluFusionPlan{};
  Walk w(*scale->parent(), *owningSdfg(scale), plan, fail);
  return w.run(scale, scaled, erf);
}

} // namespace

const Pattern& GeluFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"scale", {ElementKind::LibraryNode}}, {"scaled", {ElementKind::AccessNode}}, {"erf", {ElementKind::LibraryNode}}}, {{0, 1}, {1, 2}});
  return p;
}

bool GeluFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  GeluFusionPlan plan;
  return analyseGeluFusion(match, root, plan, whyNot);
}

Expected<void> GeluFusion::apply(const Match& match, edit::Editor& ed) const {
  GeluFusionPlan plan;
  if (auto ok = analyseForApply(analyseGeluFusion, match, ed.root(), plan, "scale"); !ok) return ok;
  State& st = *plan.ops.front()->parent();
  Sdfg& sdfg = *owningSdfg(&st);
  const ElementId xNode = plan.x->src, yNode = plan.y->dst;
  const std::string xConn = plan.x->srcConnector, yConn = plan.y->dstConnector;
  const Memlet xMemlet = plan.x->memlet, yMemlet = plan.y->memlet;
  const DType t = sdfg.findData(plan.xData)->dtype;
  // Operands the chain read besides x and its own intermediates: the constants.
  std::set<ElementId> read;
  std::vector<ElementId> ops;
  for (auto* op : plan.ops) {
    ops.push_back(op->id());
    for (auto* e : st.inEdges(op->id()))
      if (e->src != xNode && std::find(plan.intermediates.begin(), plan.intermediates.end(), e->src) == plan.intermediates.end())
        read.insert(e->src);
  }
  std::vector<std::string> transients;
  for (ElementId id : plan.intermediates) transients.push_back(static_cast<AccessNode*>(st.node(id))->data());

  std::string label = plan.label;
  if (label.size() >= 3 && label.compare(label.size() - 3, 3, "Erf") == 0) label = label.substr(0, label.size() - 3) + "Gelu";
  else label += "_gelu";
  auto gelu = std::make_unique<LibraryNode>(label);
  gelu->domain = fused::kDomain;
  gelu->opType = fused::kGelu;
  gelu->opsetVersion = 1;
  gelu->addIn(Connector{"X", t, false});
  gelu->addOut(Connector{"Y", t, false});
  for (ElementId id : ops) ed.removeNode(st, id);
  for (ElementId id : plan.intermediates) ed.removeNode(st, id);
  for (auto& d : transients) ed.removeData(sdfg, d);
  Node* g = ed.addNode(st, std::move(gelu));
  ed.addEdge(st, *st.node(xNode), xConn, *g, "X", xMemlet);
  ed.addEdge(st, *g, "Y", *st.node(yNode), yConn, yMemlet);
  epilogue::removeUnread(ed, st, read);
  return {};
}

} // namespace dcw::transforms
