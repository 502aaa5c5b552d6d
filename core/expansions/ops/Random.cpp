// Random ops: RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike, Bernoulli, Multinomial,
// and Dropout in training mode. One map each over the output; every element draws from `random_uniform(seed,
// index)` (codegen/cpu/Runtime.cpp), a counter-based generator, so an element's value depends only on
// the seed and its position — not on the schedule, the tiling or the thread count that computes it.
//
//   RandomUniform(low, high):   y[i] = low + (high - low) * u(seed, i)
//   RandomNormal(mean, scale):  y[i] = mean + scale * sqrt(-2 log(1 - u(seed, 2i))) * cos(2 pi u(seed, 2i + 1))
//   Bernoulli:                  y[i] = u(seed, i) < p[i]
//   Multinomial:                y[b, s] = #{c < C-1 : cdf[b, c] <= u(seed, b*S + s) * cdf[b, C-1]}, cdf of exp(x[b])
//   Dropout (training):         keep = u(seed, i) >= ratio; y = keep ? x / (1 - ratio) : 0; mask = keep
//   Dropout (inference):        y = x, mask = true
//
// The seed is the node's `seed` attribute; without one, a seed derived from the node's name, so the
// same model gives the same numbers on every run (as a script replayed headless must). ONNX leaves the
// generator to the implementation: DCW's numbers are not ONNX Runtime's, only their distribution is.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <cmath>
#include <cstring>
#include <functional>

