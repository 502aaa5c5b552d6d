#include "transforms/catalogue/MatMulAddToGemm.h"

#include "core/ir/LibraryNode.h"
#include "core/onnx/OpCatalog.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

int64_t onnxOpset(const Sdfg& root) {
  auto it = root.metadata.find("opset:ai.onnx");
  if (it == root.metadata.end()) return 0;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return 0;
  }
}

struct MatMulAddToGemmPlan {
  LibraryNode* mm = nullptr;
  LibraryNode* add = nullptr;
  AccessNode* t = nullptr;
  const DataflowEdge *a = nullptr, *b = nullptr, *bias = nullptr, *y = nullptr;
  int64_t gemmVersion = 0;
};

bool analyseMatMulAddToGemm(const Match& match, const Sdfg& root, MatMulAddToGemmPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("matmul");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.mm = bind->get<LibraryNode>("matmul");
  p.t = bind->get<AccessNode>("product");
  p.add = bind->get<LibraryNode>("add");
  if (!p.mm || p.mm->domain != "" || p.mm->opType != "MatMul") return fail("is not an ONNX MatMul node");
  if (!p.add || p.add->domain != "" || p.add->opType != "Add") return fail("the MatMul's result does not go to an ONNX Add node");
  if (!p.t) return fail("the MatMul's result is not an access node");
  State& st = *p.mm->parent();
  const Sdfg* sdfg = owningSdfg(p.mm);
  auto desc = [&](const DataflowEdge* e, bool src) -> const DataDescriptor* {
    if (!e) return nullptr;
    auto* an = dynamic_cast<AccessNode*>(st.node(src ? e->src : e->dst));
    return an ? sdfg->findData(an->data()) : nullptr;
  };
  p.a = graph::inEdge(st, *p.mm, "A");
  p.b = graph::inEdge(st, *p.mm, "B");
  const DataDescriptor *A = desc(p.a, true), *B = desc(p.b, true);
  if (!A || !B) return fail("the MatMul's operands are not access nodes");
  if (!A->rankKnown || !B->rankKnown || A->shape.size() != 2 || B->shape.size() != 2)
    return fail("the MatMul is not 2-D (A is " + A->typeString() + ", B is " + B->typeString() + ")",
                "Gemm multiplies matrices only");
  // The product T: written by the MatMul, read by the Add, nowhere else.
  auto mmOut = st.outEdges(p.mm->id());
  if (mmOut.size() != 1 || mmOut[0]->dst != p.t->id()) return fail("the MatMul must have exactly one output edge, to the product");
  const DataDescriptor* T = sdfg->findData(p.t->data());
  if (!T) return fail("the product's data does not exist");
  if (!T->transient) return fail("the product '" + T->name() + "' is an output of the model", "it must stay computed");
  if (st.inEdges(p.t->id()).size() != 1 || st.outEdges(p.t->id()).size() != 1 || graph::accessCount(*sdfg, T->name()) != 1)
    return fail("the product '" + T->name() + "' is used by other nodes than the Add");
  const DataflowEdge* addA = graph::inEdge(st, *p.add, "A");
  const DataflowEdge* addB = graph::inEdge(st, *p.add, "B");
  if (!addA || !addB) return fail("the Add does not have two inputs");
  bool tFirst = addA->src == p.t->id();
  p.bias = tFirst ? addB : addA;
  if (p.bias->src == p.t->id()) return fail("the Add adds the product to itself");
  const DataDescriptor* bias = desc(p.bias, true);
  if (!bias) return fail("the Add's bias is not an access node");
  auto addOut = st.outEdges(p.add->id());
  if (addOut.size() != 1) return fail("the Add must have exactly one output edge");
  p.y = addOut[0];
  const DataDescriptor* Y = desc(p.y, false);
  if (!Y) return fail("the Add's output is not an access node");
  if (!T->rankKnown || T->shape.size() != 2 || !Y->rankKnown || Y->shape != T->shape || Y->dtype != T->dtype)
    return fail("the Add's output " + Y->typeString() + " does not have the product's type " + T->typeString(),
                "the bias must not broadcast the product");
  if (!bias->rankKnown || bias->shape.size() > 2 || !bias->wrappers.empty())
    return fail("the bias " + bias->typeString() + " is not broadcastable to the product " + T->typeString());
  for (size_t d = 0; d < bias->shape.size(); ++d) {
    const sym::Expr& bd = bias->shape[d];
    const sym::Expr& td = T->shape[2 - bias->shape.size() + d];
    if (bd != sym::Expr(1) && sym::proveEqual(bd, td) != true)
      return fail("the bias " + bias->typeString() + " is not broadcastable to the product " + T->typeString());
  }
  if (bias->dtype != T->dtype) return fail("the bias has another dtype than the product");
  auto cls = onnx::findOpClass("", "Gemm", int(onnxOpset(root)));
  if (!cls || cls->sinceVersion < 7)
    return fail("the model's ai.onnx opset (" + std::to_string(onnxOpset(root)) + ") has no Gemm with broadcasting",
                "Gemm broadcasts C from opset 7 on");
  if (!isFloating(T->dtype) && cls->sinceVersion < 11)
    return fail("Gemm of opset " + std::to_string(cls->sinceVersion) + " has no " + std::string(dtypeName(T->dtype)) + " version",
                "integer Gemm needs opset 11");
  p.gemmVersion = cls->sinceVersion;
  return true;
}

} // namespace

