#include "transforms/catalogue/LayerNormFusion.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

using Fail = std::function<bool(const std::string&, const std::string&)>;

struct LayerNormFusionPlan {
  std::vector<const LibraryNode*> ops;  // the chain's ops
  std::vector<ElementId> intermediates; // access nodes of the transients between them
  const DataflowEdge* x = nullptr;      // x -> the first ReduceMean
  const DataflowEdge* gamma = nullptr;  // gamma -> the scaling Mul
  const DataflowEdge* beta = nullptr;   // beta -> the shifting Add (nullptr: none)
  const DataflowEdge* y = nullptr;      // the last op's output edge
  std::string xData;
  int64_t axis = 0;
  double epsilon = 0;
};

// Follows and checks the chain from the matched ReduceMean.
class LayerNormWalk {
public:
  LayerNormWalk(const State& st, const Sdfg& sdfg, LayerNormFusionPlan& plan, const Fail& fail)
      : st_(st), sdfg_(sdfg), plan_(plan), fail_(fail) {}

  bool run(const LibraryNode* meanOp, const AccessNode* mean, const LibraryNode* sub) {
    // mu = ReduceMean(x) over trailing axes.
    const DataflowEdge* xEdge = nullptr;
    std::vector<int64_t> axes;
    if (!reduceMean(meanOp, &xEdge, axes)) return false;
    auto* xNode = dynamic_cast<const AccessNode*>(st_.node(xEdge->src));
    const DataDescriptor* X = xNode ? sdfg_.findData(xNode->data()) : nullptr;
    if (!X) return fail("x is not an access node");
    if (X->dtype != DType::Float32 && X->dtype != DType::Float64)
      return fail("x is " + std::string(dtypeName(X->dtype)) + "; LayerNormalization takes float32 or float64 here");
    const int64_t rank = int64_t(X->shape.size());
    for (auto& a : axes) a = a < 0 ? a + rank : a;
    std::sort(axes.begin(), axes.end());
    for (size_t k = 0; k < axes.size(); ++k)
      if (axes[k] != rank - int64_t(axes.size()) + int64_t(k))
        return fail("the mean is over axes " + text(axes) + " of a rank-" + std::to_string(rank) + " x, not over its last ones",
                    "LayerNormalization normalizes over trailing axes");
    plan_.x = xEdge;
    plan_.xData = X->name();
    plan_.axis = axes.front();
    plan_.ops = {meanOp};
    if (!intermediate(meanOp, mean, {sub})) return false;

    // d = x - mu
    if (!onnxOp(sub, "Sub")) return fail("the mean does not go to an ONNX Sub");
    auto [sa, sb] = binary(sub, "A", "B");
    if (!sa || !sb || !isX(sa) || sb->src != mean->id()) return fail("the Sub does not subtract the mean from x");
    plan_.ops.push_back(sub);
    const AccessNode* d = result(sub);
    if (!d) return false;
    auto readers = readersOf(d);
    if (readers.size() != 2) return fail("x - mean must be read by the square and the division alone");

    // d^2 as Pow(d, 2) or Mul(d, d); the other reader divides by the deviation.
    const LibraryNode* square = nullptr;
    const LibraryNode* divide = nullptr;
    for (int k = 0; k < 2 && !square; ++k)
      if (isSquareOf(readers[k], d)) square = readers[k], divide = readers[1 - k];
    if (!square) return fail("x - mean is not squared by Pow(., 2) or Mul(., .)");
    if (!intermediate(sub, d, {square, divide})) return false;
    plan_.ops.push_back(square);

    // var = ReduceMean(d^2) over the same axes.
    const LibraryNode* varOp = next(square);
    if (!varOp) return false;
    const DataflowEdge* varIn = nullptr;
    std::vector<int64_t> varAxes;
    if (!reduceMean(varOp, &varIn, varAxes)) return false;
    for (auto& a : varAxes) a = a < 0 ? a + rank : a;
    std::sort(varAxes.begin(), varAxes.end());
    if (varAxes != axes) return fail("the variance is over axes " + text(varAxes) + ", the mean over " + text(axes));
    plan_.ops.push_back(varOp);

    // sqrt(var + eps); refused when the epsilon comes after the Sqrt.
    const LibraryNode* addEps = next(varOp);
    if (!addEps) return false;
    if (onnxOp(addEps, "Sqrt")) {
      const LibraryNode* after = nextReader(addEps);
      if (onnxOp(after, "Add") && epsilonOf(after))
        return fail("the epsilon is added after the Sqrt", "LayerNormalization adds it to the variance, inside the square root");
      return fail("the variance goes to a Sqrt without an epsilon added first");
    }
    if (!onnxOp(addEps, "Add")) return fail("the variance does not go to an ONNX Add of the epsilon");
    auto eps = epsilonOf(addEps);
    if (!eps) return fail("the Add after the variance does not add a one-element constant epsilon");
    plan_.epsilon = *eps;
    plan_.ops.push_back(addEps);
    const LibraryNode* sqrt = next(addEps);
    if (!sqrt) return false;
    if (!onnxOp(sqrt, "Sqrt")) return fail("var + epsilon does not go to an ONNX Sqrt");
    plan_.ops.push_back(sqrt);

    // n = d / s, or d * (1 / s) with the reciprocal as Reciprocal or Div(1, s).
    const LibraryNode* s1 = next(sqrt);
    if (!s1) return false;
    const LibraryNode* norm = nullptr;
    if (s1 == divide) {
      auto [da, db] = binary(divide, "A", "B");
      if (!onnxOp(divide, "Div") || !da || da->src != d->id()) return fail("x - mean is not divided by the deviation");
      norm = divide;
    } else {
      bool reciprocal = onnxOp(s1, "Reciprocal");
      if (!reciprocal && onnxOp(s1, "Div")) {
        auto [ra, rb] = binary(s1, "A", "B");
        reciprocal = ra && rb && near(graph::scalarConstant(sdfg_, st_, ra), 1.0) && rb->src == plan_.intermediates.back();
      }
      if (!reciprocal) return fail("the deviation does not go to the division, a Reciprocal or Div(1, .)");
      plan_.ops.push_back(s1);
      const LibraryNode* mul = next(s1);
      if (!mul) return false;
      if (mul != divide || !onnxOp(mul, "Mul") || !other(mul, plan_.intermediates.back()) ||
          other(mul, plan_.intermediates.back())->src != d->id())
        return fail("x - mean is not multiplied by the reciprocal of the deviation");
      norm = mul;
    }
    plan_.ops.push_back(norm);

    // y = n * gamma (+ beta)
    const std::vector<sym::Expr> normalized(X->shape.begin() + plan_.axis, X->shape.end());
    const LibraryNode* scale = next(norm);
    if (!scale) return false;
    if (!onnxOp(scale, "Mul")) return fail("the normalized value does not go to an ONNX Mul by gamma");
    plan_.gamma = other(scale, plan_.intermediates.back());
    if (!isParameter(plan_.gamma, normalized, X->dtype))
      return fail("the Mul after the normalization is not by a constant gamma of the normalized dims' shape", "");
    plan_.ops.push_back(scale);
    const LibraryNode* last = scale;
    if (const LibraryNode* shift = nextReader(scale); onnxOp(shift, "Add")) {
      const DataflowEdge* b = nullptr;
      auto out = st_.outEdges(scale->id());
      auto* t = out.size() == 1 ? dynamic_cast<const AccessNode*>(st_.node(out[0]->dst)) : nullptr;
      if (t) b = other(shift, t->id());
      if (b && isParameter(b, normalized, X->dtype) && privateTo(scale, t, {shift})) {
        plan_.intermediates.push_back(t->id());
        plan_.beta = b;
        plan_.ops.push_back(shift);
        last = shift;
      }
    }

    // y: x's type and shape.
    auto out = st_.outEdges(last->id());
    if (out.size() != 1) return fail("the last op must have exactly one output edge");
    auto* yNode = dynamic_cast<const AccessNode*>(st_.node(out[0]->dst));
    const DataDescriptor* Y = yNode ? sdfg_.findData(yNode->data()) : nullptr;
    if (!Y) return fail("the result is not an access node");
    if (Y->dtype != X->dtype || !epilogue::sameShape(*Y, X->shape))
      return fail("the result " + Y->typeString() + " does not have x's type " + X->typeString(), "");
    plan_.y = out[0];
    return true;
  }

private:
  static bool onnxOp(const LibraryNode* n, const char* op) { return n && !n->opaque && n->domain.empty() && n->opType == op; }

