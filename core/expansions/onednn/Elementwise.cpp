// `onednn` elementwise ops: one oneDNN eltwise_forward, binary or sum primitive per node (float32).
//
//   unary   Relu, LeakyRelu, Elu, Sigmoid, Tanh, HardSwish, Clip (constant min/max), Exp, Sqrt, Abs,
//           Softplus, Neg, Reciprocal, and DCW's Gelu (FusedOp.h; eltwise_gelu_erf) and Silu
//           (eltwise_swish): the tensor as one flat run of values. (Log is left to `pure`:
//           oneDNN's log is off by about 1e-6 near 1, beyond ONNX's tolerance; HardSigmoid too.)
//   binary  Add, Sub, Mul, Div and Sum of two inputs: numpy broadcasting where the first operand has
//           the output's shape (commutative ops swap their operands to get there); Sum of more inputs
//           of one shape is one sum primitive. (Max and Min name their output `max`/`min`, which a C++
//           tasklet connector cannot be.)
#include "core/expansions/onednn/OneDnnCall.h"
#include "core/expansions/onednn/OneDnnOps.h"
#include "core/expansions/FusedOp.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>

namespace dcw::expansions::onednn {

using namespace dcw::ir;

namespace {

struct Unary {
  const char* op;
  const char* algorithm;
  // alpha and beta of the algorithm from the node (ONNX defaults).
  std::function<Expected<std::pair<double, double>>(const ExpansionContext&)> params;
};

Expected<std::pair<double, double>> clipBounds(const ExpansionContext& ctx) {
  double lo = -3.402823466e38, hi = 3.402823466e38;
  if (ctx.node().opsetVersion < 11) {
    lo = ctx.attrFloat("min", lo);
    hi = ctx.attrFloat("max", hi);
    return std::pair{lo, hi};
  }
  for (auto [conn, v] : {std::pair{"min", &lo}, std::pair{"max", &hi}}) {
    if (!ctx.hasIn(conn)) continue;
    const Tensor* t = ctx.constantIn(conn);
    if (!t || !t->bytes || t->dtype != DType::Float32 || t->bytes->size() != 4)
      return ctx.error(std::string("onednn Clip needs a constant float32 ") + conn, pureHint(ctx));
    float f;
    std::memcpy(&f, t->bytes->data(), 4);
    *v = f;
  }
  return std::pair{lo, hi};
}

Expected<std::unique_ptr<Sdfg>> expandUnary(const ExpansionContext& ctx, const Unary& u) {
  auto ins = ctx.inputs();
  auto outs = ctx.outputs();
  if (ins.empty() || outs.size() != 1) return ctx.error("expected one input and one output");
  const std::string in = ins[0], out = outs[0];
  DCW_TRY(auto X, th::needIn(ctx, in));
  DCW_TRY(auto Y, th::needOut(ctx, out));
  DCW_TRY(auto xd, describedOperand(ctx, u.op, in, *X));
  DCW_TRY(auto yd, describedOperand(ctx, u.op, out, *Y));
  const std::vector<int64_t>& x = xd.dims;
  if (product(x) != product(yd.dims)) return ctx.error(in + " and " + out + " differ in size");
  DCW_TRY(auto ab, u.params(ctx));
  const int64_t n = std::max<int64_t>(product(x), 1);
  // X and Y in one dense layout (row-major both, or channels-last both): one flat run over the
  // values. Otherwise (of one shape, in two layouts) the primitive works in X's layout and its result
  // is reordered into Y's.
  const bool flat = (xd.rowMajor && yd.rowMajor) || (xd.dense && yd.dense && x == yd.dims && xd.strides == yd.strides);
  if (!flat && x != yd.dims) return ctx.error(in + " and " + out + " have other shapes and layouts", pureHint(ctx));
  std::string make = flat ? "const auto x = plain(dims{" + std::to_string(n) + "});\nconst auto y = x;\n"
                          : "const auto x = " + xd.desc + ";\nconst auto y = " + yd.desc + ";\n";
  make += "const dnnl::eltwise_forward::primitive_desc pd(dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,\n";
  make += "    dnnl::algorithm::" + std::string(u.algorithm) + ", x, " + floatLiteral(ab.first) + ", " + floatLiteral(ab.second) + "), engine);\n";
  make += "dcw_k.prim = dnnl::eltwise_forward(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, x, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  SdfgBuilder bld(ctx); // Clip's min and max are read here, at expansion, and are no operands
  bld.cppTasklet("onednn_eltwise", {in},
                 callCode("oneDNN " + std::string(u.algorithm) + " for " + u.op + " over " + std::to_string(n) + " values", make, {in, out}),
                 {out}, {"onednn"}, sym::Expr(n));
  return bld.finish();
}

// Dims padded on the left with 1s to `rank`.
std::vector<int64_t> padded(std::vector<int64_t> d, size_t rank) {
  d.insert(d.begin(), rank - d.size(), 1);
  return d;
}

Expected<std::unique_ptr<Sdfg>> expandBinary(const ExpansionContext& ctx, const std::string& op, const std::string& alg, bool commutative) {
  auto ins = ctx.inputs();
  auto outs = ctx.outputs();
  if (ins.size() != 2 || outs.size() != 1) return ctx.error("onednn " + op + " takes two inputs", pureHint(ctx));
  DCW_TRY(auto A, th::needIn(ctx, ins[0]));
  DCW_TRY(auto B, th::needIn(ctx, ins[1]));
  DCW_TRY(auto Y, th::needOut(ctx, outs[0]));
  DCW_TRY(auto ad, describedOperand(ctx, op, ins[0], *A));
  DCW_TRY(auto bd, describedOperand(ctx, op, ins[1], *B));
  DCW_TRY(auto yd, describedOperand(ctx, op, outs[0], *Y));
  std::vector<int64_t> y = yd.dims.empty() ? std::vector<int64_t>{1} : yd.dims;
  const std::string yDesc = yd.dims.empty() ? "plain(dims{1})" : yd.desc;
  // Each operand's descriptor: as it is (any strides) at the output's rank, else row-major padded
  // with leading 1s (numpy broadcasting).
  auto descOf = [&](const Described& d, const std::string& name) -> Expected<std::pair<std::vector<int64_t>, std::string>> {
    if (d.dims.size() == y.size()) return std::pair{d.dims, d.desc};
    if (!d.rowMajor) return ctx.error("onednn " + op + " broadcasts " + name + " of another rank only when it is row-major", pureHint(ctx));
    auto p = padded(d.dims, y.size());
    return std::pair{p, "plain(" + dimsText(p) + ")"};
  };
  DCW_TRY(auto ap, descOf(ad, ins[0]));
  DCW_TRY(auto bp, descOf(bd, ins[1]));
  auto [a, aDesc] = ap;
  auto [b, bDesc] = bp;
  std::string first = ins[0], second = ins[1];
  if (a != y && b == y && commutative) {
    std::swap(a, b);
    std::swap(aDesc, bDesc);
    std::swap(first, second);
  }
  if (a != y) return ctx.error("onednn " + op + " needs one operand of the output's shape " + shapeText(y), pureHint(ctx));
  for (size_t k = 0; k < y.size(); ++k)
    if (b[k] != y[k] && b[k] != 1) return ctx.error(second + " " + shapeText(b) + " does not broadcast to " + shapeText(y));
  // A row-major operand of one value per channel ([N or 1, C, 1, ..], a squeeze-and-excitation scale)
  // beside an output with its channels in blocks: its floats lie as the blocked layout would put them,
  // so it is described so. oneDNN's binary kernels take per-channel broadcasts only in the output's
  // layout (another one runs the reference kernel, 100x slower).
  const Described& bOwn = second == ins[0] ? ad : bd;
  if (yd.block > 0 && bOwn.rowMajor && b.size() == y.size() && b.size() >= 3 && b[1] == y[1] &&
      std::all_of(b.begin() + 2, b.end(), [](int64_t d) { return d == 1; })) {
    const std::string tag = yDesc.substr(yDesc.find("tag::"));
    bDesc = "blocked(" + dimsText(b) + ", " + tag;
  }
  std::string make;
  make += "const auto a = " + aDesc + ";\n";
  make += "const auto b = " + bDesc + ";\n";
  make += "const auto y = " + yDesc + ";\n";
  make += "const dnnl::binary::primitive_desc pd(dnnl::binary::desc(dnnl::algorithm::" + alg + ", a, b, y), engine);\n";
  make += "dcw_k.prim = dnnl::binary(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC_0, a, pd.src0_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_SRC_1, b, pd.src1_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_binary", {ins[0], ins[1]},
                 callCode("oneDNN " + alg + " for " + op + ": " + shapeText(y) + " from " + shapeText(a) + " and " + shapeText(b), make,
                          {first, second, outs[0]}),
                 {outs[0]}, {"onednn"}, sym::Expr(product(y)));
  return bld.finish();
}

Expected<std::unique_ptr<Sdfg>> expandSum(const ExpansionContext& ctx) {
  auto ins = ctx.inputs();
  if (ins.size() == 2) return expandBinary(ctx, "Sum", "binary_add", true);
  auto outs = ctx.outputs();
  if (ins.size() < 2 || outs.size() != 1) return ctx.error("onednn Sum takes two or more inputs", pureHint(ctx));
  DCW_TRY(auto Y, th::needOut(ctx, outs[0]));
  DCW_TRY(auto yd, describedOperand(ctx, "Sum", outs[0], *Y));
  const std::vector<int64_t>& y = yd.dims;
  // All in one dense layout: one flat sum over the values; otherwise each operand as it is.
  bool flat = yd.dense;
  std::string srcs;
  for (auto& i : ins) {
    DCW_TRY(auto X, th::needIn(ctx, i));
    DCW_TRY(auto xd, describedOperand(ctx, "Sum", i, *X));
    if (xd.dims != y)
      return ctx.error("onednn Sum of more than two inputs needs them all of the output's shape; " + i + " is " + shapeText(xd.dims), pureHint(ctx));
    flat = flat && xd.strides == yd.strides;
    srcs += (srcs.empty() ? "" : ", ") + xd.desc;
  }
  const int64_t n = std::max<int64_t>(product(y), 1);
  std::string make;
  if (flat) {
    make += "const auto y = plain(dims{" + std::to_string(n) + "});\n";
    make += "const std::vector<dnnl::memory::desc> srcs(" + std::to_string(ins.size()) + ", y);\n";
  } else {
    make += "const auto y = " + yd.desc + ";\n";
    make += "const std::vector<dnnl::memory::desc> srcs{" + srcs + "};\n";
  }
  make += "const dnnl::sum::primitive_desc pd(y, std::vector<float>(" + std::to_string(ins.size()) + ", 1.0f), srcs, engine);\n";
  make += "dcw_k.prim = dnnl::sum(pd);\n";
  make += "for (int k = 0; k < " + std::to_string(ins.size()) + "; ++k) dcw_k.add(DNNL_ARG_MULTIPLE_SRC + k, srcs[size_t(k)], srcs[size_t(k)], false);\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  std::vector<std::string> buffers = ins;
  buffers.push_back(outs[0]);
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_sum", ins, callCode("oneDNN sum of " + std::to_string(ins.size()) + " inputs of " + std::to_string(n) + " values", make, buffers),
                 {outs[0]}, {"onednn"}, sym::Expr(n * int64_t(ins.size() - 1)));
  return bld.finish();
}

} // namespace

