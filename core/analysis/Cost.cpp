#include "core/analysis/Cost.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <cstdio>
#include <string_view>
#include <unordered_set>

namespace dcw::analysis {

using namespace dcw::ir;
using sym::Expr;

namespace {

// ONNX ops that only move or reshape data: no arithmetic.
const std::unordered_set<std::string_view> kNoArithmetic = {
    "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice", "Gather",
    "GatherElements", "GatherND", "Scatter", "ScatterElements", "ScatterND", "Identity", "Shape", "Size",
    "Constant", "ConstantOfShape", "Expand", "Tile", "Pad", "Cast", "CastLike", "Range", "NonZero",
    "DepthToSpace", "SpaceToDepth", "Dropout", "Trilu", "OneHot", "EyeLike", "SequenceAt",
    "SequenceConstruct", "SequenceInsert", "SequenceEmpty", "SplitToSequence", "ConcatFromSequence",
    "Optional", "OptionalGetElement", "OptionalHasElement", "ReverseSequence", "Compress", "Unique", "ShuffledConcat"};

// Elementwise ops: one FLOP per output element.
const std::unordered_set<std::string_view> kElementwise = {
    "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Neg",
    "Abs", "Clip", "LeakyRelu", "Erf", "Max", "Min", "Sum", "Mean", "Where", "Equal", "Less", "Greater",
    "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor", "HardSigmoid", "HardSwish", "Softplus",
    "Softsign", "Elu", "Selu", "Celu", "PRelu", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Sin",
    "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsNaN", "IsInf",
    "BitShift", "ThresholdedRelu", "Shrink", "QuantizeLinear", "DequantizeLinear", "Gelu", "Mish"};

// Per-element FLOPs of normalisations and softmax (documented conventions, counted per input element).
int64_t perElementFlops(std::string_view op) {
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") return 5;           // max, sub, exp, sum, div
  if (op == "BatchNormalization") return 2;                                         // folded scale + shift
  if (op == "LayerNormalization" || op == "InstanceNormalization" || op == "GroupNormalization" ||
      op == "MeanVarianceNormalization" || op == "LpNormalization")
    return 5;                                                                       // mean, var, sub, div, affine
  if (op == "ReduceSumSquare" || op == "ReduceL2" || op == "ReduceLogSumExp") return 2;
  if (op.rfind("Reduce", 0) == 0 || op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "ArgMax" ||
      op == "ArgMin" || op == "CumSum" || op == "TopK")
    return 1;
  return 0;
}

struct Port {
  const DataflowEdge* edge = nullptr;
  const DataDescriptor* desc = nullptr;
  std::vector<Expr> shape; // the moved region's sizes (the memlet subset), or the container's shape
  bool known = false;
  Expr elements() const {
    Expr e(1);
    for (auto& s : shape) e = e * s;
    return e;
  }
};

Expr product(const std::vector<Expr>& v, size_t from = 0) {
  Expr e(1);
  for (size_t i = from; i < v.size(); ++i) e = e * v[i];
  return e;
}

int64_t intAttr(const LibraryNode& l, std::string_view name, int64_t def) {
  const Attribute* a = l.attribute(name);
  if (a)
    if (auto* v = std::get_if<int64_t>(&a->value)) return *v;
  return def;
}

// Arithmetic operators and calls in a tasklet's code: a rough count of FLOPs per execution (>= 1).
int64_t taskletOps(const std::string& code) {
  int64_t n = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '+' || c == '*' || c == '/' || c == '%') ++n;
    else if (c == '-' && (i + 1 >= code.size() || code[i + 1] != '>')) ++n;
    else if (c == '(' && i > 0 && (std::isalnum(static_cast<unsigned char>(code[i - 1])) || code[i - 1] == '_')) ++n;
  }
  return std::max<int64_t>(n, 1);
}

class Analyzer {
public:
  explicit Analyzer(CostReport& out) : out_(out) {}

  // Cost of one run of `sdfg`'s top-level operations; records every node it meets.
  NodeCost sdfgCost(const Sdfg& sdfg, const Expr& multiplier) {
    NodeCost total;
    for (State* st : sdfg.allStates()) add(total, stateCost(sdfg, *st, multiplier));
    return total;
  }

private:
  static void add(NodeCost& into, const NodeCost& c) {
    into.flops = into.flops + c.flops;
    into.bytesRead = into.bytesRead + c.bytesRead;
    into.bytesWritten = into.bytesWritten + c.bytesWritten;
    into.parameters += c.parameters;
    into.estimated = into.estimated || c.estimated;
  }

