#include "transforms/catalogue/ConvBatchNormFolding.h"

#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"

#include <cmath>
#include <cstring>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

std::vector<double> valuesOf(const Tensor& t) {
  std::vector<double> v(size_t(t.elementCount()));
  const char* p = t.bytes->data();
  for (size_t i = 0; i < v.size(); ++i) {
    float f;
    std::memcpy(&f, p + i * 4, 4);
    v[i] = f;
  }
  return v;
}

Tensor tensorOf(const std::vector<double>& v, std::vector<int64_t> dims) {
  std::string bytes(v.size() * 4, '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    float f = static_cast<float>(v[i]);
    std::memcpy(bytes.data() + i * 4, &f, 4);
  }
  Tensor t;
  t.dtype = DType::Float32;
  t.dims = std::move(dims);
  t.bytes = std::make_shared<const std::string>(std::move(bytes));
  return t;
}

struct ConvBatchNormFoldingPlan {
  LibraryNode* conv = nullptr;
  LibraryNode* bn = nullptr;
  AccessNode* c = nullptr;
  const DataflowEdge* w = nullptr;
  const DataflowEdge* bias = nullptr; // may be null
  const DataflowEdge* y = nullptr;
  const DataDescriptor *W = nullptr, *B = nullptr, *scale = nullptr, *beta = nullptr, *mean = nullptr, *var = nullptr;
  double epsilon = 1e-5;
};

bool analyseConvBatchNormFolding(const Match& match, const Sdfg& root, ConvBatchNormFoldingPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("conv");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.conv = bind->get<LibraryNode>("conv");
  p.c = bind->get<AccessNode>("output");
  p.bn = bind->get<LibraryNode>("bn");
  if (!p.conv || p.conv->domain != "" || p.conv->opType != "Conv") return fail("is not an ONNX Conv node");
  if (!p.bn || p.bn->domain != "" || p.bn->opType != "BatchNormalization")
    return fail("the Conv's result does not go to an ONNX BatchNormalization node");
  if (!p.c) return fail("the Conv's result is not an access node");
  State& st = *p.conv->parent();
  const Sdfg* sdfg = owningSdfg(p.conv);
  auto constantAt = [&](const DataflowEdge* e, const char* what, const DataDescriptor** out) {
    auto* an = e ? dynamic_cast<AccessNode*>(st.node(e->src)) : nullptr;
    const DataDescriptor* d = an ? sdfg->findData(an->data()) : nullptr;
    if (!d || !d->constant || !d->constant->bytes)
      return fail(std::string("the ") + what + " is not a constant", "fold constants first, or keep the BatchNormalization");
    if (d->dtype != DType::Float32 || d->constant->dtype != DType::Float32)
      return fail(std::string("the ") + what + " is " + std::string(dtypeName(d->dtype)) + "; only float32 is folded");
    *out = d;
    return true;
  };
  // Conv: constant weights, optional constant bias, one output edge to C.
  p.w = graph::inEdge(st, *p.conv, "W");
  if (!constantAt(p.w, "Conv's weight", &p.W)) return false;
  if (p.W->constant->dims.size() < 3) return fail("the Conv's weight has rank < 3");
  const int64_t M = p.W->constant->dims[0];
  p.bias = graph::inEdge(st, *p.conv, "B");
  if (p.bias && !constantAt(p.bias, "Conv's bias", &p.B)) return false;
  if (p.B && (p.B->constant->dims != std::vector<int64_t>{M})) return fail("the Conv's bias does not have shape [M]");
  auto convOut = st.outEdges(p.conv->id());
  if (convOut.size() != 1 || convOut[0]->dst != p.c->id()) return fail("the Conv must have exactly one output edge");
  const DataDescriptor* C = sdfg->findData(p.c->data());
  if (!C || !C->transient) return fail("the Conv's output is an output of the model", "it must stay computed");
  if (C->dtype != DType::Float32) return fail("the Conv's output is not float32");
  if (graph::accessCount(*sdfg, C->name()) != 1 || st.inEdges(p.c->id()).size() != 1 || st.outEdges(p.c->id()).size() != 1)
    return fail("the Conv's output '" + C->name() + "' is used by other nodes than the BatchNormalization");
  if (st.outEdges(p.c->id())[0]->dstConnector != "X") return fail("the Conv's output is not the BatchNormalization's input X");
  // BatchNormalization: inference mode, constant parameters of shape [M].
  for (auto& a : p.bn->attributes) {
    if (a.name == "training_mode" && std::get_if<int64_t>(&a.value) && *std::get_if<int64_t>(&a.value) != 0)
      return fail("the BatchNormalization runs in training mode", "only inference-mode normalisation is folded");
    if (a.name == "epsilon") {
      if (auto* d = std::get_if<double>(&a.value)) p.epsilon = *d;
    }
    if (a.name == "spatial" && std::get_if<int64_t>(&a.value) && *std::get_if<int64_t>(&a.value) == 0)
      return fail("the BatchNormalization is not spatial (spatial=0)");
  }
  auto bnOut = st.outEdges(p.bn->id());
  if (bnOut.size() != 1 || bnOut[0]->srcConnector != "Y")
    return fail("the BatchNormalization has outputs besides Y (training mode)", "only inference-mode normalisation is folded");
  p.y = bnOut[0];
  if (!dynamic_cast<AccessNode*>(st.node(p.y->dst))) return fail("the BatchNormalization's output is not an access node");
  struct Param {
    const char* conn;
    const char* what;
    const DataDescriptor** out;
  } params[] = {{"scale", "BatchNormalization's scale", &p.scale},
                {"B", "BatchNormalization's B", &p.beta},
                {"input_mean", "BatchNormalization's mean", &p.mean},
                {"input_var", "BatchNormalization's var", &p.var}};
  for (auto& prm : params) {
    if (!constantAt(graph::inEdge(st, *p.bn, prm.conn), prm.what, prm.out)) return false;
    if ((*prm.out)->constant->dims != std::vector<int64_t>{M})
      return fail(std::string("the ") + prm.what + " does not have shape [" + std::to_string(M) + "]");
  }
  return true;
}

} // namespace

