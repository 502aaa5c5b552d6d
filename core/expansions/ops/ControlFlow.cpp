// Pure expansions of the control-flow ops If, Loop and Scan (see Ops.h). The node owns its bodies as
// subgraphs (imported SDFGs with library nodes inside); each expansion inlines a copy of a body as a
// NestedSdfgNode inside control-flow regions, and the expansion pass expands the body's library nodes
// in later rounds. Values a body captures from enclosing graphs arrive through `outer.<name>`
// connectors and are bound to the body's captured inputs by their ONNX names.
//
//   If    cond (bool, one element), outer.*  ->  outputs_k
//         ConditionalRegion: branch `cond != 0` runs then_branch, the else branch runs else_branch,
//         each body's outputs bound to outputs_k.
//   Loop  M (int64 scalar, optional), cond (bool, optional), v_initial_j, outer.*  ->  N finals, K scan outputs
//         carried values live in the final outputs (or transients); per iteration: iter = i; body(iter,
//         cond, carried) -> (cond', carried', scan_k); carried = carried'; scan output k row i = scan_k.
//         LoopRegion i = 0; i < M && cond; i + 1 (each part only when its input is given; also i < rows
//         of every scan output). Refused: neither M nor cond (no bound), scan outputs whose length is
//         data-dependent (a symbol no model input determines), sequence/optional values.
//   Scan  opset 9+: initial states + scan inputs -> final states + scan outputs, per-input axes and
//         directions; LoopRegion over t < L (the scan axis of the first scan input): slices of the
//         scan inputs copied in by maps, the body, states carried, scan output slices copied out.
//         opset 8: a leading batch axis (LoopRegion over it around the time loop), scan axis 1, optional
//         sequence_lens (per batch entry: steps t < len; outputs beyond len are 0; reverse inputs
//         read len - 1 - t).
// Body shapes are unified with the data bound to them (a body symbol takes the value of the bound
// dim); a body symbol that nothing determines is refused.
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/expansions/RegionFlow.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/ValueSymbol.h"

#include <map>
#include <set>

