#include "transforms/catalogue/ConcatBatchNormFusion.h"

#include "core/edit/Editor.h"
#include "core/expansions/FusedOp.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

constexpr const char* kParams[] = {"scale", "B", "input_mean", "input_var"};

struct ConcatBatchNormFusionPlan {
  LibraryNode* concat = nullptr;
  AccessNode* output = nullptr;
  LibraryNode* norm = nullptr;
  const DataflowEdge* normOut = nullptr;
  std::string implementation; // the fused node's: the one both nodes agree on ("" when neither chose)
  double epsilon = 1e-5;
  bool relu = false;
};

bool analyseConcatBatchNormFusion(const Match& match, const Sdfg& root, ConcatBatchNormFusionPlan& plan, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("producer");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  plan.concat = bind->get<LibraryNode>("producer");
  plan.output = bind->get<AccessNode>("output");
  plan.norm = bind->get<LibraryNode>("norm");
  if (!plan.concat || !plan.output || !plan.norm) return fail("not a library node writing an array that a library node reads");
  const LibraryNode& c = *plan.concat;
  const LibraryNode& n = *plan.norm;
  if (c.opaque || !c.domain.empty() || c.opType != "Concat") return fail("not a Concat (a " + c.className() + ")");
  const State& st = *c.parent();
  const Sdfg& sdfg = *owningSdfg(&c);
  const DataDescriptor* t = sdfg.findData(plan.output->data());
  if (!t) return fail("its output '" + plan.output->data() + "' is not declared");
  const int64_t rank = int64_t(t->shape.size());
  int64_t axis = 0;
  if (auto* a = c.attribute("axis"); a && std::get_if<int64_t>(&a->value)) axis = *std::get_if<int64_t>(&a->value);
  if (axis < 0) axis += rank;
  if (rank < 2 || axis != 1) return fail("the Concat is along axis " + std::to_string(axis) + ", not the channels (axis 1)",
                                          "a batch normalization's parameters are per channel");
  for (auto* e : st.inEdges(c.id())) {
    if (!fused::isConcatPiece(e->dstConnector)) return fail("the Concat reads '" + e->dstConnector + "', which is no piece");
    auto* an = dynamic_cast<const AccessNode*>(st.node(e->src));
    const DataDescriptor* d = an ? sdfg.findData(an->data()) : nullptr;
    if (!d || d->dtype != DType::Float32) return fail("piece '" + e->dstConnector + "' is not a float32 array");
  }
  // T: a float32 transient the Concat alone writes and the normalization's X alone reads.
  if (!t->transient || t->dtype != DType::Float32) return fail("the concatenation '" + t->name() + "' is not a float32 transient");
  if (graph::accessCount(sdfg, t->name()) != 1) return fail("the concatenation '" + t->name() + "' is accessed in more than one place");
  if (st.inEdges(plan.output->id()).size() != 1 || st.outEdges(plan.output->id()).size() != 1)
    return fail("the concatenation '" + t->name() + "' has other writers or readers than the Concat and the normalization");
  const DataflowEdge* toNorm = st.outEdges(plan.output->id())[0];
  if (toNorm->dst != n.id() || toNorm->dstConnector != "X") return fail("the concatenation is not the normalization's X");
  // The normalization: inference, its four parameters connected, Relu or no activation.
  const bool isFused = n.domain == fused::kDomain && n.opType == "FusedBatchNormalization";
  if (n.opaque || !(isFused || (n.domain.empty() && n.opType == "BatchNormalization")))
    return fail("the concatenation goes to a " + n.className() + ", not a BatchNormalization");
  if (auto* a = n.attribute("training_mode"); a && std::get_if<int64_t>(&a->value) && *std::get_if<int64_t>(&a->value) != 0)
    return fail("the BatchNormalization trains (training_mode=1)", "only an inference normalization folds into the copy");
  for (const char* p : kParams)
    if (!graph::inEdge(st, n, p)) return fail(std::string("the BatchNormalization's '") + p + "' is not connected");
  for (auto* e : st.inEdges(n.id()))
    if (e->dstConnector != "X" && std::find(std::begin(kParams), std::end(kParams), e->dstConnector) == std::end(kParams))
      return fail("the " + n.opType + " reads '" + e->dstConnector + "'", "a normalization with Z does not fold into the copy");
  if (isFused) {
    auto ep = fused::epilogueOf(n, false, path);
    if (!ep) return fail(ep.error().message);
    if (ep->activation && ep->activation->op != "Relu")
      return fail("the FusedBatchNormalization ends with " + ep->activation->op + "; the fused node takes Relu or nothing");
    plan.relu = ep->activation != nullptr;
  }
  if (auto* a = n.attribute("epsilon"); a && std::get_if<double>(&a->value)) plan.epsilon = *std::get_if<double>(&a->value);
  const auto outs = st.outEdges(n.id());
  if (outs.size() != 1 || outs[0]->srcConnector != "Y" || !dynamic_cast<const AccessNode*>(st.node(outs[0]->dst)))
    return fail("the normalization has other outputs than Y, or Y does not go to one array");
  plan.normOut = outs[0];
  // Implementations: the fused op has pure and onednn; the two nodes' choices must agree.
  for (const LibraryNode* x : {&c, &n}) {
    if (x->implementation.empty()) continue;
    if (x->implementation != "pure" && x->implementation != "onednn")
      return fail("the " + x->opType + " has implementation '" + x->implementation + "', which the fused node lacks",
                  "the fused node has pure and onednn");
    if (!plan.implementation.empty() && plan.implementation != x->implementation)
      return fail("the Concat (" + c.implementation + ") and the normalization (" + n.implementation + ") have different implementations");
    plan.implementation = x->implementation;
  }
  return true;
}

} // namespace

