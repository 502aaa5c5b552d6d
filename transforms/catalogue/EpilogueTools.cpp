#include "transforms/catalogue/EpilogueTools.h"

#include "core/edit/Editor.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "transforms/catalogue/GraphTools.h"

#include <algorithm>

namespace dcw::transforms::epilogue {

using namespace dcw::ir;
namespace fused = expansions::fused;

bool sameShape(const DataDescriptor& d, const std::vector<sym::Expr>& shape) {
  if (!d.rankKnown || d.shape.size() != shape.size()) return false;
  for (size_t k = 0; k < shape.size(); ++k)
    if (!(d.shape[k] == shape[k]) && sym::proveEqual(d.shape[k], shape[k]) != true) return false;
  return true;
}

bool analyse(const Binding& bind, const Match& match, const std::string& producerSlot, const std::string& outputSlot,
             const std::string& consumerSlot, Producer& p, Diagnostics* whyNot) {
  const std::string& path = match.elements.at(producerSlot);
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.node = bind.get<LibraryNode>(producerSlot);
  p.output = bind.get<AccessNode>(outputSlot);
  p.consumer = bind.get<LibraryNode>(consumerSlot);
  if (!p.node || p.node->opaque) return fail("is not a library node with a known schema");
  if (p.node->domain.empty()) {
    p.base = fused::baseOf(p.node->opType);
    if (!p.base) return fail(p.node->className() + " has no fused form", "fusions start at a Conv, ConvTranspose, MatMul, Gemm or BatchNormalization");
  } else {
    p.base = fused::baseOfFused(*p.node);
    if (!p.base) return fail(p.node->className() + " is neither an ONNX Conv, ConvTranspose, MatMul, Gemm or BatchNormalization nor a fused op");
  }
  if (!p.output) return fail("the " + p.node->opType + "'s result is not an access node");
  if (!p.consumer) return fail("the " + p.node->opType + "'s result does not go to a library node");
  const std::string& impl = p.node->implementation;
  if (!impl.empty() && !expansions::registry().find(fused::kDomain, p.base->fused, impl))
    return fail("the node's chosen implementation '" + impl + "' has no " + p.base->fused + " form",
                "choose pure or onednn for it first (set " + path + " implementation=onednn)");
  State& st = *p.node->parent();
  const Sdfg* sdfg = owningSdfg(p.node);
  if (p.node->domain == fused::kDomain) {
    const DataflowEdge* z = graph::inEdge(st, *p.node, "Z");
    auto ep = fused::epilogueOf(*p.node, z != nullptr, path);
    if (!ep) return fail(ep.error().message);
    p.epilogue = *ep;
  }
  // T: written by the producer alone, read by the consumer alone.
  auto out = st.outEdges(p.node->id());
  if (out.size() != 1 || out[0]->dst != p.output->id() || out[0]->srcConnector != "Y")
    return fail("the " + p.node->opType + " must have exactly one output edge, from Y to its result");
  const DataDescriptor* T = sdfg->findData(p.output->data());
  if (!T) return fail("the result's data '" + p.output->data() + "' does not exist");
  if (!T->transient) return fail("the result '" + T->name() + "' is an output of the model", "it must stay computed");
  if (T->dtype != DType::Float32) return fail("the result '" + T->name() + "' is " + std::string(dtypeName(T->dtype)) + "; fusions take float32");
  if (!T->rankKnown || !T->wrappers.empty()) return fail("the result '" + T->name() + "' is not a tensor of known rank");
  if (st.inEdges(p.output->id()).size() != 1 || st.outEdges(p.output->id()).size() != 1 || graph::accessCount(*sdfg, T->name()) != 1 ||
      graph::namedInControlFlow(*sdfg, T->name()))
    return fail("the result '" + T->name() + "' is used by other nodes than the " + p.consumer->opType,
                "the fused node would no longer compute it");
  if (st.outEdges(p.output->id())[0]->dst != p.consumer->id()) return fail("the result is not read by the " + p.consumer->opType);
  auto cout = st.outEdges(p.consumer->id());
  if (cout.size() != 1) return fail("the " + p.consumer->opType + " must have exactly one output edge");
  p.consumerOut = cout[0];
  auto* yNode = dynamic_cast<AccessNode*>(st.node(p.consumerOut->dst));
  const DataDescriptor* Y = yNode ? sdfg->findData(yNode->data()) : nullptr;
  if (!Y) return fail("the " + p.consumer->opType + "'s output is not an access node");
  if (Y->dtype != T->dtype || !sameShape(*Y, T->shape))
    return fail("the " + p.consumer->opType + "'s output " + Y->typeString() + " does not have the type of the " + p.node->opType +
                "'s result " + T->typeString());
  return true;
}

void makeFused(edit::Editor& ed, LibraryNode& node, const fused::Base& base) {
  if (node.domain == fused::kDomain) return;
  ed.set(node, &LibraryNode::domain, std::string(fused::kDomain));
  ed.set(node, &LibraryNode::opType, base.fused);
  ed.set(node, &LibraryNode::opsetVersion, int64_t(1));
}

void removeUnread(edit::Editor& ed, State& st, const std::set<ElementId>& nodes) {
  Sdfg& sdfg = *owningSdfg(&st);
  for (ElementId id : nodes) {
    auto* an = dynamic_cast<AccessNode*>(st.node(id));
    if (!an || !st.inEdges(id).empty() || !st.outEdges(id).empty()) continue;
    const std::string data = an->data();
    ed.removeNode(st, id);
    const DataDescriptor* d = sdfg.findData(data);
    bool listed = std::count(sdfg.inputs.begin(), sdfg.inputs.end(), data) || std::count(sdfg.outputs.begin(), sdfg.outputs.end(), data);
    if (d && d->constant && !listed && graph::accessCount(sdfg, data) == 0) ed.removeData(sdfg, data);
  }
}

void bypassConsumer(edit::Editor& ed, Producer& p) {
  State& st = *p.node->parent();
  Sdfg& sdfg = *owningSdfg(p.node);
  const ElementId yNode = p.consumerOut->dst;
  const std::string yConn = p.consumerOut->dstConnector;
  const Memlet yMemlet = p.consumerOut->memlet;
  std::set<ElementId> read;
  for (auto* e : st.inEdges(p.consumer->id()))
    if (e->src != p.output->id()) read.insert(e->src);
  const std::string tData = p.output->data();
  ed.removeNode(st, p.consumer->id());
  ed.removeNode(st, p.output->id());
  ed.removeData(sdfg, tData);
  ed.addEdge(st, *p.node, "Y", *st.node(yNode), yConn, yMemlet);
  p.consumer = nullptr;
  p.output = nullptr;
  p.consumerOut = nullptr;
  removeUnread(ed, st, read);
}

} // namespace dcw::transforms::epilogue
