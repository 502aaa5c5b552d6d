#include "transforms/catalogue/ElementwiseChainFusion.h"

#include "core/expansions/SdfgBuilder.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/EpilogueTools.h"
#include "transforms/catalogue/GraphTools.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// The arity of a supported op, or 0.
int arity(const LibraryNode& n) {
  static const std::set<std::string> binary{"Add", "Sub", "Mul", "Div", "Pow"};
  static const std::set<std::string> unary{"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Neg", "Abs", "Sqrt",
                                           "Reciprocal", "LeakyRelu", "Elu", "Softsign", "Identity", "Erf"};
  if (!n.domain.empty() || n.opaque) return 0;
  if (binary.count(n.opType)) return 2;
  if (unary.count(n.opType)) return 1;
  return 0;
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string literal(double v, DType t) { return t == DType::Float64 ? number(v) : "float32(" + number(v) + ")"; }

double attrFloat(const LibraryNode& n, const std::string& name, double fallback) {
  if (const Attribute* a = n.attribute(name)) {
    if (auto* d = std::get_if<double>(&a->value)) return *d;
    if (auto* i = std::get_if<int64_t>(&a->value)) return double(*i);
  }
  return fallback;
}

// The composed expression of one op over its operand expressions.
std::string formula(const LibraryNode& n, const std::vector<std::string>& xs, DType t) {
  const std::string& op = n.opType;
  auto p = [&](size_t k) { return "(" + xs[k] + ")"; };
  if (op == "Add") return p(0) + " + " + p(1);
  if (op == "Sub") return p(0) + " - " + p(1);
  if (op == "Mul") return p(0) + " * " + p(1);
  if (op == "Div") return p(0) + " / " + p(1);
  if (op == "Pow") { // x^2 and x^3 (GELU's tanh form, RMS norms) as products, as exporters mean them
    if (xs[1] == literal(2, t)) return p(0) + " * " + p(0);
    if (xs[1] == literal(3, t)) return p(0) + " * " + p(0) + " * " + p(0);
    if (xs[1] == literal(0.5, t)) return "sqrt(" + xs[0] + ")";
    return "pow(" + xs[0] + ", " + xs[1] + ")";
  }
  if (op == "Erf") return "erf(" + xs[0] + ")";
  if (op == "Relu") return "max(" + xs[0] + ", " + literal(0, t) + ")";
  if (op == "Sigmoid") return literal(1, t) + " / (" + literal(1, t) + " + exp(-" + p(0) + "))";
  if (op == "Tanh") return "tanh(" + xs[0] + ")";
  if (op == "Exp") return "exp(" + xs[0] + ")";
  if (op == "Log") return "log(" + xs[0] + ")";
  if (op == "Neg") return "-" + p(0);
  if (op == "Abs") return "abs(" + xs[0] + ")";
  if (op == "Sqrt") return "sqrt(" + xs[0] + ")";
  if (op == "Reciprocal") return literal(1, t) + " / " + p(0);
  if (op == "LeakyRelu")
    return p(0) + " < " + literal(0, t) + " ? " + literal(attrFloat(n, "alpha", 0.01), t) + " * " + p(0) + " : " + p(0);
  if (op == "Elu")
    return p(0) + " < " + literal(0, t) + " ? " + literal(attrFloat(n, "alpha", 1.0), t) + " * (exp(" + xs[0] + ") - " +
           literal(1, t) + ") : " + p(0);
  if (op == "Softsign") return p(0) + " / (" + literal(1, t) + " + abs(" + xs[0] + "))";
  return xs[0]; // Identity
}

struct OpInfo {
  LibraryNode* op = nullptr;
  std::vector<DataflowEdge*> ins;                // in connector order
  std::vector<std::optional<double>> literals;   // per input: the value of a one-element constant
  DataflowEdge* out = nullptr;
  AccessNode* outNode = nullptr;
};

struct Chain {
  std::vector<OpInfo> ops; // in dependence order: an op's operands from the chain come before it
  std::vector<AccessNode*> intermediates;
  DType dtype = DType::Undefined;
  std::vector<sym::Expr> shape;
};

// Checks one op of the chain: supported, fully connected, one output into an access node, and its
// operands of the chain's shape and dtype (the first op's result fixes them) or one-element constants
// of its dtype (a scalar the tasklet takes as a literal). Returns the reason on refusal.
std::string analyze(const State& st, LibraryNode& n, Chain& chain, OpInfo& info) {
  int k = arity(n);
  if (k == 0) return "op " + n.className() + " is not a supported elementwise op";
  const Sdfg& sdfg = *owningSdfg(&st);
  info.op = &n;
  auto ins = st.inEdges(n.id());
  for (auto& c : n.inConnectors())
    for (auto* e : ins)
      if (e->dstConnector == c.name) info.ins.push_back(e);
  if (info.ins.size() != ins.size() || int(info.ins.size()) != k)
    return pathOf(n) + " has " + std::to_string(ins.size()) + " connected inputs; " + n.opType + " takes " + std::to_string(k);
  auto outs = st.outEdges(n.id());
  if (outs.size() != 1 || !dynamic_cast<AccessNode*>(st.node(outs[0]->dst)))
    return pathOf(n) + " must have exactly one output, written to data";
  info.out = outs[0];
  info.outNode = static_cast<AccessNode*>(st.node(outs[0]->dst));
  std::vector<DataflowEdge*> all{info.out};
  all.insert(all.end(), info.ins.begin(), info.ins.end());
  for (auto* e : all) {
    const DataDescriptor* d = sdfg.findData(e->memlet.data);
    if (!d || !d->wrappers.empty() || !d->rankKnown || d->dataKind == DataKind::Stream)
      return "operand '" + e->memlet.data + "' of " + pathOf(n) + " is not a tensor of known shape";
    if (e->memlet.subset != Subset::fullOf(d->shape) || !e->memlet.wcr.empty())
      return "operand '" + e->memlet.data + "' of " + pathOf(n) + " is not passed whole";
    if (e != info.out && !dynamic_cast<AccessNode*>(st.node(e->src)))
      return "operand '" + e->memlet.data + "' of " + pathOf(n) + " does not come from data";
    if (chain.dtype == DType::Undefined) {
      chain.dtype = d->dtype;
      chain.shape = d->shape;
      if (d->dtype != DType::Float32 && d->dtype != DType::Float64)
        return "operand '" + d->name() + "' has type " + d->typeString() + "; only float32 and float64 chains are fused";
    }
    std::optional<double> lit;
    if (e != info.out && d->dtype == chain.dtype) lit = graph::scalarConstant(sdfg, st, e);
    if (e != info.out) info.literals.push_back(lit);
    if (lit) continue;
    if (d->dtype != chain.dtype || d->shape != chain.shape)
      return "operand '" + d->name() + "' (" + d->typeString() + ") differs in shape or type from the chain's (broadcasting " +
             "or mixed types)";
  }
  return {};
}

// Whether `a` is an intermediate that only ops of `members` read (and that can disappear).
std::string intermediateOnly(const State& st, const AccessNode& a, const std::set<ElementId>& members) {
  const Sdfg& sdfg = *owningSdfg(&st);
  const DataDescriptor* d = sdfg.findData(a.data());
  if (!d || !d->transient || d->constant)
    return "'" + a.data() + "' is not transient (it is visible outside the SDFG)";
  if (graph::accessCount(sdfg, a.data()) != 1) // counted first: the walk that names the other access runs on refusal only
    for (State* s : sdfg.allStates())
      for (auto& n : s->nodes())
        if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an != &a && an->data() == a.data())
          return "'" + a.data() + "' is also accessed at " + pathOf(*an);
  if (st.inEdges(a.id()).size() != 1) return "'" + a.data() + "' has more than one writer";
  for (auto* e : st.outEdges(a.id()))
    if (!members.count(e->dst)) return "'" + a.data() + "' is also read by " + pathOf(*st.node(e->dst));
  return {};
}