  static std::string text(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s + "]";
  }

  // A ReduceMean with keepdims and its axes as an attribute (opset 17 and before).
  bool reduceMean(const LibraryNode* n, const DataflowEdge** in, std::vector<int64_t>& axes) const {
    if (!onnxOp(n, "ReduceMean")) return fail("is not an ONNX ReduceMean");
    if (graph::inEdge(st_, *n, "axes")) return fail("the ReduceMean takes its axes as an input (opset 18)", "");
    *in = graph::inEdge(st_, *n, "data");
    if (!*in) return fail("the ReduceMean's input is not connected");
    const Attribute* k = n->attribute("keepdims");
    if (k && std::get_if<int64_t>(&k->value) && *std::get_if<int64_t>(&k->value) == 0)
      return fail("the ReduceMean drops the reduced axes (keepdims = 0)");
    const Attribute* a = n->attribute("axes");
    if (!a || !std::get_if<std::vector<int64_t>>(&a->value) || std::get_if<std::vector<int64_t>>(&a->value)->empty())
      return fail("the ReduceMean reduces every axis (no axes)", "LayerNormalization keeps at least the first axis");
    axes = *std::get_if<std::vector<int64_t>>(&a->value);
    return true;
  }

  std::pair<const DataflowEdge*, const DataflowEdge*> binary(const LibraryNode* n, const char* a, const char* b) const {
    return {graph::inEdge(st_, *n, a), graph::inEdge(st_, *n, b)};
  }