namespace dcw::expansions {

using namespace dcw::ir;
using sym::Expr;
using ew::number;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

// The node's seed: its attribute, else one derived from its name (stable across runs).
std::string seedOf(const ExpansionContext& ctx) {
  if (ctx.hasAttr("seed")) return number(std::floor(ctx.attrFloat("seed", 0)));
  uint64_t h = 1469598103934665603ull; // FNV-1a of the label
  for (unsigned char c : ctx.node().label()) h = (h ^ c) * 1099511628211ull;
  return number(double(h >> 12));
}

// The row-major position of element (i0, i1, ...) of `shape`, as tasklet text.
std::string linearIndex(const std::vector<Expr>& shape) {
  if (shape.empty()) return "0";
  std::string out;
  Expr stride(1);
  for (size_t k = shape.size(); k-- > 0;) {
    std::string term = "i" + std::to_string(k) + (stride == Expr(1) ? "" : " * (" + stride.str() + ")");
    out = out.empty() ? term : term + " + " + out;
    stride = stride * shape[k];
  }
  return out;
}

std::string subsetOf(size_t rank) {
  std::string s;
  for (size_t k = 0; k < rank; ++k) s += (k ? ", " : "") + std::string("i") + std::to_string(k);
  return s.empty() ? "0" : s;
}

// One map over `out` computing `code` (which may use `index` and `seed`) into connector y.
Result fill(const ExpansionContext& ctx, const std::string& label, const std::function<std::string(const std::string&, const std::string&)>& code,
            std::vector<TaskletIn> ins = {}) {
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  SdfgBuilder b(ctx);
  std::string index = linearIndex(Y->shape);
  b.mappedTasklet(label, fullRangeParams(Y->shape), ins, "y = " + th::castTo(Y->dtype, code(index, seedOf(ctx))),
                  {{"y", "output", Y->shape.empty() ? "" : subsetOf(Y->shape.size()), ""}});
  return b.finish();
}

std::string uniform(const ExpansionContext& ctx, const std::string& index, const std::string& seed) {
  double low = ctx.attrFloat("low", 0.0), high = ctx.attrFloat("high", 1.0);
  return number(low) + " + " + number(high - low) + " * random_uniform(" + seed + ", " + index + ")";
}

std::string normal(const ExpansionContext& ctx, const std::string& index, const std::string& seed) {
  double mean = ctx.attrFloat("mean", 0.0), scale = ctx.attrFloat("scale", 1.0);
  return number(mean) + " + " + number(scale) + " * sqrt(-2.0 * log(1.0 - random_uniform(" + seed + ", 2 * (" + index +
         ")))) * cos(6.283185307179586 * random_uniform(" + seed + ", 2 * (" + index + ") + 1))";
}

Result expandRandomUniform(const ExpansionContext& ctx) {
  return fill(ctx, "random_uniform", [&](const std::string& i, const std::string& s) { return uniform(ctx, i, s); });
}

Result expandRandomNormal(const ExpansionContext& ctx) {
  return fill(ctx, "random_normal", [&](const std::string& i, const std::string& s) { return normal(ctx, i, s); });
}

Result expandBernoulli(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "input"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  if (X->shape != Y->shape) return ctx.error("Bernoulli's output must have the shape of its input");
  return fill(
      ctx, "bernoulli", [&](const std::string& i, const std::string& s) { return "select(random_uniform(" + s + ", " + i + ") < p, 1, 0)"; },
      {{"p", "input", subsetOf(X->shape.size())}});
}

// Multinomial: sample_size draws per row of unnormalized log-probabilities. The row's cumulative
// weights cdf[b, c] = sum over c' <= c of exp(x[b, c'] - max_b) (shifted by the row's max, so exp stays
// finite), then y[b, s] = the number of classes whose cdf lies at or below u * total: the class where
// u * total falls.
Result expandMultinomial(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "input"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  if (X->shape.size() != 2) return ctx.error("Multinomial's input must be [batch_size, class_size], not " + X->typeString());
  if (Y->shape.size() != 2) return ctx.error("Multinomial's output must be [batch_size, sample_size]");
  if (Y->dtype != DType::Int32 && Y->dtype != DType::Int64) return ctx.error("Multinomial's output must be int32 or int64");
  const Expr B = X->shape[0], C = X->shape[1], S = Y->shape[1];
  SdfgBuilder b(ctx);
  const std::string peak = b.transient("row_max", DType::Float64, {B});
  const std::string cdf = b.transient("cdf", DType::Float64, {B, C});
  b.mappedTasklet("init_max", {{"b", Range::full(B)}}, {}, "m = -inf", {{"m", peak, "b", ""}});
  b.mappedTasklet("init_cdf", {{"b", Range::full(B)}, {"c", Range::full(C)}}, {}, "w = 0.0", {{"w", cdf, "b, c", ""}});
  b.nextState("row_max");
  b.mappedTasklet("row_max", {{"b", Range::full(B)}, {"c", Range::full(C)}}, {{"x", "input", "b, c"}}, "m = float64(x)",
                  {{"m", peak, "b", "max"}});
  b.nextState("cumulate");
  b.mappedTasklet("cumulate", {{"b", Range::full(B)}, {"c", Range::full(C)}, {"k", Range::full(C)}},
                  {{"x", "input", "b, k"}, {"m", peak, "b"}}, "w = select(k <= c, exp(float64(x) - m), 0.0)", {{"w", cdf, "b, c", "sum"}});
  b.nextState("init_sample");
  b.mappedTasklet("init_sample", {{"b", Range::full(B)}, {"s", Range::full(S)}}, {}, "y = " + th::literal(0, Y->dtype),
                  {{"y", "output", "b, s", ""}});
  b.nextState("sample");
  const std::string u = "random_uniform(" + seedOf(ctx) + ", b * (" + S.str() + ") + s)";
  // Classes before the last whose cdf is at or below the draw: the sampled class (never past C - 1).
  b.mappedTasklet("sample", {{"b", Range::full(B)}, {"s", Range::full(S)}, {"c", Range{Expr(0), C - 1, Expr(1)}}},
                  {{"w", cdf, "b, c"}, {"total", cdf, "b, " + (C - 1).str()}},
                  "y = " + th::castTo(Y->dtype, "select(w <= " + u + " * total, 1, 0)"), {{"y", "output", "b, s", "sum"}});
  return b.finish();
}

// Dropout: without training_mode, or with a constant false one, Y = X and the mask is all true; in
// training mode (a constant true, or a run-time training_mode that the map tests) elements are kept with
// probability 1 - ratio and scaled by 1 / (1 - ratio).
Result expandDropout(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "data"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  if (X->shape != Y->shape) return ctx.error("Dropout's output must have the shape of its data");
  enum class Mode { Inference, Training, RunTime } mode = Mode::Inference;
  if (ctx.hasIn("training_mode")) {
    const ir::Tensor* t = ctx.constantIn("training_mode");
    if (!t) mode = Mode::RunTime;
    else if (t->bytes && !t->bytes->empty() && (*t->bytes)[0] != 0) mode = Mode::Training;
  }
  // The ratio: a number (a constant input or the opset < 12 attribute), or a run-time input read as `r`.
  std::string ratio = "0.5";
  bool runtimeRatio = false;
  if (ctx.hasIn("ratio")) {
    const ir::Tensor* r = ctx.constantIn("ratio");
    double v = 0;
    if (r && r->bytes && r->elementCount() == 1 && r->dtype == DType::Float32) {
      float f;
      std::memcpy(&f, r->bytes->data(), 4);
      v = f;
    } else if (r && r->bytes && r->elementCount() == 1 && r->dtype == DType::Float64) {
      std::memcpy(&v, r->bytes->data(), 8);
    } else if (r) {
      return ctx.error("Dropout's ratio must be a float scalar");
    }
    if (r && mode != Mode::Inference && !(v >= 0 && v < 1)) return ctx.error("Dropout's ratio must lie in [0, 1)");
    ratio = r ? number(v) : "r";
    runtimeRatio = !r;
  } else if (ctx.hasAttr("ratio")) {
    ratio = number(ctx.attrFloat("ratio", 0.5)); // opset < 12
  }
  SdfgBuilder b(ctx);
  const std::string idx = Y->shape.empty() ? "" : subsetOf(Y->shape.size());
  std::vector<TaskletIn> ins{{"x", "data", idx}};
  if (runtimeRatio && mode != Mode::Inference) ins.push_back({"r", "ratio", ""});
  const std::string draw = "random_uniform(" + seedOf(ctx) + ", " + linearIndex(Y->shape) + ") >= " + ratio;
  const std::string scale = "1.0 / (1.0 - " + ratio + ")";
  std::string keep = "true", factor = "1.0";
  if (mode == Mode::Training) keep = draw, factor = scale;
  if (mode == Mode::RunTime) {
    ins.push_back({"training", "training_mode", ""});
    keep = "select(training, " + draw + ", true)";
    factor = "select(training, " + scale + ", 1.0)";
  }
  std::string code = "let keep = " + keep + "\ny = select(keep, " + th::castTo(Y->dtype, "x * " + factor) + ", " +
                     th::literal(0, Y->dtype) + ")";
  std::vector<TaskletOut> outs{{"y", "output", idx, ""}};
  if (ctx.hasOut("mask")) {
    code += "\nm = keep";
    outs.push_back({"m", "mask", idx, ""});
  }
  b.mappedTasklet("dropout", fullRangeParams(Y->shape), ins, code, outs);
  return b.finish();
}

} // namespace

void registerRandom(ExpansionRegistry& r) {
  r.add("", "RandomUniform", "pure", expandRandomUniform, "low + (high - low) * u, u from a counter-based generator");
  r.add("", "RandomUniformLike", "pure", expandRandomUniform, "as RandomUniform, in the input's shape");
  r.add("", "RandomNormal", "pure", expandRandomNormal, "mean + scale * Box-Muller normal from a counter-based generator");
  r.add("", "RandomNormalLike", "pure", expandRandomNormal, "as RandomNormal, in the input's shape");
  r.add("", "Bernoulli", "pure", expandBernoulli, "u < p, u from a counter-based generator");
  r.add("", "Multinomial", "pure", expandMultinomial, "the class where u * total falls in the row's cumulative exp(logits)");
  r.add("", "Dropout", "pure", expandDropout,
        "inference: output = data, mask = true; training (training_mode true, or tested at run time): kept with probability 1 - ratio, scaled by 1/(1 - ratio)");
}

} // namespace dcw::expansions
