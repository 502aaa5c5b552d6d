#include "transforms/catalogue/MatMulScaleFusion.h"

#include "core/edit/Editor.h"
#include "core/expansions/FusedOp.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

#include <cstring>

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

struct MatMulScaleFusionPlan {
  LibraryNode* scale = nullptr;
  AccessNode* scaled = nullptr;
  LibraryNode* matmul = nullptr;
  const DataflowEdge* x = nullptr;        // X -> scale
  const DataflowEdge* constant = nullptr; // c -> scale
  const DataflowEdge* read = nullptr;     // T -> matmul
  const fused::Base* base = nullptr;
  double factor = 1.0;                    // the matmul's alpha is multiplied by it
};

bool analyseMatMulScaleFusion(const Match& match, const Sdfg& root, MatMulScaleFusionPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("producer");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.scale = bind->get<LibraryNode>("scale");
  p.scaled = bind->get<AccessNode>("scaled");
  p.matmul = bind->get<LibraryNode>("producer");
  if (!p.scale || !p.scaled || !p.matmul) return fail("the match is not a scale, its result and a matmul");
  const LibraryNode& sc = *p.scale;
  LibraryNode& mm = *p.matmul;
  const bool isMul = sc.domain.empty() && sc.opType == "Mul", isDiv = sc.domain.empty() && sc.opType == "Div";
  if (sc.opaque || (!isMul && !isDiv)) return fail("the operand comes from " + sc.className() + ", not from an ONNX Mul or Div");
  const bool fusedMatMul = mm.domain == fused::kDomain && mm.opType == "FusedMatMul";
  if (mm.opaque || !((mm.domain.empty() && mm.opType == "MatMul") || fusedMatMul))
    return fail(mm.className() + " is not an ONNX MatMul or a FusedMatMul");
  p.base = fused::baseOf("MatMul");
  const std::string& impl = mm.implementation;
  if (!impl.empty() && !expansions::registry().find(fused::kDomain, "FusedMatMul", impl))
    return fail("the matmul's chosen implementation '" + impl + "' has no FusedMatMul form", "choose pure or onednn for it first");
  const State& st = *mm.parent();
  const Sdfg& sdfg = *owningSdfg(&mm);
  // The scale: X times (or divided by) a constant of one element.
  const DataflowEdge* a = graph::inEdge(st, sc, "A");
  const DataflowEdge* b = graph::inEdge(st, sc, "B");
  if (!a || !b || st.inEdges(sc.id()).size() != 2) return fail("the " + sc.opType + " does not have its two inputs A and B connected");
  auto constantOf = [&](const DataflowEdge* e) -> const DataDescriptor* {
    auto* n = dynamic_cast<const AccessNode*>(st.node(e->src));
    const DataDescriptor* d = n ? sdfg.findData(n->data()) : nullptr;
    return d && d->constant && d->dtype == DType::Float32 && d->constant->elementCount() == 1 ? d : nullptr;
  };
  if (constantOf(b)) p.constant = b, p.x = a;
  else if (isMul && constantOf(a)) p.constant = a, p.x = b;
  else return fail("the " + sc.opType + (isDiv ? "'s divisor" : "") + " is not a float32 constant of one element");
  float c = 0;
  std::memcpy(&c, constantOf(p.constant)->constant->bytes->data(), sizeof c);
  if (isDiv && c == 0) return fail("the Div divides by 0");
  p.factor = isDiv ? 1.0 / double(c) : double(c);
  auto* xNode = dynamic_cast<const AccessNode*>(st.node(p.x->src));
  const DataDescriptor* X = xNode ? sdfg.findData(xNode->data()) : nullptr;
  const DataDescriptor* T = sdfg.findData(p.scaled->data());
  if (!X || !T) return fail("the " + sc.opType + "'s operand or result is not an access node of declared data");
  if (X->dtype != DType::Float32 || T->dtype != DType::Float32) return fail("the " + sc.opType + " is not on float32 tensors");
  if (!epilogue::sameShape(*X, T->shape)) return fail("the " + sc.opType + " broadcasts '" + X->name() + "' " + X->typeString() + " to " + T->typeString());
  // T: written by the scale alone, read whole by the matmul alone, at A or B.
  auto out = st.outEdges(sc.id());
  if (out.size() != 1 || out[0]->dst != p.scaled->id()) return fail("the " + sc.opType + " has another output than '" + T->name() + "'");
  if (!T->transient) return fail("'" + T->name() + "' is an output of the model", "it must stay computed");
  if (graph::accessCount(sdfg, T->name()) != 1 || st.inEdges(p.scaled->id()).size() != 1)
    return fail("'" + T->name() + "' has other access nodes or writers");
  auto reads = st.outEdges(p.scaled->id());
  if (reads.size() != 1 || reads[0]->dst != mm.id() || (reads[0]->dstConnector != "A" && reads[0]->dstConnector != "B"))
    return fail("'" + T->name() + "' is read by more than the matmul's A or B");
  p.read = reads[0];
  if (!epilogue::sameShape(*T, reads[0]->memlet.subset.empty() ? T->shape : reads[0]->memlet.subset.sizes()))
    return fail("the matmul reads part of '" + T->name() + "'");
  for (auto& n : st.nodes())
    if (auto* other = dynamic_cast<const AccessNode*>(n.get()); other && other != xNode && other->data() == X->name() &&
                                                                !st.inEdges(other->id()).empty())
      return fail("'" + X->name() + "' is written elsewhere in the state", "the matmul would read it at another time than the " + sc.opType);
  if (fusedMatMul) {
    auto ep = fused::epilogueOf(mm, graph::inEdge(st, mm, "Z") != nullptr, path);
    if (!ep) return fail(ep.error().message);
  }
  return true;
}

} // namespace

const Pattern& MatMulScaleFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"scale", {ElementKind::LibraryNode}}, {"scaled", {ElementKind::AccessNode}}, {"producer", {ElementKind::LibraryNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool MatMulScaleFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  MatMulScaleFusionPlan p;
  return analyseMatMulScaleFusion(match, root, p, whyNot);
}

Expected<void> MatMulScaleFusion::apply(const Match& match, edit::Editor& ed) const {
  MatMulScaleFusionPlan p;
  if (auto ok = analyseForApply(analyseMatMulScaleFusion, match, ed.root(), p, "producer"); !ok) return ok;
  LibraryNode& mm = *p.matmul;
  State& st = *mm.parent();
  Sdfg& sdfg = *const_cast<Sdfg*>(owningSdfg(&mm));
  const ElementId xNode = p.x->src, constantNode = p.constant->src, scaleNode = p.scale->id(), scaledNode = p.scaled->id();
  const std::string xConn = p.x->srcConnector, into = p.read->dstConnector, scaledData = p.scaled->data();
  const Memlet xMemlet = p.x->memlet;
  double alpha = 1.0;
  if (const Attribute* a = mm.attribute("alpha"))
    if (auto* v = std::get_if<double>(&a->value)) alpha = *v;
  epilogue::makeFused(ed, mm, *p.base);
  std::vector<Attribute> attrs;
  for (auto& a : mm.attributes)
    if (a.name != "alpha") attrs.push_back(a);
  attrs.push_back(Attribute{"alpha", alpha * p.factor});
  ed.set(mm, &LibraryNode::attributes, attrs);
  ed.removeNode(st, scaledNode);
  ed.addEdge(st, *st.node(xNode), xConn, mm, into, xMemlet);
  ed.removeNode(st, scaleNode);
  ed.removeData(sdfg, scaledData);
  epilogue::removeUnread(ed, st, {constantNode});
  return {};
}

} // namespace dcw::transforms
