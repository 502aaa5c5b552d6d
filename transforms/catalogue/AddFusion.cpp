#include "transforms/catalogue/AddFusion.h"

#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

struct AddFusionPlan {
  epilogue::Producer p;
  const DataflowEdge* z = nullptr; // the Add's other operand
};

bool analyseAddFusion(const Match& match, const Sdfg& root, AddFusionPlan& plan, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  if (!epilogue::analyse(*bind, match, "producer", "output", "add", plan.p, whyNot)) return false;
  const std::string& path = match.elements.at("producer");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  const LibraryNode& add = *plan.p.consumer;
  const LibraryNode& prod = *plan.p.node;
  if (add.opaque || !add.domain.empty() || add.opType != "Add")
    return fail("the " + prod.opType + "'s result goes to " + add.className() + ", not to an ONNX Add");
  if (plan.p.epilogue.activation)
    return fail("the " + prod.opType + " already ends with " + plan.p.epilogue.activation->op,
                "the fused op adds Z before its activation; this Add comes after it");
  if (plan.p.epilogue.hasZ) return fail("the " + prod.opType + " already adds a Z", "a fused op adds one tensor");
  const State& st = *add.parent();
  const Sdfg& sdfg = *owningSdfg(&add);
  const DataflowEdge* a = graph::inEdge(st, add, "A");
  const DataflowEdge* b = graph::inEdge(st, add, "B");
  if (!a || !b || st.inEdges(add.id()).size() != 2) return fail("the Add does not have its two inputs A and B connected");
  if (a->src == plan.p.output->id() && b->src == plan.p.output->id()) return fail("the Add adds the result to itself");
  plan.z = a->src == plan.p.output->id() ? b : a;
  auto* zNode = dynamic_cast<const AccessNode*>(st.node(plan.z->src));
  const DataDescriptor* Z = zNode ? sdfg.findData(zNode->data()) : nullptr;
  if (!Z) return fail("the Add's other operand is not an access node");
  const DataDescriptor* T = sdfg.findData(plan.p.output->data());
  if (Z->dtype != DType::Float32) return fail("the Add's other operand '" + Z->name() + "' is " + std::string(dtypeName(Z->dtype)) + ", not float32");
  if (!Z->rankKnown || !Z->wrappers.empty() || Z->shape.size() > T->shape.size())
    return fail("the Add's other operand " + Z->typeString() + " does not broadcast to the result " + T->typeString());
  for (size_t d = 0; d < Z->shape.size(); ++d) {
    const sym::Expr& zd = Z->shape[d];
    const sym::Expr& td = T->shape[T->shape.size() - Z->shape.size() + d];
    if (!(zd == sym::Expr(1)) && !(zd == td) && sym::proveEqual(zd, td) != true)
      return fail("the Add's other operand " + Z->typeString() + " does not broadcast to the result " + T->typeString(),
                  "the Add would broadcast the result; the fused op writes the result's shape");
  }
  // Z becomes an input of the producer: it must not depend on the producer, and nothing else may write it here.
  if (graph::reachesAvoiding(st, prod.id(), zNode->id(), {}))
    return fail("the Add's other operand '" + Z->name() + "' is computed from the " + prod.opType + "'s result");
  for (auto& n : st.nodes())
    if (auto* other = dynamic_cast<const AccessNode*>(n.get()); other && other != zNode && other->data() == Z->name() &&
                                                                !st.inEdges(other->id()).empty())
      return fail("'" + Z->name() + "' is written elsewhere in the state", "the producer would read it at another time than the Add");
  return true;
}

} // namespace

const Pattern& AddFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"producer", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}, {"add", {ElementKind::LibraryNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool AddFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  AddFusionPlan plan;
  return analyseAddFusion(match, root, plan, whyNot);
}

Expected<void> AddFusion::apply(const Match& match, edit::Editor& ed) const {
  AddFusionPlan plan;
  if (auto ok = analyseForApply(analyseAddFusion, match, ed.root(), plan, "producer"); !ok) return ok;
  LibraryNode& node = *plan.p.node;
  State& st = *node.parent();
  const ElementId zNode = plan.z->src;
  const std::string zConn = plan.z->srcConnector;
  const Memlet zMemlet = plan.z->memlet;
  epilogue::makeFused(ed, node, *plan.p.base);
  if (!node.findIn("Z")) ed.addInConnector(node, Connector{"Z", DType::Float32, true});
  // Z's edge first, so that removing the Add does not leave Z's access node unread (and removed).
  ed.addEdge(st, *st.node(zNode), zConn, node, "Z", zMemlet);
  epilogue::bypassConsumer(ed, plan.p);
  return {};
}

} // namespace dcw::transforms