  // The operand of binary `n` (A, B) that is not read from the access node `not_`.
  const DataflowEdge* other(const LibraryNode* n, ElementId not_) const {
    auto [a, b] = binary(n, "A", "B");
    if (!a || !b) return nullptr;
    if (a->src == not_ && b->src != not_) return b;
    if (b->src == not_ && a->src != not_) return a;
    return nullptr;
  }

  bool isX(const DataflowEdge* e) const {
    auto* an = e ? dynamic_cast<const AccessNode*>(st_.node(e->src)) : nullptr;
    return an && an->data() == plan_.xData;
  }

  bool isSquareOf(const LibraryNode* n, const AccessNode* d) const {
    if (onnxOp(n, "Pow")) {
      auto [b, e] = binary(n, "X", "Y");
      return b && b->src == d->id() && near(graph::scalarConstant(sdfg_, st_, e), 2.0);
    }
    if (onnxOp(n, "Mul")) {
      auto [a, b] = binary(n, "A", "B");
      return a && b && a->src == d->id() && b->src == d->id();
    }
    return false;
  }

  std::optional<double> epsilonOf(const LibraryNode* add) const {
    auto [a, b] = binary(add, "A", "B");
    if (auto v = graph::scalarConstant(sdfg_, st_, b); v && *v >= 0 && *v < 1) return v;
    if (auto v = graph::scalarConstant(sdfg_, st_, a); v && *v >= 0 && *v < 1) return v;
    return std::nullopt;
  }

  // gamma or beta: constant data of the normalized dims' shape and x's type.
  bool isParameter(const DataflowEdge* e, const std::vector<sym::Expr>& shape, DType t) const {
    auto* an = e ? dynamic_cast<const AccessNode*>(st_.node(e->src)) : nullptr;
    const DataDescriptor* d = an ? sdfg_.findData(an->data()) : nullptr;
    return d && d->constant && d->dtype == t && epilogue::sameShape(*d, shape);
  }