const Pattern& ConcatBatchNormFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"producer", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}, {"norm", {ElementKind::LibraryNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool ConcatBatchNormFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  ConcatBatchNormFusionPlan plan;
  return analyseConcatBatchNormFusion(match, root, plan, whyNot);
}

Expected<void> ConcatBatchNormFusion::apply(const Match& match, edit::Editor& ed) const {
  ConcatBatchNormFusionPlan plan;
  if (auto ok = analyseForApply(analyseConcatBatchNormFusion, match, ed.root(), plan, "producer"); !ok) return ok;
  LibraryNode& c = *plan.concat;
  State& st = *c.parent();
  Sdfg& sdfg = *owningSdfg(&c);
  const ElementId yNode = plan.normOut->dst;
  const std::string yConn = plan.normOut->dstConnector;
  const Memlet yMemlet = plan.normOut->memlet;
  // The normalization's parameters now go to the fused node, under the same connector names.
  for (const char* p : kParams) {
    const DataflowEdge* e = graph::inEdge(st, *plan.norm, p);
    const ElementId src = e->src;
    const std::string srcConn = e->srcConnector;
    const Memlet m = e->memlet;
    ed.addInConnector(c, Connector{p, DType::Float32, false});
    ed.addEdge(st, *st.node(src), srcConn, c, p, m);
  }
  const std::string tData = plan.output->data();
  ed.removeNode(st, plan.norm->id());
  ed.removeNode(st, plan.output->id());
  ed.removeData(sdfg, tData);
  ed.removeOutConnector(c, "concat_result");
  ed.addOutConnector(c, Connector{"Y", DType::Float32, false});
  ed.addEdge(st, c, "Y", *st.node(yNode), yConn, yMemlet);
  ed.set(c, &LibraryNode::domain, std::string(fused::kDomain));
  ed.set(c, &LibraryNode::opType, std::string(fused::kConcatBatchNorm));
  ed.set(c, &LibraryNode::opsetVersion, int64_t(1));
  ed.set(c, &LibraryNode::implementation, plan.implementation);
  std::vector<Attribute> attrs{Attribute{"epsilon", plan.epsilon}};
  if (plan.relu) attrs.push_back(Attribute{"activation", std::string("Relu")});
  ed.set(c, &LibraryNode::attributes, std::move(attrs));
  return {};
}

} // namespace dcw::transforms