  NodeCost stateCost(const Sdfg& sdfg, const State& st, const Expr& multiplier) {
    NodeCost total;
    auto scopes = st.scopeOf();
    auto scopeOf = [&](const Node* n) -> const MapEntry* {
      if (!scopes) return nullptr;
      auto it = scopes->find(n->id());
      return it == scopes->end() ? nullptr : it->second;
    };
    // Iterations of the maps around a node.
    std::unordered_map<ElementId, Expr> iterations;
    std::function<Expr(const MapEntry*)> itersOf = [&](const MapEntry* m) -> Expr {
      if (!m) return multiplier;
      auto it = iterations.find(m->id());
      if (it != iterations.end()) return it->second;
      // A range that depends on enclosing map parameters (a tile: i in [t, min(t+32, N))) is
      // counted at the first value of each parameter: exact for whole tiles, an over-estimate of
      // at most one partial tile per dimension otherwise; never a free symbol in the total.
      std::map<std::string, Expr> outer;
      for (const MapEntry* p = scopeOf(m); p; p = scopeOf(p))
        for (size_t d = 0; d < p->params.size() && d < p->range.rank(); ++d) outer.emplace(p->params[d], p->range[d].begin);
      Expr vol = m->range.volume();
      if (!outer.empty()) vol = vol.substitute(outer);
      Expr e = itersOf(scopeOf(m)) * vol;
      iterations.emplace(m->id(), e);
      return e;
    };

    std::unordered_map<ElementId, NodeCost> mapCosts; // per MapEntry, its scope's contents
    std::vector<const MapEntry*> entries;
    for (auto& up : st.nodes()) {
      const Node* n = up.get();
      const MapEntry* scope = scopeOf(n);
      std::optional<NodeCost> c;
      if (n->kind() == ElementKind::MapEntry) {
        entries.push_back(static_cast<const MapEntry*>(n));
        continue;
      }
      Expr mult = itersOf(scope);
      if (auto* l = dynamic_cast<const LibraryNode*>(n)) c = libraryCost(sdfg, st, *l, mult);
      else if (auto* t = dynamic_cast<const Tasklet*>(n)) c = taskletCost(sdfg, st, *t, mult);
      else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n)) c = nestedCost(*ns, mult);
      if (!c) continue;
      out_.nodes[n->id()] = *c;
      if (scope) add(mapCosts[scope->id()], *c);
      else add(total, *c);
    }
    // Maps, innermost first (a nested map's scope is summed into its parent's).
    std::sort(entries.begin(), entries.end(), [&](const MapEntry* a, const MapEntry* b) {
      return depth(a, scopeOf) > depth(b, scopeOf);
    });
    for (const MapEntry* m : entries) {
      NodeCost c = mapCosts[m->id()];
      // Bytes of a map are what crosses its boundary: the outer memlets of entry and exit.
      Expr mult = itersOf(scopeOf(m));
      c.bytesRead = Expr(0);
      c.bytesWritten = Expr(0);
      for (auto* e : st.inEdges(m->id())) c.bytesRead = c.bytesRead + mult * edgeBytes(sdfg, *e, c.estimated);
      if (m->exitId != kNoId)
        for (auto* e : st.outEdges(m->exitId)) c.bytesWritten = c.bytesWritten + mult * edgeBytes(sdfg, *e, c.estimated);
      out_.nodes[m->id()] = c;
      if (const MapEntry* parent = scopeOf(m)) add(mapCosts[parent->id()], c);
      else add(total, c);
    }
    return total;
  }

  template <class F>
  static int depth(const MapEntry* m, F& scopeOf) {
    int d = 0;
    for (const MapEntry* p = scopeOf(m); p && d < 1000; p = scopeOf(p)) ++d;
    return d;
  }

  static Expr edgeBytes(const Sdfg& sdfg, const DataflowEdge& e, bool& estimated) {
    if (e.memlet.isEmpty()) return Expr(0);
    const DataDescriptor* d = findData(sdfg, e.memlet.data);
    size_t size = d ? dtypeSize(d->dtype) : 0;
    if (size == 0 || e.memlet.dynamic) estimated = true;
    return e.memlet.volume * Expr(int64_t(size));
  }

  // Data is looked up in the node's SDFG (nested SDFGs declare their own containers).
  static const DataDescriptor* findData(const Sdfg& sdfg, const std::string& name) { return sdfg.findData(name); }

  Port port(const Sdfg& sdfg, const State& st, const Node& n, const std::string& conn, bool input) {
    Port p;
    for (auto* e : input ? st.inEdges(n.id()) : st.outEdges(n.id())) {
      if ((input ? e->dstConnector : e->srcConnector) != conn) continue;
      p.edge = e;
      p.desc = findData(sdfg, e->memlet.data);
      if (!p.desc || !p.desc->rankKnown || !p.desc->wrappers.empty() || e->memlet.dynamic) return p;
      p.shape = e->memlet.subset.empty() ? p.desc->shape : e->memlet.subset.sizes();
      p.known = true;
      return p;
    }
    return p;
  }

  NodeCost ioCost(const Sdfg& sdfg, const State& st, const Node& n, const Expr& mult) {
    NodeCost c;
    for (auto* e : st.inEdges(n.id())) {
      c.bytesRead = c.bytesRead + mult * edgeBytes(sdfg, *e, c.estimated);
      if (n.kind() != ElementKind::LibraryNode) continue;
      const DataDescriptor* d = findData(sdfg, e->memlet.data);
      if (d && d->constant) c.parameters += d->constant->elementCount();
    }
    for (auto* e : st.outEdges(n.id())) c.bytesWritten = c.bytesWritten + mult * edgeBytes(sdfg, *e, c.estimated);
    return c;
  }

  NodeCost libraryCost(const Sdfg& sdfg, const State& st, const LibraryNode& l, const Expr& mult) {
    NodeCost c = ioCost(sdfg, st, l, mult);
    std::string op = l.opType;
    Port y = l.outConnectors().empty() ? Port{} : port(sdfg, st, l, l.outConnectors()[0].name, false);
    auto in = [&](const char* name) { return port(sdfg, st, l, name, true); };
    std::optional<Expr> flops;
    // DCW's fused ops (core/expansions/FusedOp.h): FusedX costs X's formula plus one FLOP per output
    // element for the sum with Z and one for the activation; Gelu and Silu are elementwise.
    int64_t epilogue = 0;
    const bool dcwOp = l.domain == "dcw";
    if (dcwOp && op.rfind("Fused", 0) == 0) {
      op = op.substr(5);
      const Attribute* act = l.attribute("activation");
      auto* actName = act ? std::get_if<std::string>(&act->value) : nullptr;
      epilogue = (in("Z").known ? 1 : 0) + (actName && !actName->empty() ? 1 : 0);
    } else if (dcwOp && (op == "Gelu" || op == "Silu")) {
      if (y.known) flops = y.elements();
    } else if (dcwOp && op == "ConcatBatchNormalization") {
      // the normalization's multiply and add per element (the copy computes nothing), plus the activation
      const Attribute* act = l.attribute("activation");
      auto* actName = act ? std::get_if<std::string>(&act->value) : nullptr;
      if (y.known) flops = y.elements() * Expr(actName && !actName->empty() ? 3 : 2);
    }
    if (flops) {
      // set above
    } else if (!l.domain.empty() && l.domain != "ai.onnx" && !dcwOp) {
      // no formula for other domains
    } else if (kNoArithmetic.count(op)) {
      flops = Expr(0);
    } else if (op == "Conv" || op == "ConvTranspose" || op == "ConvInteger") {
      Port w = in("W"), x = in("X");
      const Port& base = op == "ConvTranspose" ? x : y;
      if (w.known && base.known && w.shape.size() >= 2) {
        flops = Expr(2) * base.elements() * product(w.shape, 1);
        if (in("B").known && y.known) flops = *flops + y.elements();
      }
    } else if (op == "Gemm") {
      Port a = in("A");
      if (a.known && y.known && a.shape.size() == 2) {
        Expr k = intAttr(l, "transA", 0) ? a.shape[0] : a.shape[1];
        flops = Expr(2) * y.elements() * k;
        if (in("C").known) flops = *flops + y.elements();
      }
    } else if (op == "MatMul" || op == "MatMulInteger") {
      Port a = in("A");
      if (a.known && y.known && !a.shape.empty()) flops = Expr(2) * y.elements() * a.shape.back();
    } else if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
      const Attribute* k = l.attribute("kernel_shape");
      auto* dims = k ? std::get_if<std::vector<int64_t>>(&k->value) : nullptr;
      if (dims && y.known) {
        int64_t window = 1;
        for (int64_t d : *dims) window *= d;
        flops = y.elements() * Expr(window);
      }
    } else if (op == "LSTM" || op == "GRU" || op == "RNN") {
      Port x = in("X"), w = in("W"), r = in("R");
      if (x.known && w.known && r.known && x.shape.size() == 3) {
        Expr steps = intAttr(l, "layout", 0) ? x.shape[1] * x.shape[0] : x.shape[0] * x.shape[1];
        flops = Expr(2) * steps * (w.elements() + r.elements());
      }
    } else if (int64_t k = perElementFlops(op)) {
      Port x = l.inConnectors().empty() ? Port{} : port(sdfg, st, l, l.inConnectors()[0].name, true);
      if (x.known) flops = x.elements() * Expr(k);
    } else if (kElementwise.count(op)) {
      if (y.known) flops = y.elements();
    }
    if (!flops && !l.subgraphs().empty()) {
      // Control flow (If/Loop/Scan): what one run of the bodies costs, as an estimate.
      NodeCost body;
      for (auto& g : l.subgraphs())
        if (g.sdfg) add(body, sdfgCost(*g.sdfg, mult));
      flops = body.flops;
      c.estimated = true;
    }
    if (!flops) {
      flops = y.known ? y.elements() : Expr(0);
      c.estimated = true;
    }
    if (epilogue && y.known) flops = *flops + Expr(epilogue) * y.elements();
    c.flops = mult * *flops;
    return c;
  }

  NodeCost taskletCost(const Sdfg& sdfg, const State& st, const Tasklet& t, const Expr& mult) {
    NodeCost c = ioCost(sdfg, st, t, mult);
    if (t.language == TaskletLanguage::Cpp) {
      // Opaque C++: the FLOPs its implementation declared; without a declaration they are unknown,
      // counted as 0 and marked estimated.
      if (t.flops) {
        c.flops = mult * *t.flops;
      } else {
        c.flops = Expr(0);
        c.estimated = true;
      }
      return c;
    }
    c.flops = mult * Expr(taskletOps(t.code));
    return c;
  }

  NodeCost nestedCost(const NestedSdfgNode& n, const Expr& mult) {
    NodeCost inner = sdfgCost(n.sdfg(), Expr(1));
    auto sub = [&](const Expr& e) { return mult * e.substitute(n.symbolMapping); };
    NodeCost c;
    c.flops = sub(inner.flops);
    c.bytesRead = sub(inner.bytesRead);
    c.bytesWritten = sub(inner.bytesWritten);
    c.parameters = inner.parameters;
    c.estimated = inner.estimated;
    return c;
  }

  CostReport& out_;
};

} // namespace