const Pattern& ConvBatchNormFolding::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"conv", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}, {"bn", {ElementKind::LibraryNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool ConvBatchNormFolding::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  ConvBatchNormFoldingPlan p;
  return analyseConvBatchNormFolding(match, root, p, whyNot);
}

Expected<void> ConvBatchNormFolding::apply(const Match& match, edit::Editor& ed) const {
  ConvBatchNormFoldingPlan p;
  if (auto ok = analyseForApply(analyseConvBatchNormFolding, match, ed.root(), p, "conv"); !ok) return ok;
  State& st = *p.conv->parent();
  Sdfg& sdfg = *owningSdfg(p.conv);

  // New weights and bias, in double.
  const std::vector<int64_t> wDims = p.W->constant->dims;
  const int64_t M = wDims[0];
  std::vector<double> w = valuesOf(*p.W->constant), scale = valuesOf(*p.scale->constant),
                      beta = valuesOf(*p.beta->constant), mean = valuesOf(*p.mean->constant),
                      var = valuesOf(*p.var->constant);
  std::vector<double> b = p.B ? valuesOf(*p.B->constant) : std::vector<double>(size_t(M), 0.0);
  const size_t per = w.size() / size_t(M);
  std::vector<double> nb(static_cast<size_t>(M), 0.0);
  for (int64_t m = 0; m < M; ++m) {
    double f = scale[m] / std::sqrt(var[m] + p.epsilon);
    for (size_t k = 0; k < per; ++k) w[m * per + k] *= f;
    nb[m] = (b[m] - mean[m]) * f + beta[m];
  }
  auto constant = [&](const std::string& name, Tensor t) {
    auto d = std::make_unique<DataDescriptor>(name);
    d->dtype = DType::Float32;
    for (auto x : t.dims) d->shape.emplace_back(x);
    d->dataKind = DataKind::Array;
    d->strides = DataDescriptor::contiguousStrides(d->shape);
    d->constant = std::make_shared<const Tensor>(std::move(t));
    return ed.addData(sdfg, std::move(d));
  };

  // What to reconnect, by id (removing nodes invalidates the edges).
  const ElementId yNode = p.y->dst;
  const std::string yConn = p.y->dstConnector;
  const Memlet yMemlet = p.y->memlet;
  std::set<ElementId> oldConstNodes{p.w->src};
  if (p.bias) oldConstNodes.insert(p.bias->src);
  for (auto* e : st.inEdges(p.bn->id()))
    if (e->src != p.c->id()) oldConstNodes.insert(e->src);
  const std::string cData = p.c->data();
  const std::string wName = graph::freshDataName(sdfg, p.W->name() + "_folded");
  const std::string bName = graph::freshDataName(sdfg, p.conv->label() + "_folded_bias");
  LibraryNode& conv = *p.conv;

  ed.removeEdge(st, p.w->id());
  if (p.bias) ed.removeEdge(st, p.bias->id());
  ed.removeNode(st, p.bn->id());
  ed.removeNode(st, p.c->id());
  ed.removeData(sdfg, cData);
  DataDescriptor* wd = constant(wName, tensorOf(w, wDims));
  DataDescriptor* bd = constant(bName, tensorOf(nb, {M}));
  Node* wn = ed.add<AccessNode>(st, wd->name());
  Node* bn = ed.add<AccessNode>(st, bd->name());
  if (!conv.findIn("B")) ed.addInConnector(conv, Connector{"B", DType::Float32, true});
  ed.addEdge(st, *wn, "", conv, "W", Memlet::full(wd->name(), wd->shape));
  ed.addEdge(st, *bn, "", conv, "B", Memlet::full(bd->name(), bd->shape));
  std::string yOut = "Y";
  if (!conv.findOut("Y") && !conv.outConnectors().empty()) yOut = conv.outConnectors()[0].name;
  ed.addEdge(st, conv, yOut, *st.node(yNode), yConn, yMemlet);

  // Constants nothing reads any more go away with their access nodes.
  for (ElementId id : oldConstNodes) {
    auto* an = dynamic_cast<AccessNode*>(st.node(id));
    if (!an || !st.inEdges(id).empty() || !st.outEdges(id).empty()) continue;
    const std::string data = an->data();
    ed.removeNode(st, id);
    bool used = std::count(sdfg.inputs.begin(), sdfg.inputs.end(), data) ||
                std::count(sdfg.outputs.begin(), sdfg.outputs.end(), data);
    for (State* s : sdfg.allStates())
      for (auto& n : s->nodes())
        if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == data) used = true;
    const DataDescriptor* d = sdfg.findData(data);
    if (!used && d && d->constant) ed.removeData(sdfg, data);
  }
  return {};
}

} // namespace dcw::transforms
