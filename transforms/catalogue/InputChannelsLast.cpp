#include "transforms/catalogue/InputChannelsLast.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/WholeArray.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"
#include "transforms/catalogue/StridedOperands.h"

#include <algorithm>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct InputChannelsLastPlan {
  Sdfg* sdfg = nullptr;
  State* state = nullptr;
  const AccessNode* node = nullptr;
  const DataDescriptor* input = nullptr;
};

bool analyseInputChannelsLast(const Match& match, const Sdfg& root, InputChannelsLastPlan& p, Diagnostics* whyNot) {
  const std::string& path = match.elements.at("array");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  const AccessNode* an = nullptr;
  DataDescriptor* d = resolveAccessData(match, root, "array", whyNot, &an);
  if (!d || !an) return false;
  const State& st = *an->parent();
  Sdfg* sdfg = owningSdfg(an);
  const std::string& name = d->name();
  if (sdfg != &root) return fail("'" + name + "' belongs to a nested SDFG", "the step reorders an input of the model");
  if (d->transient) return fail("'" + name + "' is not an input of the model", "ChannelsLast stores a transient channels-last");
  if (std::find(root.inputs.begin(), root.inputs.end(), name) == root.inputs.end())
    return fail("'" + name + "' is not an input of the model");
  if (std::find(root.outputs.begin(), root.outputs.end(), name) != root.outputs.end())
    return fail("'" + name + "' is an output of the model too");
  if (d->dataKind != DataKind::Array || d->dtype != DType::Float32) return fail("'" + name + "' is not a float32 array");
  if (d->shape.size() < 3 || d->shape.size() > 5)
    return fail("'" + name + "' has rank " + std::to_string(d->shape.size()) + "; channels-last is for ranks 3 to 5");
  std::vector<int64_t> dims;
  for (auto& e : d->shape) {
    auto c = e.constantValue();
    if (!c || *c <= 0) return fail("'" + name + "' has a dim that is not a known positive number: " + e.str(), "fix the dynamic dims first (--dim)");
    dims.push_back(*c);
  }
  int64_t spatial = 1;
  for (size_t k = 2; k < dims.size(); ++k) spatial *= dims[k];
  if (dims[1] == 1 || spatial == 1) return fail("'" + name + "' has one channel or one position: both layouts are the same");
  if (!d->strides.empty() && d->strides != DataDescriptor::contiguousStrides(d->shape)) return fail("'" + name + "' is not row-major");
  if (graph::accessCount(*sdfg, name) != 1) return fail("'" + name + "' is accessed through more than one access node");
  if (graph::namedInControlFlow(*sdfg, name)) return fail("control flow names '" + name + "'");
  if (scope::enclosing(st, *an)) return fail("the access node of '" + name + "' is inside a map");
  if (!st.inEdges(an->id()).empty()) return fail("'" + name + "' is written in the model");
  const auto readers = st.outEdges(an->id());
  if (readers.empty()) return fail("nothing reads '" + name + "'");
  for (const DataflowEdge* e : readers) {
    auto* lib = dynamic_cast<const LibraryNode*>(st.node(e->dst));
    if (!lib) return fail("'" + name + "' is read by a node that is not a library node");
    if (lib->implementation != "onednn")
      return fail("'" + name + "' is read by " + lib->className() + " '" + lib->label() + "', which does not run on oneDNN",
                  "the copy pays where oneDNN nodes read the input (set implementation=onednn)");
    if (!takesAnyStrides(*lib, e->dstConnector))
      return fail("'" + name + "' is read by " + lib->className() + " '" + lib->label() + "' at " + e->dstConnector + ", which takes row-major operands only");
    if (e->memlet.data != name || !ir::wholeArray(e->memlet, *d)) return fail("'" + name + "' is read in part");
  }
  p.sdfg = sdfg;
  p.state = const_cast<State*>(&st);
  p.node = an;
  p.input = d;
  return true;
}

} // namespace

const Pattern& InputChannelsLast::pattern() const {
  static const Pattern p = Pattern::node("array", {ElementKind::AccessNode});
  return p;
}

bool InputChannelsLast::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  InputChannelsLastPlan p;
  return analyseInputChannelsLast(match, root, p, whyNot);
}

Expected<void> InputChannelsLast::apply(const Match& match, edit::Editor& ed) const {
  InputChannelsLastPlan p;
  if (auto ok = analyseForApply(analyseInputChannelsLast, match, ed.root(), p, "array"); !ok) return ok;
  State& st = *p.state;
  const std::string name = p.input->name();
  const std::vector<sym::Expr> shape = p.input->shape;
  auto c = std::make_unique<DataDescriptor>(graph::freshDataName(*p.sdfg, name + "_channelslast"));
  c->dtype = p.input->dtype;
  c->dataKind = DataKind::Array;
  c->shape = shape;
  c->strides = DataDescriptor::channelsLastStrides(shape);
  c->transient = true;
  const std::string copyName = ed.addData(*p.sdfg, std::move(c))->name();
  Node* copyNode = ed.add<AccessNode>(st, copyName);
  std::vector<std::pair<ElementId, std::string>> readers;
  for (const DataflowEdge* e : st.outEdges(p.node->id())) readers.emplace_back(e->dst, e->dstConnector);
  for (const DataflowEdge* e : st.outEdges(p.node->id())) ed.removeEdge(st, e->id());
  ed.addEdge(st, *p.node, "", *copyNode, "", Memlet::full(name, shape));
  for (auto& [dst, conn] : readers) ed.addEdge(st, *copyNode, "", *st.node(dst), conn, Memlet::full(copyName, shape));
  return {};
}

} // namespace dcw::transforms