// The chain's ops in dependence order (each after the ops whose results it reads).
std::vector<OpInfo> dependenceOrder(const State& st, const std::map<ElementId, OpInfo>& ops) {
  std::vector<OpInfo> order;
  std::set<ElementId> placed;
  std::function<void(ElementId)> place = [&](ElementId id) {
    if (!placed.insert(id).second) return;
    for (auto* e : ops.at(id).ins)
      for (auto* w : st.inEdges(e->src))
        if (ops.count(w->src)) place(w->src);
    order.push_back(ops.at(id));
  };
  for (auto& [id, info] : ops) place(id);
  return order;
}

Expected<Chain> buildChain(const Binding& b, const std::string& where) {
  auto* first = b.get<LibraryNode>("first");
  auto* data = b.get<AccessNode>("data");
  auto* second = b.get<LibraryNode>("second");
  if (!first || !data || !second) return fail(where, "the match is not library node -> data -> library node");
  if (first->parent() != data->parent() || data->parent() != second->parent()) return fail(where, "the nodes are not in one state");
  const State& st = *first->parent();
  Chain chain;
  std::map<ElementId, OpInfo> ops;
  OpInfo fi;
  if (auto r = analyze(st, *first, chain, fi); !r.empty()) return fail(where, r, "fuse chains of supported elementwise ops");
  if (fi.outNode != data) return fail(where, "'" + data->data() + "' is not the output of " + pathOf(*first));
  if (auto r = intermediateOnly(st, *data, {second->id()}); !r.empty())
    return fail(where, r, "the intermediate must be used only by the next op of the chain");
  ops[first->id()] = fi;
  OpInfo si;
  if (auto r = analyze(st, *second, chain, si); !r.empty()) return fail(where, r, "fuse chains of supported elementwise ops");
  ops[second->id()] = si;
  std::vector<AccessNode*> intermediates{data};
  ElementId last = second->id();
  std::set<ElementId> members{first->id(), second->id()};
  // Grow: past the last op while one op alone reads its result, and back to the op that computes an
  // operand when only the chain reads it (GELU's x / 2 beside its tanh branch), so that one
  // application fuses the whole elementwise subgraph that ends in one result.
  for (bool grown = true; grown;) {
    grown = false;
    AccessNode* out = ops.at(last).outNode;
    auto readers = st.outEdges(out->id());
    auto* next = readers.empty() ? nullptr : dynamic_cast<LibraryNode*>(st.node(readers[0]->dst));
    if (next && !members.count(next->id()) && intermediateOnly(st, *out, {next->id()}).empty()) {
      Chain probe = chain;
      OpInfo ni;
      if (analyze(st, *next, probe, ni).empty()) {
        ops[next->id()] = ni;
        members.insert(next->id());
        intermediates.push_back(out);
        last = next->id();
        grown = true;
        continue;
      }
    }
    for (auto& [id, info] : ops) {
      for (size_t k = 0; k < info.ins.size() && !grown; ++k) {
        if (info.literals[k]) continue;
        auto* operand = static_cast<AccessNode*>(st.node(info.ins[k]->src));
        if (std::find(intermediates.begin(), intermediates.end(), operand) != intermediates.end()) continue;
        auto writers = st.inEdges(operand->id());
        auto* producer = writers.size() == 1 ? dynamic_cast<LibraryNode*>(st.node(writers[0]->src)) : nullptr;
        if (!producer || members.count(producer->id()) || !intermediateOnly(st, *operand, members).empty()) continue;
        Chain probe = chain;
        OpInfo pi;
        if (!analyze(st, *producer, probe, pi).empty() || pi.outNode != operand) continue;
        ops[producer->id()] = pi;
        members.insert(producer->id());
        intermediates.push_back(operand);
        grown = true;
      }
      if (grown) break;
    }
  }
  chain.ops = dependenceOrder(st, ops);
  chain.intermediates = intermediates;
  return chain;
}

} // namespace

