#include "transforms/FoldConstants.h"

#include "core/edit/Editor.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/onnx/ShapeArithmetic.h"
#include "transforms/catalogue/GraphTools.h"

#include <cstring>
#include <functional>
#include <optional>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

std::optional<std::vector<int64_t>> staticShape(const DataDescriptor& d) {
  if (!d.rankKnown || !d.wrappers.empty()) return std::nullopt;
  return graph::constantShape(d);
}

// Input descriptors by position of the node's connectors (nullptr when unconnected).
std::vector<DataDescriptor*> inputDescriptors(const Sdfg& sdfg, const State& st, const LibraryNode& n) {
  std::vector<DataDescriptor*> out;
  for (auto& c : n.inConnectors()) {
    DataDescriptor* d = nullptr;
    for (auto* e : st.inEdges(n.id()))
      if (e->dstConnector == c.name)
        if (auto* a = dynamic_cast<AccessNode*>(st.node(e->src))) d = sdfg.findData(a->data());
    out.push_back(d);
  }
  return out;
}

class Folder {
public:
  Folder(edit::Editor& ed, Sdfg& s, State& st) : ed_(ed), sdfg_(s), st_(st) {}

  int run() {
    int folded = 0;
    auto order = st_.topologicalOrder();
    if (!order) return 0;
    for (Node* n : *order) {
      auto* lib = dynamic_cast<LibraryNode*>(n);
      if (!lib || !lib->domain.empty() || !lib->subgraphs().empty()) continue;
      if (fold(*lib)) ++folded;
      else if (lib->opType == "Reshape") refineReshape(*lib);
    }
    if (folded) cleanUp();
    return folded;
  }

private:
  edit::Editor& ed_;
  Sdfg& sdfg_;
  State& st_;

  DataDescriptor* dataOf(ElementId accessNode) {
    auto* a = dynamic_cast<AccessNode*>(st_.node(accessNode));
    return a ? sdfg_.findData(a->data()) : nullptr;
  }

  std::vector<DataDescriptor*> inputs(const LibraryNode& n) { return inputDescriptors(sdfg_, st_, n); }

  bool fold(LibraryNode& n) {
    std::optional<Tensor> result = evaluateFoldable(sdfg_, st_, n);
    if (!result) return false;
    DataDescriptor* out = dataOf(st_.outEdges(n.id())[0]->dst);
    std::vector<sym::Expr> shape;
    for (auto d : result->dims) shape.emplace_back(d);
    ed_.set(*out, &DataDescriptor::constant, std::shared_ptr<const Tensor>(std::make_shared<const Tensor>(std::move(*result))));
    ed_.set(*out, &DataDescriptor::transient, false);
    setShape(*out, std::move(shape));
    ed_.removeNode(st_, n.id());
    return true;
  }