CostReport analyzeCost(const Sdfg& sdfg) {
  CostReport report;
  Analyzer a(report);
  report.total = a.sdfgCost(sdfg, Expr(1));
  // Parameters of the model: every constant array, counted once (not once per reader).
  report.total.parameters = 0;
  for (auto& d : sdfg.data())
    if (d->constant) report.total.parameters += d->constant->elementCount();
  auto collect = [&](const NodeCost& c) {
    for (const Expr* e : {&c.flops, &c.bytesRead, &c.bytesWritten})
      for (auto& s : e->freeSymbols()) report.symbols.insert(s);
  };
  collect(report.total);
  for (auto& [id, c] : report.nodes) collect(c);
  return report;
}

std::optional<double> evaluate(const Expr& cost, const std::map<std::string, int64_t>& symbols, int64_t fallback) {
  if (auto v = cost.constantValue()) return double(*v);
  std::map<std::string, int64_t> values;
  for (auto& s : cost.freeSymbols()) {
    auto it = symbols.find(s);
    values[s] = it == symbols.end() ? fallback : it->second;
  }
  auto v = cost.evaluate(values);
  if (!v) return std::nullopt;
  return double(*v);
}

std::string formatCount(double value) {
  static const char* const prefixes[] = {"", " k", " M", " G", " T", " P", " E"};
  int i = 0;
  double v = value;
  while (std::fabs(v) >= 1000.0 && i < 6) {
    v /= 1000.0;
    ++i;
  }
  char buf[32];
  if (i == 0) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s", v, prefixes[i]);
  return buf;
}

} // namespace dcw::analysis