  static bool near(std::optional<double> v, double want) { return v && std::abs(*v - want) <= 1e-6 * std::abs(want); }

  // The library nodes that read access node `n`, one per edge.
  std::vector<const LibraryNode*> readersOf(const AccessNode* n) const {
    std::vector<const LibraryNode*> r;
    for (auto* e : st_.outEdges(n->id()))
      if (auto* l = dynamic_cast<const LibraryNode*>(st_.node(e->dst)); l && std::find(r.begin(), r.end(), l) == r.end()) r.push_back(l);
    return r;
  }

  // The access node `from` writes alone.
  const AccessNode* result(const LibraryNode* from) const {
    auto out = st_.outEdges(from->id());
    auto* node = out.size() == 1 ? dynamic_cast<const AccessNode*>(st_.node(out[0]->dst)) : nullptr;
    if (!node) fail("the " + from->opType + " must have exactly one output, to an access node");
    return node;
  }

  // Whether `node` is a transient written by `from` alone and read only by the ops `to`.
  bool privateTo(const LibraryNode* from, const AccessNode* node, const std::vector<const LibraryNode*>& to) const {
    const DataDescriptor* d = node ? sdfg_.findData(node->data()) : nullptr;
    if (!d) return false;
    auto out = st_.outEdges(from->id());
    for (auto* e : st_.outEdges(node->id()))
      if (std::find(to.begin(), to.end(), st_.node(e->dst)) == to.end()) return false;
    return out.size() == 1 && out[0]->dst == node->id() && d->transient && graph::accessCount(sdfg_, d->name()) == 1 &&
           st_.inEdges(node->id()).size() == 1 && !graph::namedInControlFlow(sdfg_, d->name());
  }

  // The same, recorded as an intermediate of the chain; else the reason.
  bool intermediate(const LibraryNode* from, const AccessNode* node, const std::vector<const LibraryNode*>& to) {
    if (!node || !sdfg_.findData(node->data())) return fail("an intermediate of the chain is not an access node");
    if (!privateTo(from, node, to))
      return fail("the " + from->opType + "'s result '" + node->data() + "' is used elsewhere", "the LayerNormalization node would no longer compute it");
    plan_.intermediates.push_back(node->id());
    return true;
  }

  // The op that alone reads the one result of `from`, or nullptr (nothing recorded).
  const LibraryNode* nextReader(const LibraryNode* from) const {
    auto out = st_.outEdges(from->id());
    auto* node = out.size() == 1 ? dynamic_cast<const AccessNode*>(st_.node(out[0]->dst)) : nullptr;
    auto reads = node ? readersOf(node) : std::vector<const LibraryNode*>{};
    return reads.size() == 1 ? reads[0] : nullptr;
  }

  // The op that alone reads the one result of `from` (recorded as an intermediate).
  const LibraryNode* next(const LibraryNode* from) {
    const LibraryNode* to = nextReader(from);
    if (!to) {
      fail("the " + from->opType + "'s result does not go to one library node alone");
      return nullptr;
    }
    return intermediate(from, result(from), {to}) ? to : nullptr;
  }

  bool fail(const std::string& message, const std::string& hint = {}) const { return fail_(message, hint); }

  const State& st_;
  const Sdfg& sdfg_;
  LayerNormFusionPlan& plan_;
  const Fail& fail_;
};

bool analyseLayerNormFusion(const Match& match, const Sdfg& root, LayerNormFusionPlan& plan, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("mean_op");
  Fail fail = [&](const std::string& msg, const std::string& hint) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  auto* meanOp = bind->get<LibraryNode>("mean_op");
  auto* mean = bind->get<AccessNode>("mean");
  auto* sub = bind->get<LibraryNode>("sub");
  if (!meanOp || !mean || !sub) return fail("is not a library node followed by its result and another library node", "");
  plan = LayerNormFusionPlan{};
  LayerNormWalk w(*meanOp->parent(), *owningSdfg(meanOp), plan, fail);
  return w.run(meanOp, mean, sub);
}

} // namespace