namespace dcw::expansions {

namespace {

using namespace dcw::ir;
using sym::Expr;
using Result = Expected<std::unique_ptr<Sdfg>>;


// ---- bodies -----------------------------------------------------------------------------------

std::string onnxName(const DataDescriptor& d) { return d.sourceName.empty() ? d.name() : d.sourceName; }

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

struct Body {
  std::unique_ptr<Sdfg> sdfg;
  std::vector<std::string> formalIn; // the graph's own inputs, in order
  std::vector<std::string> captured; // values captured from enclosing graphs
};

std::string uniqueDataName(const Sdfg& s, const std::string& base) {
  std::string n = base;
  for (int k = 1; s.findData(n); ++k) n = base + "_" + std::to_string(k);
  return n;
}

// A copy of a body ready to be inlined: constants become transients (embedded), and every output
// is a distinct container that the body writes (an output that is an input, a constant or a repeated
// value gets its own container, filled by a copy at the end of the body).
Expected<Body> prepareBody(const ExpansionContext& ctx, const Sdfg* src, const std::string& what) {
  if (!src) return ctx.error("the node has no " + what + " subgraph", "the model is malformed");
  Body body;
  body.sdfg = src->clone(); // standalone; adopted (fresh ids) when inlined as a nested SDFG
  Sdfg& s = *body.sdfg;
  body.captured = splitList(s.metadata.count("captured") ? s.metadata.at("captured") : std::string());
  std::set<std::string> cap(body.captured.begin(), body.captured.end());
  for (auto& n : s.inputs)
    if (!cap.count(n)) body.formalIn.push_back(n);
  for (auto& d : s.data()) {
    if (!d->wrappers.empty() && !d->transient)
      return ctx.error(what + " value '" + onnxName(*d) + "' is a " + d->typeString() +
                           "; sequences and optionals inside control flow cannot be expanded yet",
                       "use tensors only in loop and branch bodies");
    if (d->constant && std::find(s.inputs.begin(), s.inputs.end(), d->name()) == s.inputs.end()) d->transient = true;
  }
  std::set<std::string> ins(s.inputs.begin(), s.inputs.end()), seen;
  std::vector<std::pair<std::string, std::string>> copies;
  for (size_t k = 0; k < s.outputs.size(); ++k) {
    std::string name = s.outputs[k];
    DataDescriptor* d = s.findData(name);
    if (!d) return ctx.error(what + " output '" + name + "' has no data", "the model is malformed");
    if (ins.count(name) || d->constant || seen.count(name)) {
      std::string fresh = uniqueDataName(s, name + "_out");
      auto c = d->clone();
      c->setLabel(fresh);
      c->constant = nullptr;
      c->transient = false;
      c->sourceName.clear();
      s.addData(std::move(c));
      copies.push_back({name, fresh});
      s.outputs[k] = fresh;
      name = fresh;
    }
    seen.insert(name);
  }
  if (!copies.empty()) {
    ControlFlowBlock* sink = nullptr;
    for (auto& b : s.blocks())
      if (s.outEdges(b->id()).empty()) sink = b.get();
    State* st = s.addState(s.uniqueBlockLabel("outputs"));
    if (sink) s.addEdge(sink->id(), st->id());
    for (auto& [from, to] : copies) {
      const DataDescriptor* fd = s.findData(from);
      const DataDescriptor* td = s.findData(to);
      auto* a = st->add<AccessNode>(from);
      a->setLabel(st->uniqueNodeLabel(from));
      st->reindex();
      auto* z = st->add<AccessNode>(to);
      z->setLabel(st->uniqueNodeLabel(to));
      st->reindex();
      Memlet m = Memlet::full(from, fd->shape);
      m.otherSubset = Subset::fullOf(td->shape);
      st->addEdge(*a, "", *z, "", m);
    }
  }
  return body;
}

// One container of the body bound to data of the expansion: `subset` ("" = whole) of `data`, seen by
// the body with `shape`.
struct Binding {
  std::string inner;
  std::string data;
  std::string subset;
  std::vector<Expr> shape;
};

Expected<void> unify(const ExpansionContext& ctx, DataDescriptor& d, const std::vector<Expr>& seen,
                     std::map<std::string, Expr>& symbols, const std::string& what) {
  if (!d.wrappers.empty()) return ctx.error(what + " '" + onnxName(d) + "' is a sequence or optional, which cannot be expanded yet");
  if (!d.rankKnown) {
    d.shape = seen;
    d.strides = DataDescriptor::contiguousStrides(seen);
    d.rankKnown = true;
    d.dataKind = seen.empty() ? DataKind::Scalar : DataKind::Array;
    return {};
  }
  size_t rank = d.dataKind == DataKind::Scalar ? 0 : d.shape.size();
  // A one-element value may be declared as a scalar on one side and as [1] on the other.
  auto elements = [](const std::vector<Expr>& s) {
    Expr n(1);
    for (auto& x : s) n = n * x;
    return n;
  };
  if (rank != seen.size()) {
    if (elements(d.shape) == Expr(1) && elements(seen) == Expr(1)) return {};
    return ctx.error(what + " '" + onnxName(d) + "' has rank " + std::to_string(rank) + " in the body but " +
                     std::to_string(seen.size()) + " where it is bound", "the model's shapes are inconsistent");
  }
  for (size_t k = 0; k < rank; ++k) {
    const Expr& in = d.shape[k];
    if (in.isSymbol()) {
      symbols.emplace(in.symbolName(), seen[k]);
    } else if (in.isConstant() && seen[k].isConstant() && in != seen[k]) {
      return ctx.error(what + " '" + onnxName(d) + "' has dimension " + std::to_string(k) + " = " + in.str() + " in the body but " +
                       seen[k].str() + " where it is bound", "the model's shapes are inconsistent");
    }
  }
  return {};
}

// Puts the body into the builder's current state as a NestedSdfgNode bound to the given data.
Expected<void> placeBody(SdfgBuilder& b, const ExpansionContext& ctx, Body body, const std::string& label,
                         const std::vector<Binding>& ins, const std::vector<Binding>& outs) {
  Sdfg& s = *body.sdfg;
  std::map<std::string, Expr> symbols;
  std::set<std::string> boundOut;
  for (auto* list : {&ins, &outs})
    for (auto& bd : *list) {
      DataDescriptor* d = s.findData(bd.inner);
      if (!d) return ctx.error("the body has no value '" + bd.inner + "'", "this is a bug in the expansion");
      // A value the body's types do not describe (e.g. an initializer captured from the outer graph)
      // takes the type of the data bound to it.
      if (d->dtype == DType::Undefined)
        if (const DataDescriptor* od = b.sdfg().findData(bd.data)) d->dtype = od->dtype;
      DCW_CHECK(unify(ctx, *d, bd.shape, symbols, label + " value"));
      if (list == &outs) boundOut.insert(bd.inner);
    }
  // Outputs nobody reads become transients of the body.
  std::vector<std::string> kept;
  for (auto& o : s.outputs) {
    if (boundOut.count(o)) {
      kept.push_back(o);
      continue;
    }
    DataDescriptor* d = s.findData(o);
    if (!d->rankKnown || !d->wrappers.empty())
      return ctx.error(label + " output '" + onnxName(*d) + "' has an unknown shape", "give the model static shapes");
    d->transient = true;
    d->lifetime = Lifetime::Sdfg;
  }
  s.outputs = kept;
  for (auto& d : s.data())
    if (!d->transient)
      for (auto& x : d->freeSymbols())
        if (!s.symbols().count(x)) s.addSymbol(x);
  std::map<std::string, Expr> mapping;
  for (auto& [name, type] : s.symbols()) {
    if (auto it = symbols.find(name); it != symbols.end()) mapping[name] = it->second;
    else if (b.sdfg().symbols().count(name)) mapping[name] = Expr::symbol(name);
    else
      return ctx.error(label + " uses the dimension '" + name + "', which no bound value determines (a data-dependent shape)",
                       "give the body static shapes");
  }
  for (auto& [name, value] : mapping)
    for (auto& x : value.freeSymbols())
      if (!b.sdfg().symbols().count(x) && !b.sdfg().findData(x)) b.sdfg().addSymbol(x);

  auto node = std::make_unique<NestedSdfgNode>(label, std::move(body.sdfg));
  NestedSdfgNode* raw = nullptr;
  Sdfg& inner = node->sdfg();
  for (auto& bd : ins) node->addIn({bd.inner, inner.findData(bd.inner)->dtype, false});
  for (auto& bd : outs) node->addOut({bd.inner, inner.findData(bd.inner)->dtype, false});
  node->symbolMapping = mapping;
  State& st = b.state();
  node->setLabel(st.uniqueNodeLabel(label));
  raw = static_cast<NestedSdfgNode*>(st.addNode(std::move(node)));
  auto memlet = [&](const Binding& bd) -> Expected<Memlet> {
    const DataDescriptor* d = b.sdfg().findData(bd.data);
    if (!d) return ctx.error("binding to unknown data '" + bd.data + "'", "this is a bug in the expansion");
    if (bd.subset.empty()) return Memlet::full(bd.data, d->shape);
    auto sub = Subset::parse(bd.subset);
    if (!sub) return ctx.error("binding subset: " + sub.error().message, "this is a bug in the expansion");
    return Memlet::simple(bd.data, *sub);
  };
  auto access = [&](const std::string& data) {
    auto a = std::make_unique<AccessNode>(data);
    a->setLabel(st.uniqueNodeLabel(data));
    return st.addNode(std::move(a));
  };
  for (auto& bd : ins) {
    DCW_TRY(auto m, memlet(bd));
    st.addEdge(*access(bd.data), "", *raw, bd.inner, m);
  }
  for (auto& bd : outs) {
    DCW_TRY(auto m, memlet(bd));
    st.addEdge(*raw, bd.inner, *access(bd.data), "", m);
  }
  return {};
}

// The `outer.<name>` connector of the node for each captured value of a body (by ONNX name).
Expected<std::vector<Binding>> capturedBindings(const ExpansionContext& ctx, const Body& body, const std::string& what) {
  std::map<std::string, std::string> byName;
  for (auto& c : ctx.inputs())
    if (c.rfind("outer.", 0) == 0) byName[onnxName(*ctx.in(c))] = c;
  std::vector<Binding> out;
  for (auto& n : body.captured) {
    const DataDescriptor* d = body.sdfg->findData(n);
    if (!d) return ctx.error(what + " captures '" + n + "', which it does not declare", "the model is malformed");
    auto it = byName.find(onnxName(*d));
    if (it == byName.end()) {
      // Connectors are named after the outer data, which usually is the ONNX name.
      if (ctx.hasIn("outer." + n)) it = byName.emplace(onnxName(*d), "outer." + n).first;
      else return ctx.error(what + " reads '" + onnxName(*d) + "' from an enclosing graph, but the node has no connector for it",
                            "re-import the model");
    }
    const DataDescriptor* od = ctx.in(it->second);
    if (!od->rankKnown || !od->wrappers.empty())
      return ctx.error(what + " reads '" + onnxName(*d) + "' (" + od->typeString() + "), whose shape is unknown or not a tensor");
    out.push_back({n, it->second, "", od->shape});
  }
  return out;
}

bool tensorOfKnownRank(const DataDescriptor* d) { return d && d->rankKnown && d->wrappers.empty(); }

// Symbols that a model input's shape or value determines (the executor binds them when the program starts).
std::set<std::string> boundSymbols(const ExpansionContext& ctx) {
  std::set<std::string> out;
  const Sdfg* root = ctx.sdfg().root();
  for (auto& n : root->inputs)
    if (auto* d = root->findData(n))
      for (auto& s : d->freeSymbols()) out.insert(s);
  // the symbols that stand for an input's elements (bound from its value when the program starts)
  for (const ValueSymbol& vs : valueSymbols(*root)) out.insert(vs.symbol);
  return out;
}

std::string subsetText(const std::vector<std::string>& parts) {
  std::string s;
  for (auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// ---- If -----------------------------------------------------------------------------------------

Result expandIf(const ExpansionContext& ctx) {
  if (!ctx.hasIn("cond")) return ctx.error("cond must be connected");
  const DataDescriptor* c = ctx.in("cond");
  if (!tensorOfKnownRank(c) || c->totalSize() != Expr(1))
    return ctx.error("cond must be a tensor with one element (it is " + c->typeString() + ")");
  std::vector<std::string> outConns;
  for (auto& oc : ctx.node().outConnectors()) outConns.push_back(oc.name);
  for (auto& o : ctx.outputs())
    if (!tensorOfKnownRank(ctx.out(o)))
      return ctx.error("output '" + o + "' is a " + ctx.out(o)->typeString() +
                           "; If with sequence, optional or unknown-rank outputs cannot be expanded",
                       "give the model static shapes (tensors only)");
  SdfgBuilder b(ctx);
  RegionFlow flow(b);
  flow.beginConditional("if");
  for (int branch = 0; branch < 2; ++branch) {
    const std::string what = branch == 0 ? "then_branch" : "else_branch";
    DCW_TRY(auto body, prepareBody(ctx, ctx.node().subgraph(what), what));
    if (body.sdfg->outputs.size() != outConns.size())
      return ctx.error(what + " has " + std::to_string(body.sdfg->outputs.size()) + " outputs but the node has " +
                       std::to_string(outConns.size()), "the model is malformed");
    DCW_TRY(auto ins, capturedBindings(ctx, body, what));
    std::vector<Binding> outs;
    for (size_t k = 0; k < outConns.size(); ++k)
      if (ctx.hasOut(outConns[k])) outs.push_back({body.sdfg->outputs[k], outConns[k], "", ctx.out(outConns[k])->shape});
    flow.beginBranch(what, branch == 0 ? std::optional<Expr>(sym::ne(Expr::symbol("cond"), Expr(0))) : std::nullopt);
    DCW_CHECK(placeBody(b, ctx, std::move(body), what, ins, outs));
    flow.endBranch();
  }
  flow.endConditional();
  return b.finish();
}

// ---- Loop ---------------------------------------------------------------------------------------

Result expandLoop(const ExpansionContext& ctx) {
  const bool hasM = ctx.hasIn("M"), hasCond = ctx.hasIn("cond");
  if (!hasM && !hasCond)
    return ctx.error("neither a trip count M nor a condition is given: the loop would not end", "give M or cond");
  for (const char* c : {"M", "cond"})
    if (ctx.hasIn(c) && (!tensorOfKnownRank(ctx.in(c)) || ctx.in(c)->totalSize() != Expr(1)))
      return ctx.error(std::string(c) + " must be a tensor with one element (it is " + ctx.in(c)->typeString() + ")");
  std::vector<std::string> initConns, outConns;
  for (auto& c : ctx.node().inConnectors())
    if (c.name.rfind("v_initial", 0) == 0) initConns.push_back(c.name);
  for (auto& c : ctx.node().outConnectors()) outConns.push_back(c.name);
  const size_t N = initConns.size();
  for (auto& c : initConns)
    if (!tensorOfKnownRank(ctx.in(c)))
      return ctx.error("loop-carried value '" + c + "' is " + (ctx.in(c) ? ctx.in(c)->typeString() : std::string("unconnected")) +
                           "; only tensors of known shape can be carried", "sequences and optionals are not supported yet");
  DCW_TRY(auto body, prepareBody(ctx, ctx.node().subgraph("body"), "body"));
  Sdfg& bs = *body.sdfg;
  if (body.formalIn.size() != N + 2)
    return ctx.error("the body takes " + std::to_string(body.formalIn.size()) + " inputs; iteration number, condition and " +
                     std::to_string(N) + " carried values make " + std::to_string(N + 2), "the model is malformed");
  if (bs.outputs.size() < N + 1 || outConns.size() != bs.outputs.size() - 1)
    return ctx.error("the body has " + std::to_string(bs.outputs.size()) + " outputs; the node has " + std::to_string(outConns.size()),
                     "the model is malformed");
  const size_t K = bs.outputs.size() - 1 - N;
  std::set<std::string> bound = boundSymbols(ctx);
  std::vector<Expr> scanRows;
  for (size_t k = 0; k < K; ++k) {
    const std::string& oc = outConns[N + k];
    if (!ctx.hasOut(oc)) continue;
    const DataDescriptor* d = ctx.out(oc);
    if (!tensorOfKnownRank(d) || d->shape.empty())
      return ctx.error("scan output '" + oc + "' is " + d->typeString() + "; its shape must be known", "give the model static shapes");
    for (auto& s : d->shape[0].freeSymbols())
      if (!bound.count(s))
        return ctx.error("scan output '" + oc + "' has " + d->shape[0].str() +
                             " rows, a length that depends on the data (the number of iterations run)",
                         "give the loop a constant trip count and static output shapes");
    scanRows.push_back(d->shape[0]);
  }

  SdfgBuilder b(ctx);
  RegionFlow flow(b);
  const std::string iter = b.transient("iteration", DType::Int64, {});
  const std::string condc = b.transient("condition", DType::Bool, {});
  const std::string condn = b.transient("next_condition", DType::Bool, {});
  std::vector<std::string> carry(N), next(N);
  for (size_t j = 0; j < N; ++j) {
    const DataDescriptor& init = *ctx.in(initConns[j]);
    carry[j] = ctx.hasOut(outConns[j]) ? outConns[j] : b.transient("carried" + std::to_string(j), init.dtype, init.shape);
    next[j] = b.transient("next_carried" + std::to_string(j), init.dtype, init.shape);
    b.copy(initConns[j], carry[j]);
  }
  if (hasCond) b.mappedTasklet("init_condition", {}, {{"c", "cond", ctx.in("cond")->shape.empty() ? "" : "0"}}, "o = c", {{"o", condc, "", ""}});
  else b.mappedTasklet("init_condition", {}, {}, "o = true", {{"o", condc, "", ""}});
  flow.sync();

  const std::string i = "loop_i";
  Expr iv = Expr::symbol(i);
  Expr cond(1);
  if (hasM) cond = sym::logicalAnd(cond, sym::lt(iv, Expr::symbol("M")));
  if (hasCond) cond = sym::logicalAnd(cond, sym::ne(Expr::symbol(condc), Expr(0)));
  for (auto& rows : scanRows) cond = sym::logicalAnd(cond, sym::lt(iv, rows));
  flow.beginLoop("loop", i, Expr(0), cond, iv + 1);
  b.mappedTasklet("iteration", {}, {}, "n = " + i, {{"n", iter, "", ""}});
  flow.newState("body");
  std::vector<Binding> ins{{body.formalIn[0], iter, "", {}}, {body.formalIn[1], condc, "", {}}};
  for (size_t j = 0; j < N; ++j) ins.push_back({body.formalIn[2 + j], carry[j], "", ctx.in(initConns[j])->shape});
  DCW_TRY(auto cap, capturedBindings(ctx, body, "body"));
  ins.insert(ins.end(), cap.begin(), cap.end());
  std::vector<Binding> outs{{bs.outputs[0], condn, "", {}}};
  for (size_t j = 0; j < N; ++j) outs.push_back({bs.outputs[1 + j], next[j], "", ctx.in(initConns[j])->shape});
  for (size_t k = 0; k < K; ++k) {
    const std::string& oc = outConns[N + k];
    if (!ctx.hasOut(oc)) continue;
    const auto& shape = ctx.out(oc)->shape;
    std::vector<std::string> parts{i};
    for (size_t q = 1; q < shape.size(); ++q) parts.push_back("0:" + shape[q].str());
    outs.push_back({bs.outputs[1 + N + k], oc, subsetText(parts), std::vector<Expr>(shape.begin() + 1, shape.end())});
  }
  DCW_CHECK(placeBody(b, ctx, std::move(body), "body", ins, outs));
  flow.newState("carry");
  for (size_t j = 0; j < N; ++j) b.copy(next[j], carry[j]);
  b.copy(condn, condc);
  flow.endLoop();
  return b.finish();
}

// ---- Scan ---------------------------------------------------------------------------------------

Result expandScan(const ExpansionContext& ctx) {
  const bool v8 = ctx.node().opsetVersion < 9;
  std::vector<std::string> inConns, outConns;
  for (auto& c : ctx.node().inConnectors())
    if (c.name.rfind("initial_state_and_scan_inputs", 0) == 0) inConns.push_back(c.name);
  for (auto& c : ctx.node().outConnectors()) outConns.push_back(c.name);
  const int64_t M = ctx.attrInt("num_scan_inputs", -1);
  if (M < 1 || size_t(M) > inConns.size())
    return ctx.error("num_scan_inputs is " + std::to_string(M) + " for " + std::to_string(inConns.size()) + " inputs");
  const size_t N = inConns.size() - size_t(M);
  for (auto& c : inConns)
    if (!tensorOfKnownRank(ctx.in(c))) return ctx.error("input '" + c + "' must be a tensor of known rank");
  DCW_TRY(auto body, prepareBody(ctx, ctx.node().subgraph("body"), "body"));
  Sdfg& bs = *body.sdfg;
  if (body.formalIn.size() != inConns.size())
    return ctx.error("the body takes " + std::to_string(body.formalIn.size()) + " inputs; the node has " +
                     std::to_string(inConns.size()), "the model is malformed");
  if (bs.outputs.size() != outConns.size() || bs.outputs.size() < N)
    return ctx.error("the body has " + std::to_string(bs.outputs.size()) + " outputs; the node has " + std::to_string(outConns.size()),
                     "the model is malformed");
  const size_t K = outConns.size() - N;
  for (size_t k = 0; k < K; ++k)
    if (ctx.hasOut(outConns[N + k]) && !tensorOfKnownRank(ctx.out(outConns[N + k])))
      return ctx.error("scan output '" + outConns[N + k] + "' has an unknown shape", "give the model static shapes");

  // Axes and directions (opset 8: batch axis 0, scan axis 1, input directions only).
  const int batchDims = v8 ? 1 : 0;
  std::vector<int64_t> inAxes(size_t(M), batchDims), inDirs(size_t(M), 0), outAxes(K, batchDims), outDirs(K, 0);
  if (v8) {
    inDirs = ctx.attrInts("directions", inDirs);
  } else {
    inAxes = ctx.attrInts("scan_input_axes", inAxes);
    inDirs = ctx.attrInts("scan_input_directions", inDirs);
    outAxes = ctx.attrInts("scan_output_axes", outAxes);
    outDirs = ctx.attrInts("scan_output_directions", outDirs);
  }
  if (inAxes.size() != size_t(M) || inDirs.size() != size_t(M) || outAxes.size() != K || outDirs.size() != K)
    return ctx.error("the axes and directions attributes must list one value per scan input / output");
  for (size_t m = 0; m < size_t(M); ++m) {
    int64_t r = int64_t(ctx.in(inConns[N + m])->shape.size());
    if (inAxes[m] < 0) inAxes[m] += r;
    if (inAxes[m] < batchDims || inAxes[m] >= r) return ctx.error("scan_input_axes[" + std::to_string(m) + "] is out of range");
  }
  for (size_t k = 0; k < K; ++k) {
    if (!ctx.hasOut(outConns[N + k])) continue;
    int64_t r = int64_t(ctx.out(outConns[N + k])->shape.size());
    if (outAxes[k] < 0) outAxes[k] += r;
    if (outAxes[k] < batchDims || outAxes[k] >= r) return ctx.error("scan_output_axes[" + std::to_string(k) + "] is out of range");
  }
  const DataDescriptor& first = *ctx.in(inConns[N]);
  const Expr L = first.shape[size_t(inAxes[0])];
  const Expr Bn = v8 ? first.shape[0] : Expr(1);
  const bool hasLens = v8 && ctx.hasIn("sequence_lens");

  SdfgBuilder b(ctx);
  RegionFlow flow(b);
  auto drop = [](const std::vector<Expr>& s, std::vector<size_t> axes) {
    std::vector<Expr> out;
    for (size_t q = 0; q < s.size(); ++q)
      if (std::find(axes.begin(), axes.end(), q) == axes.end()) out.push_back(s[q]);
    return out;
  };
  std::vector<size_t> batchAxis = v8 ? std::vector<size_t>{0} : std::vector<size_t>{};
  // Slices the body sees.
  std::vector<std::string> carry(N), next(N), xs(static_cast<size_t>(M)), ys(K);
  for (size_t j = 0; j < N; ++j) {
    const DataDescriptor& d = *ctx.in(inConns[j]);
    auto shape = drop(d.shape, batchAxis);
    carry[j] = !v8 && ctx.hasOut(outConns[j]) ? outConns[j] : b.transient("state" + std::to_string(j), d.dtype, shape);
    next[j] = b.transient("next_state" + std::to_string(j), d.dtype, shape);
  }
  for (size_t m = 0; m < size_t(M); ++m) {
    const DataDescriptor& d = *ctx.in(inConns[N + m]);
    auto ax = batchAxis;
    ax.push_back(size_t(inAxes[m]));
    xs[m] = b.transient("scan_in" + std::to_string(m), d.dtype, drop(d.shape, ax));
  }
  const std::string t = "scan_t", bt = "scan_b";
  const Expr tv = Expr::symbol(t);
  std::string lenData, lenSym = "scan_len";
  if (hasLens) lenData = b.transient("sequence_length", DType::Int64, {});

  // Scan outputs beyond a sequence's length are zero.
  if (hasLens)
    for (size_t k = 0; k < K; ++k)
      if (ctx.hasOut(outConns[N + k])) {
        const auto& shape = ctx.out(outConns[N + k])->shape;
        b.mappedTasklet("zero_scan_out", fullRangeParams(shape), {}, "y = 0", {{"y", outConns[N + k], indexList(shape.size()), ""}});
        flow.sync();
      }
  if (v8) flow.beginLoop("batch", bt, Expr(0), sym::lt(Expr::symbol(bt), Bn), Expr::symbol(bt) + 1);
  // Initial states (opset 8: this batch entry's).
  for (size_t j = 0; j < N; ++j) {
    if (!v8) {
      b.copy(inConns[j], carry[j]);
    } else {
      const auto& shape = ctx.in(inConns[j])->shape;
      auto params = fullRangeParams(std::vector<Expr>(shape.begin() + 1, shape.end()));
      std::string idx = indexList(shape.size() - 1);
      b.mappedTasklet("init_state", params, {{"x", inConns[j], bt + (idx.empty() ? "" : ", " + idx)}}, "y = x", {{"y", carry[j], idx, ""}});
    }
    flow.sync();
  }
  Expr steps = L;
  if (hasLens) {
    b.mappedTasklet("sequence_length", {}, {{"l", "sequence_lens", bt}}, "n = int64(l)", {{"n", lenData, "", ""}});
    flow.sync();
    steps = Expr::symbol(lenSym);
  }
  flow.beginLoop("scan", t, Expr(0), sym::lt(tv, steps), tv + 1);
  if (hasLens) {
    // The length enters as an interstate assignment on the edge into the time loop.
    if (InterstateEdge* e = flow.lastEdge()) e->assignments.push_back({lenSym, Expr::symbol(lenData)});
    else return ctx.error("internal: the time loop has no entry edge", "this is a bug in the expansion");
  }
  // Slices of the scan inputs at step t.
  for (size_t m = 0; m < size_t(M); ++m) {
    const auto& shape = ctx.in(inConns[N + m])->shape;
    Expr pos = inDirs[m] ? steps - 1 - tv : tv;
    std::vector<std::string> parts;
    std::vector<Expr> sliceShape;
    std::vector<std::string> sliceIdx;
    for (size_t q = 0; q < shape.size(); ++q) {
      if (v8 && q == 0) parts.push_back(bt);
      else if (q == size_t(inAxes[m])) parts.push_back(pos.str());
      else {
        std::string p = "s" + std::to_string(sliceIdx.size());
        parts.push_back(p);
        sliceIdx.push_back(p);
        sliceShape.push_back(shape[q]);
      }
    }
    b.mappedTasklet("scan_in", fullRangeParams(sliceShape, "s"), {{"x", inConns[N + m], subsetText(parts)}}, "y = x",
                    {{"y", xs[m], subsetText(sliceIdx), ""}});
  }
  flow.newState("body");
  std::vector<Binding> ins, outs;
  for (size_t j = 0; j < N; ++j) ins.push_back({body.formalIn[j], carry[j], "", b.data(carry[j]).shape});
  for (size_t m = 0; m < size_t(M); ++m) ins.push_back({body.formalIn[N + m], xs[m], "", b.data(xs[m]).shape});
  DCW_TRY(auto cap, capturedBindings(ctx, body, "body"));
  ins.insert(ins.end(), cap.begin(), cap.end());
  for (size_t j = 0; j < N; ++j) outs.push_back({bs.outputs[j], next[j], "", b.data(next[j]).shape});
  for (size_t k = 0; k < K; ++k) {
    const std::string& oc = outConns[N + k];
    if (!ctx.hasOut(oc)) continue;
    auto ax = batchAxis;
    ax.push_back(size_t(outAxes[k]));
    ys[k] = b.transient("scan_out" + std::to_string(k), ctx.out(oc)->dtype, drop(ctx.out(oc)->shape, ax));
    outs.push_back({bs.outputs[N + k], ys[k], "", b.data(ys[k]).shape});
  }
  DCW_CHECK(placeBody(b, ctx, std::move(body), "body", ins, outs));
  flow.newState("carry");
  for (size_t j = 0; j < N; ++j) b.copy(next[j], carry[j]);
  for (size_t k = 0; k < K; ++k) {
    const std::string& oc = outConns[N + k];
    if (!ctx.hasOut(oc)) continue;
    const auto& shape = ctx.out(oc)->shape;
    Expr pos = outDirs[k] ? steps - 1 - tv : tv;
    std::vector<std::string> parts, sliceIdx;
    std::vector<Expr> sliceShape;
    for (size_t q = 0; q < shape.size(); ++q) {
      if (v8 && q == 0) parts.push_back(bt);
      else if (q == size_t(outAxes[k])) parts.push_back(pos.str());
      else {
        std::string p = "s" + std::to_string(sliceIdx.size());
        parts.push_back(p);
        sliceIdx.push_back(p);
        sliceShape.push_back(shape[q]);
      }
    }
    b.mappedTasklet("scan_out", fullRangeParams(sliceShape, "s"), {{"x", ys[k], subsetText(sliceIdx)}}, "y = x",
                    {{"y", oc, subsetText(parts), ""}});
  }
  flow.endLoop();
  // Final states.
  for (size_t j = 0; j < N; ++j) {
    if (!ctx.hasOut(outConns[j])) continue;
    if (!v8) {
      if (carry[j] != outConns[j]) b.copy(carry[j], outConns[j]);
    } else {
      const auto& shape = ctx.out(outConns[j])->shape;
      auto params = fullRangeParams(std::vector<Expr>(shape.begin() + 1, shape.end()));
      std::string idx = indexList(shape.size() - 1);
      b.mappedTasklet("final_state", params, {{"x", carry[j], idx}}, "y = x", {{"y", outConns[j], bt + (idx.empty() ? "" : ", " + idx), ""}});
    }
    flow.sync();
  }
  if (v8) flow.endLoop();
  return b.finish();
}

} // namespace

void registerControlFlow(ExpansionRegistry& r) {
  r.add("", "If", "pure", expandIf, "a conditional region whose branches inline the then/else bodies as nested SDFGs");
  r.add("", "Loop", "pure", expandLoop,
        "a loop region running the body as a nested SDFG: carried values copied between iterations, scan outputs written at row i");
  r.add("", "Scan", "pure", expandScan,
        "a loop region over the scan axis: input slices copied in, the body as a nested SDFG, states carried, output slices copied out");
}

} // namespace dcw::expansions