const Pattern& ElementwiseChainFusion::pattern() const {
  static const Pattern p = Pattern::dataflow({{"first", {ElementKind::LibraryNode}},
                                              {"data", {ElementKind::AccessNode}},
                                              {"second", {ElementKind::LibraryNode}}},
                                             {{0, 1}, {1, 2}});
  return p;
}

bool ElementwiseChainFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  auto c = buildChain(*b, match.elements.count("first") ? match.elements.at("first") : name().data());
  if (!c) {
    if (whyNot) whyNot->add(c.error());
    return false;
  }
  return true;
}

Expected<void> ElementwiseChainFusion::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto c, buildChain(b, match.elements.at("first")));
  Chain& chain = c;
  State& st = *chain.ops[0].op->parent();
  Sdfg& outer = *owningSdfg(&st);
  const DType t = chain.dtype;
  const size_t rank = chain.shape.size();

  // External inputs (one connector per outer data, first use first) and the composed code.
  std::set<ElementId> inner;
  for (auto* a : chain.intermediates) inner.insert(a->id());
  std::vector<DataflowEdge*> externals;
  std::map<std::string, std::string> value; // outer data -> expression name
  std::string code, opNames;
  std::set<ElementId> constants; // access nodes of the scalars taken as literals
  for (size_t j = 0; j < chain.ops.size(); ++j) {
    const OpInfo& o = chain.ops[j];
    std::vector<std::string> xs;
    for (size_t k = 0; k < o.ins.size(); ++k) {
      DataflowEdge* e = o.ins[k];
      if (o.literals[k]) {
        xs.push_back(literal(*o.literals[k], t));
        constants.insert(e->src);
        continue;
      }
      if (!value.count(e->memlet.data)) {
        value[e->memlet.data] = "in" + std::to_string(externals.size());
        externals.push_back(e);
      }
      xs.push_back(value[e->memlet.data]);
    }
    std::string f = formula(*o.op, xs, t);
    opNames += (j ? ", " : "") + o.op->opType;
    if (j + 1 < chain.ops.size()) {
      code += "let v" + std::to_string(j) + " = " + f + "\n";
      value[o.out->memlet.data] = "v" + std::to_string(j);
    } else {
      code += "out = " + f;
    }
  }

  // The nested SDFG: one map over the shape with one tasklet.
  expansions::SdfgBuilder bld("fused_chain", match.elements.at("first"));
  Sdfg& nested = bld.sdfg();
  nested.metadata["fused_from"] = opNames;
  for (auto& e : chain.shape)
    for (auto& s : e.freeSymbols()) nested.addSymbol(s);
  const std::string point = expansions::indexList(rank);
  std::vector<std::string> conns;
  std::vector<expansions::TaskletIn> ins;
  for (size_t k = 0; k < externals.size(); ++k) {
    conns.push_back("in" + std::to_string(k));
    nested.addArray(conns.back(), t, chain.shape);
    nested.inputs.push_back(conns.back());
    ins.push_back({conns.back(), conns.back(), point});
  }
  nested.addArray("out", t, chain.shape);
  nested.outputs.push_back("out");
  bld.mappedTasklet("fused", expansions::fullRangeParams(chain.shape), ins, code, {{"out", "out", point, ""}});
  DCW_TRY(auto sdfg, bld.finish());

  auto node = std::make_unique<NestedSdfgNode>("fused_" + chain.ops[0].op->label(), std::move(sdfg));
  for (auto& cn : conns) node->addIn({cn, t});
  node->addOut({"out", t});
  for (auto& [name, type] : node->sdfg().symbols()) node->symbolMapping[name] = sym::Expr::symbol(name);
  Node* placed = ed.addNode(st, std::move(node));
  for (size_t k = 0; k < externals.size(); ++k)
    ed.addEdge(st, *st.node(externals[k]->src), externals[k]->srcConnector, *placed, conns[k], externals[k]->memlet);
  const OpInfo& last = chain.ops.back();
  ed.addEdge(st, *placed, "out", *last.outNode, last.out->dstConnector, last.out->memlet);

  // The ops and intermediates go.
  std::vector<std::string> dead;
  for (auto* a : chain.intermediates) dead.push_back(a->data());
  for (auto& o : chain.ops) ed.removeNode(st, o.op->id());
  for (auto* a : chain.intermediates) ed.removeNode(st, a->id());
  for (auto& d : dead) ed.removeData(outer, d);
  epilogue::removeUnread(ed, st, constants);
  return {};
}

} // namespace dcw::transforms