const Pattern& MatMulAddToGemm::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"matmul", {ElementKind::LibraryNode}}, {"product", {ElementKind::AccessNode}}, {"add", {ElementKind::LibraryNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool MatMulAddToGemm::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  MatMulAddToGemmPlan p;
  return analyseMatMulAddToGemm(match, root, p, whyNot);
}

Expected<void> MatMulAddToGemm::apply(const Match& match, edit::Editor& ed) const {
  MatMulAddToGemmPlan p;
  if (auto ok = analyseForApply(analyseMatMulAddToGemm, match, ed.root(), p, "matmul"); !ok) return ok;
  State& st = *p.mm->parent();
  Sdfg& sdfg = *owningSdfg(p.mm);
  struct End {
    ElementId node;
    std::string conn;
    Memlet memlet;
  };
  End a{p.a->src, p.a->srcConnector, p.a->memlet}, b{p.b->src, p.b->srcConnector, p.b->memlet};
  End c{p.bias->src, p.bias->srcConnector, p.bias->memlet}, y{p.y->dst, p.y->dstConnector, p.y->memlet};
  const std::string label = p.mm->label();
  const std::string tData = p.t->data();
  auto dtypeOf = [&](ElementId n) {
    auto* an = dynamic_cast<AccessNode*>(st.node(n));
    const DataDescriptor* d = an ? sdfg.findData(an->data()) : nullptr;
    return d ? d->dtype : DType::Undefined;
  };

  auto gemm = std::make_unique<LibraryNode>(label);
  gemm->domain = "";
  gemm->opType = "Gemm";
  gemm->opsetVersion = p.gemmVersion;
  gemm->addIn(Connector{"A", dtypeOf(a.node), false});
  gemm->addIn(Connector{"B", dtypeOf(b.node), false});
  gemm->addIn(Connector{"C", dtypeOf(c.node), p.gemmVersion >= 11});
  gemm->addOut(Connector{"Y", dtypeOf(y.node), false});
  gemm->attributes.push_back(Attribute{"alpha", 1.0});
  gemm->attributes.push_back(Attribute{"beta", 1.0});

  ed.removeNode(st, p.add->id());
  ed.removeNode(st, p.t->id());
  ed.removeNode(st, p.mm->id());
  ed.removeData(sdfg, tData);
  Node* g = ed.addNode(st, std::move(gemm));
  ed.addEdge(st, *st.node(a.node), a.conn, *g, "A", a.memlet);
  ed.addEdge(st, *st.node(b.node), b.conn, *g, "B", b.memlet);
  ed.addEdge(st, *st.node(c.node), c.conn, *g, "C", c.memlet);
  ed.addEdge(st, *g, "Y", *st.node(y.node), y.conn, y.memlet);
  return {};
}

} // namespace dcw::transforms