const Pattern& LayerNormFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"mean_op", {ElementKind::LibraryNode}}, {"mean", {ElementKind::AccessNode}}, {"sub", {ElementKind::LibraryNode}}}, {{0, 1}, {1, 2}});
  return p;
}

bool LayerNormFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  LayerNormFusionPlan plan;
  return analyseLayerNormFusion(match, root, plan, whyNot);
}

Expected<void> LayerNormFusion::apply(const Match& match, edit::Editor& ed) const {
  LayerNormFusionPlan plan;
  if (auto ok = analyseForApply(analyseLayerNormFusion, match, ed.root(), plan, "mean_op"); !ok) return ok;
  State& st = *plan.ops.front()->parent();
  Sdfg& sdfg = *owningSdfg(&st);
  struct End {
    ElementId node;
    std::string conn;
    Memlet memlet;
  };
  const End x{plan.x->src, plan.x->srcConnector, plan.x->memlet}, gamma{plan.gamma->src, plan.gamma->srcConnector, plan.gamma->memlet};
  const End y{plan.y->dst, plan.y->dstConnector, plan.y->memlet};
  std::optional<End> beta;
  if (plan.beta) beta = End{plan.beta->src, plan.beta->srcConnector, plan.beta->memlet};
  const DType t = sdfg.findData(plan.xData)->dtype;
  // Operands the chain read besides x, gamma, beta and its own intermediates: the epsilon, the exponent, the 1.
  std::set<ElementId> read;
  std::vector<ElementId> ops;
  for (auto* op : plan.ops) {
    ops.push_back(op->id());
    for (auto* e : st.inEdges(op->id()))
      if (e->src != x.node && e->src != gamma.node && (!beta || e->src != beta->node) &&
          std::find(plan.intermediates.begin(), plan.intermediates.end(), e->src) == plan.intermediates.end())
        read.insert(e->src);
  }
  std::vector<std::string> transients;
  for (ElementId id : plan.intermediates) transients.push_back(static_cast<AccessNode*>(st.node(id))->data());

  // The name the exporter gave the block: "/ln/ReduceMean" becomes "/ln/LayerNormalization".
  std::string label = plan.ops.front()->label();
  if (auto at = label.rfind("ReduceMean"); at != std::string::npos && at + 10 == label.size()) label = label.substr(0, at) + "LayerNormalization";
  else label += "_layernorm";
  auto ln = std::make_unique<LibraryNode>(label);
  ln->domain = "";
  ln->opType = "LayerNormalization";
  ln->opsetVersion = 17;
  ln->addIn(Connector{"X", t, false});
  ln->addIn(Connector{"Scale", t, false});
  ln->addIn(Connector{"B", t, true});
  ln->addOut(Connector{"Y", t, false});
  ln->addOut(Connector{"Mean", DType::Undefined, true});
  ln->addOut(Connector{"InvStdDev", DType::Undefined, true});
  ln->attributes.push_back(Attribute{"axis", plan.axis});
  ln->attributes.push_back(Attribute{"epsilon", plan.epsilon});
  for (ElementId id : ops) ed.removeNode(st, id);
  for (ElementId id : plan.intermediates) ed.removeNode(st, id);
  for (auto& d : transients) ed.removeData(sdfg, d);
  Node* n = ed.addNode(st, std::move(ln));
  ed.addEdge(st, *st.node(x.node), x.conn, *n, "X", x.memlet);
  ed.addEdge(st, *st.node(gamma.node), gamma.conn, *n, "Scale", gamma.memlet);
  if (beta) ed.addEdge(st, *st.node(beta->node), beta->conn, *n, "B", beta->memlet);
  ed.addEdge(st, *n, "Y", *st.node(y.node), y.conn, y.memlet);
  epilogue::removeUnread(ed, st, read);
  return {};
}

} // namespace dcw::transforms
