#include "transforms/catalogue/ActivationFusion.h"

#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

#include <cstring>

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

struct ActivationFusionPlan {
  epilogue::Producer p;
  const fused::Activation* activation = nullptr;
  std::vector<double> params;
};

bool analyseActivationFusion(const Match& match, const Sdfg& root, ActivationFusionPlan& plan, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  if (!epilogue::analyse(*bind, match, "producer", "output", "activation", plan.p, whyNot)) return false;
  const std::string& path = match.elements.at("producer");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  const LibraryNode& act = *plan.p.consumer;
  const LibraryNode& prod = *plan.p.node;
  if (plan.p.epilogue.activation)
    return fail("the " + prod.opType + " already ends with " + plan.p.epilogue.activation->op, "a fused op has one activation");
  plan.activation = act.opaque ? nullptr : fused::findActivation(act.domain, act.opType);
  if (!plan.activation) {
    std::string known;
    for (auto& a : fused::activations()) known += (known.empty() ? "" : ", ") + a.op;
    return fail("the " + prod.opType + "'s result goes to " + act.className() + ", which is not an activation a fused op takes",
                "fused activations: " + known);
  }
  const State& st = *act.parent();
  const Sdfg& sdfg = *owningSdfg(&act);
  // The activation's data input and output: its first connectors, whatever its version names them.
  if (act.inConnectors().empty() || act.outConnectors().empty()) return fail("the " + act.opType + " has no input or output connector");
  const std::string dataIn = act.inConnectors()[0].name, dataOut = act.outConnectors()[0].name;
  if (plan.p.consumerOut->srcConnector != dataOut)
    return fail("the " + act.opType + "'s output edge does not leave its output '" + dataOut + "'");
  const bool clipInputs = act.opType == "Clip" && act.opsetVersion >= 11;
  for (auto* e : st.inEdges(act.id())) {
    if (e->src == plan.p.output->id()) {
      if (e->dstConnector != dataIn) return fail("the result goes to the " + act.opType + "'s '" + e->dstConnector + "', not its data input");
      continue;
    }
    if (!clipInputs || (e->dstConnector != "min" && e->dstConnector != "max"))
      return fail("the " + act.opType + " reads '" + e->dstConnector + "' besides the result");
  }
  // Parameters: attributes, or Clip's constant min/max inputs (opset 11 on).
  plan.params.clear();
  for (auto& prm : plan.activation->params) {
    double v = prm.fallback;
    if (clipInputs) {
      if (const DataflowEdge* e = graph::inEdge(st, act, prm.name)) {
        auto* an = dynamic_cast<const AccessNode*>(st.node(e->src));
        const DataDescriptor* d = an ? sdfg.findData(an->data()) : nullptr;
        const Tensor* t = d && d->constant ? d->constant.get() : nullptr;
        if (!t || !t->bytes || t->dtype != DType::Float32 || t->elementCount() != 1 || t->bytes->size() != 4)
          return fail("the Clip's " + prm.name + " is not a constant float32 scalar", "a fused activation's parameters are fixed numbers");
        float f;
        std::memcpy(&f, t->bytes->data(), 4);
        v = f;
      }
    } else if (auto* a = act.attribute(prm.name)) {
      auto* d = std::get_if<double>(&a->value);
      if (!d) return fail("the " + act.opType + "'s attribute '" + prm.name + "' is not a float");
      v = *d;
    }
    plan.params.push_back(v);
  }
  return true;
}

} // namespace

const Pattern& ActivationFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"producer", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}, {"activation", {ElementKind::LibraryNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool ActivationFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  ActivationFusionPlan plan;
  return analyseActivationFusion(match, root, plan, whyNot);
}

Expected<void> ActivationFusion::apply(const Match& match, edit::Editor& ed) const {
  ActivationFusionPlan plan;
  if (auto ok = analyseForApply(analyseActivationFusion, match, ed.root(), plan, "producer"); !ok) return ok;
  LibraryNode& node = *plan.p.node;
  epilogue::makeFused(ed, node, *plan.p.base);
  std::vector<Attribute> attrs;
  for (auto& a : node.attributes)
    if (a.name != "activation" && a.name != "activation_params") attrs.push_back(a);
  attrs.push_back(Attribute{"activation", plan.activation->op});
  if (!plan.params.empty()) attrs.push_back(Attribute{"activation_params", plan.params});
  ed.set(node, &LibraryNode::attributes, std::move(attrs));
  epilogue::bypassConsumer(ed, plan.p);
  return {};
}

} // namespace dcw::transforms
