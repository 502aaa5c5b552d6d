// The ai.onnx.ml linear models of scikit-learn exports (LinearRegression, Ridge, LogisticRegression, ...):
//
//   LinearRegressor:  Y[p, t] = sum_c X[p, c] * coefficients[t*C + c] + intercepts[t]
//   LinearClassifier: S[p, k] = sum_c X[p, c] * coefficients[k*C + c] + intercepts[k]
//                     Y[p] = classlabels_ints[first k with the largest S[p, k]],  Z = post_transform(S)
//
// A map over (row, target, feature) with a summing write onto the intercepts, then the post-transform
// (NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO) and, for the classifier, the arg-max, as ONNX Runtime
// computes them; with one row of coefficients for two classes, as ONNX Runtime makes the second
// score: [1 - t, t], t = the score or its logistic, the label by the score's sign. Refused, saying
// so: string class labels (DCW does not lower strings) and PROBIT.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/MlCommon.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions {

using namespace dcw::ir;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

// scores[p, k] = X[p, :] . W[k, :] + b[k] for K rows of coefficients; returns K.
Expected<int64_t> linearScores(SdfgBuilder& b, const ExpansionContext& ctx, const ml::Rows& rows, const std::string& scores, int64_t targets) {
  const auto coef = ctx.attrFloats("coefficients");
  auto intercepts = ctx.attrFloats("intercepts");
  auto c = rows.c.constantValue();
  if (!c || *c < 1) return ctx.error("the number of features must be known, not " + rows.c.str(), "give X a static feature dim");
  if (coef.empty() || coef.size() % size_t(*c) != 0)
    return ctx.error(std::to_string(coef.size()) + " coefficients do not make rows of " + std::to_string(*c) + " features");
  const int64_t k = int64_t(coef.size()) / *c;
  if (targets > 0 && k != targets) return ctx.error(std::to_string(k) + " rows of coefficients for " + std::to_string(targets) + " targets");
  if (intercepts.empty()) intercepts.assign(size_t(k), 0.0);
  if (int64_t(intercepts.size()) != k) return ctx.error(std::to_string(intercepts.size()) + " intercepts for " + std::to_string(k) + " rows");
  std::vector<float> w(coef.begin(), coef.end()), bias(intercepts.begin(), intercepts.end());
  const std::string W = th::constantArray(b, "coefficients", th::float32Tensor({k, *c}, w));
  const std::string B = th::constantArray(b, "intercepts", th::float32Tensor({k}, bias));
  const sym::Expr K(k);
  b.mappedTasklet("intercept", {{"p", Range::full(rows.n)}, {"k", Range::full(K)}}, {{"v", B, "k"}}, "s = v", {{"s", scores, "p, k", ""}});
  b.nextState("dot");
  b.mappedTasklet("dot", {{"p", Range::full(rows.n)}, {"k", Range::full(K)}, {"c", Range::full(rows.c)}},
                  {{"x", "X", rows.at("p", "c")}, {"w", W, "k, c"}}, "s = float32(x) * w", {{"s", scores, "p, k", "sum"}});
  return k;
}

Result expandLinearRegressor(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto rows, ml::rowsOf(ctx, *X));
  const int64_t targets = ctx.attrInt("targets", 1);
  if (Y->shape.size() != 2) return ctx.error("Y must be [N, targets], not " + Y->typeString());
  SdfgBuilder b(ctx);
  const std::string scores = b.transient("scores", DType::Float32, {rows.n, sym::Expr(targets)});
  DCW_TRY(auto k, linearScores(b, ctx, rows, scores, targets));
  DCW_CHECK(ml::postTransform(b, ctx, ctx.attrString("post_transform", "NONE"), scores, "Y", rows.n, k));
  return b.finish();
}

Result expandLinearClassifier(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto Z, th::needOut(ctx, "Z"));
  (void)Y;
  DCW_TRY(auto rows, ml::rowsOf(ctx, *X));
  DCW_TRY(auto labels, ml::integerLabels(ctx, "classlabels_ints", 1));
  const int64_t classes = int64_t(labels.size());
  SdfgBuilder b(ctx);
  if (!(Z->shape.size() == 2 && Z->shape[1] == sym::Expr(classes))) return ctx.error("Z must be [N, " + std::to_string(classes) + "], not " + Z->typeString());
  const auto coef = ctx.attrFloats("coefficients");
  if (auto c = rows.c.constantValue(); c && *c > 0 && int64_t(coef.size()) == *c && classes == 2) {
    // One row for two classes: s = X . w + b; label = s > 0 ? the second : the first; the scores are
    // [1 - t, t] with t = s (NONE) or logistic(s) (LOGISTIC).
    const std::string transform = ctx.attrString("post_transform", "NONE");
    if (transform != "NONE" && transform != "LOGISTIC")
      return ctx.error("post_transform " + transform + " with one row of coefficients for two classes is not supported",
                       "use NONE or LOGISTIC, or export one row of coefficients per class");
    const std::string one = b.transient("score", DType::Float32, {rows.n, sym::Expr(1)});
    DCW_TRY(auto k, linearScores(b, ctx, rows, one, 1));
    (void)k;
    b.nextState("two_classes");
    const std::string t = transform == "LOGISTIC" ? "1.0 / (1.0 + exp(-s))" : "s";
    b.mappedTasklet("two_classes", {{"p", Range::full(rows.n)}, {"j", Range::full(sym::Expr(2))}}, {{"s", one, "p, 0"}},
                    "let t = " + t + "; z = select(j == 0, 1.0 - t, t)", {{"z", "Z", "p, j", ""}});
    b.mappedTasklet("label", {{"p", Range::full(rows.n)}}, {{"s", one, "p, 0"}},
                    "y = select(s > 0.0, " + std::to_string(labels[1]) + ", " + std::to_string(labels[0]) + ")", {{"y", "Y", "p", ""}});
    return b.finish();
  }
  const std::string scores = b.transient("scores", DType::Float32, {rows.n, sym::Expr(classes)});
  DCW_TRY(auto k, linearScores(b, ctx, rows, scores, classes));
  DCW_CHECK(ml::postTransform(b, ctx, ctx.attrString("post_transform", "NONE"), scores, "Z", rows.n, k));
  const std::string L = th::constantArray(b, "labels", th::int64Tensor({classes}, labels));
  ml::argMaxLabel(b, scores, L, "Y", rows.n, k, true);
  return b.finish();
}

} // namespace

void registerMlLinear(ExpansionRegistry& r) {
  r.add("ai.onnx.ml", "LinearRegressor", "pure", expandLinearRegressor, "summing map over rows, targets and features; post-transform");
  r.add("ai.onnx.ml", "LinearClassifier", "pure", expandLinearClassifier, "summing map for the scores; post-transform; arg-max label");
}

} // namespace dcw::expansions