  // A Reshape whose target shape became constant gets the output shape shape inference could not
  // give (0 copies the input dim unless allowzero, -1 takes the remaining elements).
  void refineReshape(LibraryNode& n) {
    auto in = inputs(n);
    auto outs = st_.outEdges(n.id());
    if (in.size() < 2 || !in[0] || !in[1] || !in[1]->constant || outs.size() != 1) return;
    DataDescriptor* out = dataOf(outs[0]->dst);
    if (!out || (out->rankKnown && !out->freeSymbols().size())) return;
    auto target = onnx::intValues(*in[1]->constant);
    if (!target || !in[0]->rankKnown) return;
    std::vector<int64_t> src;
    for (auto& e : in[0]->shape) {
      auto v = e.constantValue();
      if (!v) return;
      src.push_back(*v);
    }
    auto* a = n.attribute("allowzero");
    bool allowZero = a && std::holds_alternative<int64_t>(a->value) && std::get<int64_t>(a->value) != 0;
    std::vector<int64_t> dims = *target;
    int64_t known = 1, inferAt = -1;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] == 0 && !allowZero) {
        if (k >= src.size()) return;
        dims[k] = src[k];
      }
      if (dims[k] == -1) {
        if (inferAt >= 0) return;
        inferAt = int64_t(k);
      } else {
        known *= dims[k];
      }
    }
    int64_t total = 1;
    for (auto d : src) total *= d;
    if (inferAt >= 0) {
      if (known == 0 || total % known) return;
      dims[size_t(inferAt)] = total / known;
    } else if (known != total) {
      return;
    }
    std::vector<sym::Expr> shape;
    for (auto d : dims) shape.emplace_back(d);
    setShape(*out, std::move(shape));
  }

  // A value's shape became known: the descriptor (contiguous strides) and the memlets that move it.
  void setShape(DataDescriptor& d, std::vector<sym::Expr> shape) {
    ed_.set(d, &DataDescriptor::dataKind, shape.empty() ? DataKind::Scalar : DataKind::Array);
    ed_.set(d, &DataDescriptor::strides, DataDescriptor::contiguousStrides(shape));
    ed_.set(d, &DataDescriptor::shape, std::move(shape));
    ed_.set(d, &DataDescriptor::rankKnown, true);
    resetMemlets(d);
  }

  // Memlets made while a value's shape was unknown or symbolic move the whole (now known) array.
  void resetMemlets(const DataDescriptor& d) {
    for (State* s : sdfg_.allStates())
      for (auto& e : s->edges())
        if (e->memlet.data == d.name()) ed_.set(*e, &DataflowEdge::memlet, Memlet::full(d.name(), d.shape));
  }

  // Drops access nodes left without edges, then data nothing accesses any more.
  void cleanUp() {
    std::vector<ElementId> lonely;
    for (auto& nd : st_.nodes())
      if (nd->kind() == ElementKind::AccessNode && st_.inEdges(nd->id()).empty() && st_.outEdges(nd->id()).empty())
        lonely.push_back(nd->id());
    for (auto id : lonely) ed_.removeNode(st_, id);
    std::set<std::string> used(sdfg_.inputs.begin(), sdfg_.inputs.end());
    used.insert(sdfg_.outputs.begin(), sdfg_.outputs.end());
    for (State* s : sdfg_.allStates())
      for (auto& nd : s->nodes())
        if (auto* a = dynamic_cast<AccessNode*>(nd.get())) used.insert(a->data());
    std::vector<std::string> dead;
    for (auto& d : sdfg_.data())
      if (!used.count(d->name())) dead.push_back(d->name());
    for (auto& name : dead) ed_.removeData(sdfg_, name);
    // Symbols that only sized folded values (e.g. shape inference's unk__N) are gone with them; one a
    // tasklet or a map still reads stays.
    const std::set<std::string> usedSymbols = graph::symbolsInUse(sdfg_);
    std::vector<std::string> unused;
    for (auto& [sname, type] : sdfg_.symbols())
      if (!usedSymbols.count(sname)) unused.push_back(sname);
    for (auto& sname : unused) ed_.removeSymbol(sdfg_, sname);
  }
};

void foldIn(edit::Editor& ed, Sdfg& s, FoldReport& report) {
  for (State* st : s.allStates()) {
    report.folded += Folder(ed, s, *st).run();
    for (auto& n : st->nodes())
      if (auto* l = dynamic_cast<LibraryNode*>(n.get()))
        for (auto& g : l->subgraphs()) foldIn(ed, *g.sdfg, report);
  }
}

} // namespace

std::optional<Tensor> evaluateFoldable(const Sdfg& sdfg, const State& st, const LibraryNode& n, const DataDescriptor** output) {
  if (!n.domain.empty() || !n.subgraphs().empty()) return std::nullopt;
  auto outs = st.outEdges(n.id());
  if (outs.size() != 1) return std::nullopt;
  auto* oa = dynamic_cast<AccessNode*>(st.node(outs[0]->dst));
  const DataDescriptor* out = oa ? sdfg.findData(oa->data()) : nullptr;
  if (!out || !out->transient || out->constant) return std::nullopt;
  std::vector<onnx::ShapeOpInput> in;
  for (DataDescriptor* d : inputDescriptors(sdfg, st, n)) {
    onnx::ShapeOpInput x;
    x.present = d != nullptr;
    if (d && d->constant) x.value = d->constant.get();
    if (d) x.staticShape = staticShape(*d);
    in.push_back(std::move(x));
  }
  std::optional<Tensor> result = onnx::evaluateShapeOp(n.opType, n.opsetVersion, n.attributes, in, staticShape(*out));
  if (!result || result->dtype != out->dtype) return std::nullopt;
  if (output) *output = out;
  return result;
}

FoldReport foldConstants(edit::Editor& editor) {
  FoldReport r;
  foldIn(editor, editor.root(), r);
  return r;
}

FoldReport foldConstants(Sdfg& sdfg) {
  edit::Editor throwaway(sdfg);
  return foldConstants(throwaway);
}

} // namespace dcw::transforms
