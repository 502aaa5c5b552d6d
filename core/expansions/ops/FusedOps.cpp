// Pure expansions of DCW's own ops (FusedOp.h):
//
//   FusedConv, FusedConvTranspose, FusedMatMul, FusedGemm: the subgraph the fusion replaced, as
//     library nodes in one state that the expansion pass expands in turn (their own pure expansions):
//       inputs -> Base -> T -> Mul(T, alpha) -> Add(T, Z) -> S -> Activation -> Y
//     (the Mul by FusedMatMul's alpha, the Add and the activation when declared)
//     so the fused model computes exactly what the unfused one did and stays analysable and
//     differentiable. The base node gets the fused node's attributes less the epilogue's
//     (fused::isEpilogueAttribute: FusedGemm's alpha is Gemm's own).
//   ConcatBatchNormalization: Concat -> BatchNormalization (FusedBatchNormalization with the activation).
//   ShuffledConcat: one copy map per piece, Y[i0, K i1 + k, i2, ..] = inputs_k[i0, i1, i2, ..].
//   Gelu: one map, Y[i] = 0.5 * X[i] * (1 + erf(X[i] / sqrt(2)))   (float32 or float64).
//   Silu: one map, Y[i] = X[i] * (1 / (1 + exp(-X[i])))            (Sigmoid's expression, times X).
#include "core/expansions/FusedOp.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <cmath>
#include <functional>