void registerElementwise(ExpansionRegistry& r) {
  auto attr = [](const char* name, double fallback) {
    return [name, fallback](const ExpansionContext& c) -> Expected<std::pair<double, double>> { return std::pair{c.attrFloat(name, fallback), 0.0}; };
  };
  auto fixed = [](double a, double b) {
    return [a, b](const ExpansionContext&) -> Expected<std::pair<double, double>> { return std::pair{a, b}; };
  };
  const std::vector<Unary> unary{
      {"Relu", "eltwise_relu", fixed(0, 0)},
      {"LeakyRelu", "eltwise_relu", attr("alpha", 0.01)},
      {"Elu", "eltwise_elu", attr("alpha", 1.0)},
      {"Sigmoid", "eltwise_logistic", fixed(0, 0)},
      {"Tanh", "eltwise_tanh", fixed(0, 0)},
      {"HardSwish", "eltwise_hardswish", fixed(0, 0)},
      {"Clip", "eltwise_clip_v2", clipBounds},
      {"Exp", "eltwise_exp", fixed(0, 0)},
      {"Sqrt", "eltwise_sqrt", fixed(0, 0)},
      {"Abs", "eltwise_abs", fixed(0, 0)},
      {"Softplus", "eltwise_soft_relu", fixed(0, 0)},
      {"Neg", "eltwise_linear", fixed(-1, 0)},
      {"Reciprocal", "eltwise_pow", fixed(1, -1)},
  };
  for (const Unary& u : unary)
    r.add("", u.op, decl(), [u](const ExpansionContext& c) { return expandUnary(c, u); },
          std::string("one oneDNN ") + u.algorithm + " (float32); a C++ tasklet, not differentiable");
  for (const Unary& u : {Unary{fused::kGelu, "eltwise_gelu_erf", fixed(0, 0)}, Unary{fused::kSilu, "eltwise_swish", fixed(1, 0)}})
    r.add(fused::kDomain, u.op, decl(), [u](const ExpansionContext& c) { return expandUnary(c, u); },
          std::string("one oneDNN ") + u.algorithm + " (float32); a C++ tasklet, not differentiable");
  const struct {
    const char* op;
    const char* alg;
    bool commutative;
  } binary[] = {{"Add", "binary_add", true}, {"Sub", "binary_sub", false}, {"Mul", "binary_mul", true},
                {"Div", "binary_div", false}};
  for (auto& b : binary) {
    std::string op = b.op, alg = b.alg;
    bool comm = b.commutative;
    r.add("", op, decl(), [op, alg, comm](const ExpansionContext& c) { return expandBinary(c, op, alg, comm); },
          "one oneDNN " + alg + " with broadcasting (float32); a C++ tasklet, not differentiable");
  }
  r.add("", "Sum", decl(), expandSum, "one oneDNN sum or binary_add (float32); a C++ tasklet, not differentiable");
}

} // namespace dcw::expansions::onednn
