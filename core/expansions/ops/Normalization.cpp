// Pure expansions of the normalisations (see Ops.h). Statistics are computed with WCR-sum maps into
// transients shaped like the input with the normalised axes of size 1, in two passes (mean, then
// the mean of squared deviations: no cancellation); float16/bfloat16 compute in float32.
//
//   BatchNormalization   X[N, C, d...] -> Y same shape. Inference: y = (x - mean[c]) / sqrt(var[c] + eps)
//                        * scale[c] + B[c]. training_mode=1 (opset 14+): batch mean/variance over N and
//                        d..., running_mean = input_mean * momentum + mean * (1 - momentum), same for var.
//                        The training outputs of opsets before 14 are refused.
//   LayerNormalization   X -> Y, Mean, InvStdDev (opset 17): normalised over axes [axis, rank), Scale and
//                        B broadcast to X; Mean/InvStdDev have shape X[:axis] + [1, ...].
//   InstanceNormalization  X[N, C, d...]: normalised over d... per (n, c), then scale[c], B[c].
//   LRN                  X[N, C, d...]: y = x / (bias + alpha / size * sum of x^2 over the channel window
//                        [c - (size-1)/2, c + ceil((size-1)/2)])^beta; the window reads a zero-padded
//                        transient of squares, so every memlet stays in bounds.
//   MeanVarianceNormalization  y = (x - mean) / (sqrt(var) + 1e-9) over `axes` (default [0, 2, 3]).
// Preconditions: tensors of known rank.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"