namespace dcw::expansions {

using namespace dcw::ir;

namespace {

// The pieces of an unfused subgraph in the builder's one state: an access node of `data`, a memlet
// of all of `data`, a library node of an op.
struct Subgraph {
  Sdfg& s;
  State& st;
  AccessNode& access(const std::string& data) {
    auto n = std::make_unique<AccessNode>(data);
    n->setLabel(st.uniqueNodeLabel(data));
    return *static_cast<AccessNode*>(st.addNode(std::move(n)));
  }
  Memlet full(const std::string& data) const { return Memlet::full(data, s.findData(data)->shape); }
  LibraryNode& libraryNode(const std::string& label, const std::string& domain, const std::string& op, int64_t version) {
    auto n = std::make_unique<LibraryNode>(st.uniqueNodeLabel(label));
    n->domain = domain;
    n->opType = op;
    n->opsetVersion = version;
    return *static_cast<LibraryNode*>(st.addNode(std::move(n)));
  }
};

Expected<std::unique_ptr<Sdfg>> expandFused(const ExpansionContext& ctx, const fused::Base& base) {
  DCW_TRY(auto ep, fused::epilogueOf(ctx));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  for (auto& c : ctx.inputs())
    if (c != "Z" && std::find(base.inputs.begin(), base.inputs.end(), c) == base.inputs.end())
      return ctx.error("input '" + c + "' is not an input of " + base.op + " nor Z");
  SdfgBuilder b(ctx, base.fused);
  Sdfg& s = b.sdfg();
  State& st = b.state();
  Subgraph g{s, st};

  // The base op, writing Y directly when there is no epilogue.
  const bool scaled = ep.alpha != 1.0;
  const bool epilogue = ep.hasZ || ep.activation || scaled;
  std::string lower = base.op;
  for (auto& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  std::string cur = epilogue ? b.transient(lower + "_out", Y->dtype, Y->shape) : "Y";
  LibraryNode& op = g.libraryNode(base.op, "", base.op, base.opset);
  for (auto& a : ctx.node().attributes)
    if (!fused::isEpilogueAttribute(ctx.node(), a.name)) op.attributes.push_back(a);
  for (auto& c : base.inputs) {
    if (!ctx.hasIn(c)) continue;
    bool optional = std::find(base.optionalInputs.begin(), base.optionalInputs.end(), c) != base.optionalInputs.end();
    op.addIn(Connector{c, ctx.in(c)->dtype, optional});
    st.addEdge(g.access(c), "", op, c, g.full(c));
  }
  op.addOut(Connector{"Y", Y->dtype, false});
  AccessNode* last = &g.access(cur);
  st.addEdge(op, "Y", *last, "", g.full(cur));

  if (scaled) {
    const std::string next = ep.hasZ || ep.activation ? b.transient("scaled", Y->dtype, Y->shape) : "Y";
    const std::string alpha = th::constantArray(b, "alpha", th::float32Tensor({}, {float(ep.alpha)}));
    LibraryNode& mul = g.libraryNode("Mul", "", "Mul", 14);
    mul.addIn(Connector{"A", Y->dtype, false});
    mul.addIn(Connector{"B", DType::Float32, false});
    mul.addOut(Connector{"C", Y->dtype, false});
    st.addEdge(*last, "", mul, "A", g.full(cur));
    st.addEdge(g.access(alpha), "", mul, "B", g.full(alpha));
    last = &g.access(next);
    st.addEdge(mul, "C", *last, "", g.full(next));
    cur = next;
  }
  if (ep.hasZ) {
    const std::string next = ep.activation ? b.transient("sum", Y->dtype, Y->shape) : "Y";
    LibraryNode& add = g.libraryNode("Add", "", "Add", 14);
    add.addIn(Connector{"A", Y->dtype, false});
    add.addIn(Connector{"B", ctx.in("Z")->dtype, false});
    add.addOut(Connector{"C", Y->dtype, false});
    st.addEdge(*last, "", add, "A", g.full(cur));
    st.addEdge(g.access("Z"), "", add, "B", g.full("Z"));
    last = &g.access(next);
    st.addEdge(add, "C", *last, "", g.full(next));
    cur = next;
  }
  if (ep.activation) {
    const fused::Activation& a = *ep.activation;
    auto [in, out] = fused::activationConnectors(a);
    LibraryNode& act = g.libraryNode(a.op, a.domain, a.op, a.opset);
    act.attributes = fused::activationAttributes(a, ep.params);
    act.addIn(Connector{in, Y->dtype, false});
    act.addOut(Connector{out, Y->dtype, false});
    st.addEdge(*last, "", act, in, g.full(cur));
    st.addEdge(act, out, g.access("Y"), "", g.full("Y"));
  }
  return b.finish();
}

// ConcatBatchNormalization: Concat(inputs_k) along axis 1 -> T -> BatchNormalization (FusedBatchNormalization
// with the activation when one is declared) -> Y, as library nodes that expand in turn.
Expected<std::unique_ptr<Sdfg>> expandConcatBatchNorm(const ExpansionContext& ctx) {
  DCW_TRY(auto ep, fused::epilogueOf(ctx));
  if (ep.hasZ) return ctx.error("ConcatBatchNormalization adds no Z");
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  std::vector<std::string> pieces;
  for (auto& c : ctx.inputs()) {
    if (fused::isConcatPiece(c)) pieces.push_back(c);
    else if (c != "scale" && c != "B" && c != "input_mean" && c != "input_var")
      return ctx.error("input '" + c + "' is neither a piece (inputs_k) nor a BatchNormalization parameter");
  }
  if (pieces.empty()) return ctx.error("ConcatBatchNormalization has no pieces (inputs_0, ...)");
  const fused::Base& bn = *fused::baseOf("BatchNormalization");
  for (auto& c : bn.inputs)
    if (c != "X" && !ctx.hasIn(c)) return ctx.error("BatchNormalization's '" + c + "' is not connected");
  SdfgBuilder b(ctx, fused::kConcatBatchNorm);
  Sdfg& s = b.sdfg();
  State& st = b.state();
  Subgraph g{s, st};
  const std::string t = b.transient("concat_out", Y->dtype, Y->shape);
  LibraryNode& concat = g.libraryNode("Concat", "", "Concat", 13);
  concat.attributes.push_back(Attribute{"axis", int64_t(1)});
  for (auto& c : pieces) {
    concat.addIn(Connector{c, ctx.in(c)->dtype, false});
    st.addEdge(g.access(c), "", concat, c, g.full(c));
  }
  concat.addOut(Connector{"concat_result", Y->dtype, false});
  AccessNode& mid = g.access(t);
  st.addEdge(concat, "concat_result", mid, "", g.full(t));
  LibraryNode& norm = ep.activation ? g.libraryNode(bn.fused, fused::kDomain, bn.fused, 1) : g.libraryNode(bn.op, "", bn.op, bn.opset);
  for (auto& a : ctx.node().attributes)
    if (a.name == "epsilon" || (ep.activation && (a.name == "activation" || a.name == "activation_params"))) norm.attributes.push_back(a);
  for (auto& c : bn.inputs) {
    norm.addIn(Connector{c, c == "X" ? Y->dtype : ctx.in(c)->dtype, false});
    if (c == "X") st.addEdge(mid, "", norm, "X", g.full(t));
    else st.addEdge(g.access(c), "", norm, c, g.full(c));
  }
  norm.addOut(Connector{"Y", Y->dtype, false});
  st.addEdge(norm, "Y", g.access("Y"), "", g.full("Y"));
  return b.finish();
}

// ShuffledConcat: piece k's channel c goes to Y's channel K c + k (K pieces of one shape), one copy map
// per piece; any element type.
Expected<std::unique_ptr<Sdfg>> expandShuffledConcat(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  std::vector<std::string> pieces;
  for (auto& c : ctx.inputs()) {
    if (!fused::isConcatPiece(c)) return ctx.error("input '" + c + "' is not a piece (inputs_k)");
    pieces.push_back(c);
  }
  if (pieces.size() < 2) return ctx.error("ShuffledConcat needs two pieces or more (inputs_0, inputs_1, ...)");
  const auto& shape = ctx.in(pieces.front())->shape;
  const sym::Expr K(int64_t(pieces.size()));
  if (shape.size() < 2 || Y->shape.size() != shape.size())
    return ctx.error("the pieces and Y must have one rank of 2 or more (a batch and a channel dim first)");
  for (auto& c : pieces) {
    const DataDescriptor* d = ctx.in(c);
    if (!(d->shape == shape)) return ctx.error("piece '" + c + "' " + d->typeString() + " differs in shape from '" + pieces.front() + "'");
    if (d->dtype != Y->dtype) return ctx.error("piece '" + c + "' has another element type than Y");
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (!(Y->shape[d] == (d == 1 ? shape[1] * K : shape[d])))
      return ctx.error("Y " + Y->typeString() + " is not the pieces' shape with " + std::to_string(pieces.size()) + " times their channels");
  SdfgBuilder b(ctx, fused::kShuffledConcat);
  const std::string idx = indexList(shape.size());
  for (size_t k = 0; k < pieces.size(); ++k) {
    std::string out = "i0, " + std::to_string(pieces.size()) + " * i1 + " + std::to_string(k);
    for (size_t d = 2; d < shape.size(); ++d) out += ", i" + std::to_string(d);
    b.mappedTasklet("shuffle_" + std::to_string(k), fullRangeParams(shape), {{"x", pieces[k], idx}}, "y = x", {{"y", "Y", out, ""}});
  }
  return b.finish();
}

// One map Y[i] = f(X[i]) for DCW's unary activations; `code(t)` is f's tasklet expression of x.
Expected<std::unique_ptr<Sdfg>> expandUnary(const ExpansionContext& ctx, const std::string& label,
                                            const std::function<std::string(DType)>& code) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  if (X->dtype != Y->dtype || (X->dtype != DType::Float32 && X->dtype != DType::Float64))
    return ctx.error(ctx.node().opType + " computes float32 or float64 (X and Y of one type); X is " + X->typeString());
  if (!(X->shape == Y->shape)) return ctx.error("X " + X->typeString() + " and Y " + Y->typeString() + " differ in shape");
  SdfgBuilder b(ctx);
  const std::string idx = indexList(Y->shape.size());
  b.mappedTasklet(label, fullRangeParams(Y->shape), {{"x", "X", idx}}, "y = " + code(X->dtype), {{"y", "Y", idx, ""}});
  return b.finish();
}

std::string gelu(DType t) {
  return th::literal(0.5, t) + " * x * (" + th::literal(1, t) + " + erf(x / " + th::literal(std::sqrt(2.0), t) + "))";
}

std::string silu(DType t) { return "x * (" + th::literal(1, t) + " / (" + th::literal(1, t) + " + exp(-x)))"; }

} // namespace

void registerFused(ExpansionRegistry& r) {
  for (const fused::Base& base : fused::bases())
    r.add(fused::kDomain, base.fused, "pure", [&base](const ExpansionContext& c) { return expandFused(c, base); },
          "the unfused subgraph as library nodes: " + base.op + ", then Add(Z) and the activation when declared");
  r.add(fused::kDomain, fused::kConcatBatchNorm, "pure", expandConcatBatchNorm,
        "the unfused subgraph as library nodes: Concat along axis 1, then BatchNormalization (with the activation when declared)");
  r.add(fused::kDomain, fused::kShuffledConcat, "pure", expandShuffledConcat,
        "one copy map per piece: Y[n, K c + k, ...] = inputs_k[n, c, ...]");
  r.add(fused::kDomain, fused::kGelu, "pure", [](const ExpansionContext& c) { return expandUnary(c, "gelu", gelu); },
        "Y[i] = 0.5 X[i] (1 + erf(X[i] / sqrt(2)))");
  r.add(fused::kDomain, fused::kSilu, "pure", [](const ExpansionContext& c) { return expandUnary(c, "silu", silu); },
        "Y[i] = X[i] * (1 / (1 + exp(-X[i])))");
}

} // namespace dcw::expansions