namespace dcw::expansions {

namespace {

using namespace ew;
using ir::DType;
using sym::Expr;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;

// Collects the tasklet inputs of a map and converts them to the compute type on the way in.
struct Loader {
  SdfgBuilder& b;
  DType ct;
  std::vector<TaskletIn> ins;
  std::string code;
  // Reads `data` at `subset` as the value named `name`.
  void load(const std::string& name, const std::string& data, const std::string& subset) {
    DType t = b.data(data).dtype;
    if (t == ct) {
      ins.push_back({name, data, subset});
    } else {
      ins.push_back({name + "_in", data, subset});
      code += "let " + name + " = " + castTo(ct, name + "_in") + "\n";
    }
  }
};

struct Stats {
  std::string mean, var; // transients of the keepdims shape
};

// Mean and population variance of `x` over the `red` axes, two passes.
Stats meanVar(SdfgBuilder& b, const std::string& x, const std::vector<bool>& red, DType ct) {
  const auto shape = b.data(x).shape;
  auto keep = reducedShape(shape, red, true);
  std::string ks = reducedSubset(red, true), all = indexList(shape.size());
  std::string n = castTo(ct, reducedCount(shape, red).str());
  auto params = fullRangeParams(shape);
  Stats s;
  std::string sum = b.transient("sum", ct, keep), sq = b.transient("sqdev", ct, keep);
  s.mean = b.transient("mean", ct, keep);
  s.var = b.transient("var", ct, keep);
  fill(b, "init_sum", sum, literal(0, ct));
  fill(b, "init_sqdev", sq, literal(0, ct));
  b.nextState("sum");
  Loader l{b, ct, {}, {}};
  l.load("x", x, all);
  b.mappedTasklet("sum", params, l.ins, l.code + "s = x", {{"s", sum, ks, "sum"}});
  b.nextState("mean");
  b.mappedTasklet("mean", fullRangeParams(keep), {{"s", sum, indexList(keep.size())}}, "m = s / " + n,
                  {{"m", s.mean, indexList(keep.size())}});
  b.nextState("sqdev");
  Loader l2{b, ct, {}, {}};
  l2.load("x", x, all);
  l2.ins.push_back({"m", s.mean, ks});
  b.mappedTasklet("sqdev", params, l2.ins, l2.code + "let d = x - m\nq = d * d", {{"q", sq, ks, "sum"}});
  b.nextState("var");
  b.mappedTasklet("var", fullRangeParams(keep), {{"q", sq, indexList(keep.size())}}, "v = q / " + n,
                  {{"v", s.var, indexList(keep.size())}});
  b.nextState();
  return s;
}

// Subset of a per-channel parameter (channel = dim 1 of X, further dims follow X's).
std::string channelSubset(const ir::DataDescriptor& p, const std::vector<Expr>& xShape) {
  return alignedSubset(p.shape, xShape, 1);
}

Result expandBatchNorm(const ExpansionContext& ctx) {
  DCW_CHECK(requireRanked(ctx));
  auto ins = ctx.inputs();
  if (ins.size() != 5 || ins[0] != "X" || !ctx.hasOut("Y"))
    return ctx.error("BatchNormalization needs X, scale, B, mean and var connected, and Y");
  const auto& X = *ctx.in("X");
  if (X.shape.size() < 2) return ctx.error("X must have at least 2 dimensions (N, C, ...)");
  int64_t v = ctx.node().opsetVersion;
  bool training = v >= 14 && ctx.attrInt("training_mode", 0) != 0;
  for (auto& o : ctx.outputs())
    if (o != "Y" && !training)
      return ctx.error("output '" + o + "' is a training statistic; " +
                           (v < 14 ? std::string("training outputs before opset 14 are not supported")
                                   : std::string("it is only defined with training_mode = 1")),
                       "disconnect the output or use opset 14+ with training_mode = 1");
  double eps = ctx.attrFloat("epsilon", 1e-5);
  DType ct = computeType(X.dtype), outT = ctx.out("Y")->dtype;
  const std::string &scale = ins[1], &bias = ins[2], &mean = ins[3], &var = ins[4];
  std::string all = indexList(X.shape.size());
  SdfgBuilder b(ctx);

  std::string mu, va; // the statistics used to normalise, and their subsets
  std::string muSub, vaSub;
  if (training) {
    std::vector<bool> red(X.shape.size(), true);
    red[1] = false;
    Stats s = meanVar(b, "X", red, ct);
    mu = s.mean;
    va = s.var;
    muSub = vaSub = reducedSubset(red, true);
    double momentum = ctx.attrFloat("momentum", 0.9);
    // running statistics, per channel: [C]
    for (auto [outName, inName, stat] : {std::tuple<std::string, std::string, std::string>{"running_mean", mean, mu},
                                         {"running_var", var, va}}) {
      if (!ctx.hasOut(outName)) continue;
      const auto& o = *ctx.out(outName);
      Loader l{b, ct, {}, {}};
      l.load("r", inName, indexList(o.shape.size()));
      std::string sub = "0, i0";
      for (size_t d = 2; d < X.shape.size(); ++d) sub += ", 0";
      l.ins.push_back({"s", stat, sub});
      b.mappedTasklet(outName, fullRangeParams(o.shape), l.ins,
                      l.code + "o = " + convert("r * " + literal(momentum, ct) + " + s * " + literal(1 - momentum, ct), ct, o.dtype),
                      {{"o", outName, indexList(o.shape.size())}});
    }
  } else {
    mu = mean;
    va = var;
    muSub = channelSubset(*ctx.in(mean), X.shape);
    vaSub = channelSubset(*ctx.in(var), X.shape);
  }
  Loader l{b, ct, {}, {}};
  l.load("x", "X", all);
  l.load("s", scale, channelSubset(*ctx.in(scale), X.shape));
  l.load("c", bias, channelSubset(*ctx.in(bias), X.shape));
  l.load("m", mu, muSub);
  l.load("v", va, vaSub);
  b.mappedTasklet("batchnorm", fullRangeParams(X.shape), l.ins,
                  l.code + "y = " + convert("(x - m) / sqrt(v + " + literal(eps, ct) + ") * s + c", ct, outT), {{"y", "Y", all}});
  return b.finish();
}

Result expandLayerNorm(const ExpansionContext& ctx) {
  DCW_CHECK(requireRanked(ctx));
  if (!ctx.hasIn("X") || !ctx.hasIn("Scale") || !ctx.hasOut("Y"))
    return ctx.error("LayerNormalization needs X, Scale and Y connected");
  const auto& X = *ctx.in("X");
  int64_t rank = static_cast<int64_t>(X.shape.size());
  auto axis = normalizeAxis(ctx.attrInt("axis", -1), rank);
  if (!axis) return ctx.error("axis " + std::to_string(ctx.attrInt("axis", -1)) + " is out of range for rank " + std::to_string(rank));
  double eps = ctx.attrFloat("epsilon", 1e-5);
  DType ct = X.dtype == DType::Float64 ? DType::Float64 : DType::Float32; // stash_type: float32 at least
  std::vector<bool> red(size_t(rank), false);
  for (int64_t d = *axis; d < rank; ++d) red[size_t(d)] = true;
  SdfgBuilder b(ctx);
  Stats s = meanVar(b, "X", red, ct);
  std::string all = indexList(size_t(rank)), ks = reducedSubset(red, true);
  std::string inv = literal(1, ct) + " / sqrt(v + " + literal(eps, ct) + ")";
  Loader l{b, ct, {}, {}};
  l.load("x", "X", all);
  l.load("s", "Scale", alignedSubset(ctx.in("Scale")->shape, X.shape, X.shape.size() - ctx.in("Scale")->shape.size()));
  if (ctx.hasIn("B")) l.load("c", "B", alignedSubset(ctx.in("B")->shape, X.shape, X.shape.size() - ctx.in("B")->shape.size()));
  l.ins.push_back({"m", s.mean, ks});
  l.ins.push_back({"v", s.var, ks});
  std::string y = "(x - m) * (" + inv + ") * s" + std::string(ctx.hasIn("B") ? " + c" : "");
  b.mappedTasklet("layernorm", fullRangeParams(X.shape), l.ins, l.code + "y = " + convert(y, ct, ctx.out("Y")->dtype), {{"y", "Y", all}});
  auto keep = reducedShape(X.shape, red, true);
  for (auto [name, expr, stat] : {std::tuple<std::string, std::string, std::string>{"Mean", "m", s.mean}, {"InvStdDev", "", s.var}}) {
    if (!ctx.hasOut(name)) continue;
    const auto& o = *ctx.out(name);
    if (o.shape.size() != keep.size()) return ctx.error("output " + name + " must have rank " + std::to_string(keep.size()));
    std::string e = expr.empty() ? inv : "m";
    b.mappedTasklet(name == "Mean" ? "mean_out" : "invstddev_out", fullRangeParams(keep),
                    {{expr.empty() ? "v" : "m", stat, indexList(keep.size())}}, "o = " + convert(e, ct, o.dtype),
                    {{"o", name, indexList(keep.size())}});
  }
  return b.finish();
}

Result expandInstanceNorm(const ExpansionContext& ctx) {
  DCW_CHECK(requireRanked(ctx));
  if (!ctx.hasIn("input") || !ctx.hasIn("scale") || !ctx.hasIn("B") || !ctx.hasOut("output"))
    return ctx.error("InstanceNormalization needs input, scale, B and output connected");
  const auto& X = *ctx.in("input");
  if (X.shape.size() < 2) return ctx.error("input must have at least 2 dimensions (N, C, ...)");
  double eps = ctx.attrFloat("epsilon", 1e-5);
  DType ct = computeType(X.dtype);
  std::vector<bool> red(X.shape.size(), true);
  red[0] = red[1] = false;
  SdfgBuilder b(ctx);
  Stats s = meanVar(b, "input", red, ct);
  std::string all = indexList(X.shape.size()), ks = reducedSubset(red, true);
  Loader l{b, ct, {}, {}};
  l.load("x", "input", all);
  l.load("s", "scale", channelSubset(*ctx.in("scale"), X.shape));
  l.load("c", "B", channelSubset(*ctx.in("B"), X.shape));
  l.ins.push_back({"m", s.mean, ks});
  l.ins.push_back({"v", s.var, ks});
  b.mappedTasklet("instancenorm", fullRangeParams(X.shape), l.ins,
                  l.code + "y = " + convert("(x - m) / sqrt(v + " + literal(eps, ct) + ") * s + c", ct, ctx.out("output")->dtype),
                  {{"y", "output", all}});
  return b.finish();
}

Result expandLrn(const ExpansionContext& ctx) {
  DCW_CHECK(requireRanked(ctx));
  if (!ctx.hasIn("X") || !ctx.hasOut("Y")) return ctx.error("LRN needs X and Y connected");
  const auto& X = *ctx.in("X");
  if (X.shape.size() < 2) return ctx.error("X must have at least 2 dimensions (N, C, ...)");
  if (!ctx.hasAttr("size")) return ctx.error("LRN needs the size attribute");
  int64_t size = ctx.attrInt("size", 1);
  if (size < 1) return ctx.error("size must be positive");
  double alpha = ctx.attrFloat("alpha", 1e-4), beta = ctx.attrFloat("beta", 0.75), bias = ctx.attrFloat("bias", 1.0);
  DType ct = computeType(X.dtype);
  int64_t lo = (size - 1) / 2;
  size_t rank = X.shape.size();
  std::string all = indexList(rank);
  auto shifted = [&](const std::string& c) {
    std::string s = "i0, " + c;
    for (size_t d = 2; d < rank; ++d) s += ", i" + std::to_string(d);
    return s;
  };
  SdfgBuilder b(ctx);
  auto pshape = X.shape;
  pshape[1] = pshape[1] + Expr(size - 1);
  std::string padded = b.transient("squares", ct, pshape);
  std::string window = b.transient("window_sum", ct, X.shape);
  fill(b, "init_squares", padded, literal(0, ct));
  fill(b, "init_window", window, literal(0, ct));
  b.nextState("squares");
  Loader l{b, ct, {}, {}};
  l.load("x", "X", all);
  b.mappedTasklet("square", fullRangeParams(X.shape), l.ins, l.code + "q = x * x",
                  {{"q", padded, shifted((Expr::symbol("i1") + Expr(lo)).str())}});
  b.nextState("window");
  auto params = fullRangeParams(X.shape);
  params.push_back({"k", ir::Range::full(Expr(size))});
  b.mappedTasklet("window", params, {{"q", padded, shifted("i1 + k")}}, "s = q", {{"s", window, all, "sum"}});
  b.nextState("lrn");
  Loader l2{b, ct, {}, {}};
  l2.load("x", "X", all);
  l2.ins.push_back({"s", window, all});
  b.mappedTasklet("lrn", fullRangeParams(X.shape), l2.ins,
                  l2.code + "y = " +
                      convert("x / pow(" + literal(bias, ct) + " + " + literal(alpha / double(size), ct) + " * s, " + literal(beta, ct) + ")",
                              ct, ctx.out("Y")->dtype),
                  {{"y", "Y", all}});
  return b.finish();
}

Result expandMvn(const ExpansionContext& ctx) {
  DCW_CHECK(requireRanked(ctx));
  if (!ctx.hasIn("X") || !ctx.hasOut("Y")) return ctx.error("MeanVarianceNormalization needs X and Y connected");
  const auto& X = *ctx.in("X");
  int64_t rank = static_cast<int64_t>(X.shape.size());
  std::vector<bool> red(size_t(rank), false);
  for (int64_t a : ctx.attrInts("axes", {0, 2, 3})) {
    auto n = normalizeAxis(a, rank);
    if (!n) return ctx.error("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    red[size_t(*n)] = true;
  }
  DType ct = computeType(X.dtype);
  SdfgBuilder b(ctx);
  Stats s = meanVar(b, "X", red, ct);
  std::string all = indexList(size_t(rank)), ks = reducedSubset(red, true);
  Loader l{b, ct, {}, {}};
  l.load("x", "X", all);
  l.ins.push_back({"m", s.mean, ks});
  l.ins.push_back({"v", s.var, ks});
  b.mappedTasklet("mvn", fullRangeParams(X.shape), l.ins,
                  l.code + "y = " + convert("(x - m) / (sqrt(v) + " + literal(1e-9, ct) + ")", ct, ctx.out("Y")->dtype), {{"y", "Y", all}});
  return b.finish();
}

} // namespace

void registerNormalization(ExpansionRegistry& r) {
  r.add("", "BatchNormalization", "pure", expandBatchNorm,
        "y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + B[c] (training_mode: batch statistics)");
  r.add("", "LayerNormalization", "pure", expandLayerNorm, "two-pass mean/variance over [axis, rank), then scale and bias");
  r.add("", "InstanceNormalization", "pure", expandInstanceNorm, "two-pass mean/variance per (n, c), then scale and bias");
  r.add("", "LRN", "pure", expandLrn, "windowed channel sum of squares over a zero-padded transient");
  r.add("", "MeanVarianceNormalization", "pure", expandMvn, "(x - mean) / (sqrt(var) + 1e-9) over axes");
}

} // namespace dcw::expansions
