#include "core/expansions/ops/MlCommon.h"

#include "core/expansions/ops/ElementwiseHelpers.h"

namespace dcw::expansions::ml {

using namespace dcw::ir;

Expected<Rows> rowsOf(const ExpansionContext& ctx, const DataDescriptor& x) {
  if (x.shape.empty() || x.shape.size() > 2)
    return ctx.error("the input must be [N, C] or [C], not " + x.typeString(), "reshape the features into rows");
  Rows r;
  r.batched = x.shape.size() == 2;
  r.n = r.batched ? x.shape[0] : sym::Expr(1);
  r.c = x.shape.back();
  return r;
}

Expected<std::vector<int64_t>> integerLabels(const ExpansionContext& ctx, const std::string& attr, size_t least) {
  if (ctx.hasAttr("classlabels_strings"))
    return ctx.error("string class labels: DCW does not lower strings", "export the classifier with integer labels");
  auto labels = ctx.attrInts(attr);
  if (labels.size() < least) return ctx.error(ctx.node().opType + " needs at least " + std::to_string(least) + " " + attr);
  return labels;
}

Expected<void> postTransform(SdfgBuilder& b, const ExpansionContext& ctx, const std::string& transform, const std::string& scores,
                             const std::string& out, const sym::Expr& n, int64_t k) {
  const std::vector<MapParam> all{{"p", Range::full(n)}, {"k", Range::full(sym::Expr(k))}};
  const std::vector<MapParam> rows{{"p", Range::full(n)}};
  b.nextState("post_transform");
  if (transform == "NONE" || transform.empty()) {
    b.mappedTasklet("none", all, {{"s", scores, "p, k"}}, "y = s", {{"y", out, "p, k", ""}});
    return {};
  }
  if (transform == "LOGISTIC") {
    b.mappedTasklet("logistic", all, {{"s", scores, "p, k"}}, "y = 1.0 / (1.0 + exp(-s))", {{"y", out, "p, k", ""}});
    return {};
  }
  if (transform != "SOFTMAX" && transform != "SOFTMAX_ZERO")
    return ctx.error("post_transform " + transform + " is not supported", "use NONE, LOGISTIC, SOFTMAX or SOFTMAX_ZERO");
  const bool zero = transform == "SOFTMAX_ZERO";
  const std::string m = b.transient("row_max", DType::Float32, {n});
  const std::string sum = b.transient("row_sum", DType::Float32, {n});
  b.mappedTasklet("init", rows, {}, "m = -inf; t = 0.0", {{"m", m, "p", ""}, {"t", sum, "p", ""}});
  b.nextState("softmax_max");
  b.mappedTasklet("max", all, {{"s", scores, "p, k"}}, "m = s", {{"m", m, "p", "max"}});
  b.nextState("softmax_exp");
  const std::string e = zero ? "select(abs(s) > 1e-7, exp(s - m), 0.0)" : "exp(s - m)";
  b.mappedTasklet("exp", all, {{"s", scores, "p, k"}, {"m", m, "p"}}, "y = " + e + "; t = y", {{"y", out, "p, k", ""}, {"t", sum, "p", "sum"}});
  b.nextState("softmax_divide");
  b.mappedTasklet("divide", all, {{"e", out, "p, k"}, {"t", sum, "p"}}, "y = e / t", {{"y", out, "p, k", ""}});
  return {};
}

void argMaxLabel(SdfgBuilder& b, const std::string& scores, const std::string& labels, const std::string& label, const sym::Expr& n,
                 int64_t k, bool batchedLabel) {
  const std::vector<MapParam> all{{"p", Range::full(n)}, {"k", Range::full(sym::Expr(k))}};
  const std::vector<MapParam> rows{{"p", Range::full(n)}};
  const std::string m = b.transient("best", DType::Float32, {n});
  const std::string at = b.transient("best_at", DType::Int64, {n});
  b.nextState("arg_max");
  b.mappedTasklet("init", rows, {}, "m = -inf; a = " + std::to_string(k), {{"m", m, "p", ""}, {"a", at, "p", ""}});
  b.nextState("arg_max_best");
  b.mappedTasklet("max", all, {{"s", scores, "p, k"}}, "m = s", {{"m", m, "p", "max"}});
  b.nextState("arg_max_first");
  b.mappedTasklet("first", all, {{"s", scores, "p, k"}, {"m", m, "p"}}, "a = select(s == m, k, " + std::to_string(k) + ")",
                  {{"a", at, "p", "min"}});
  b.nextState("arg_max_label");
  b.mappedTasklet("label", rows, {{"a", at, "p"}, {"l", labels, "0:" + std::to_string(k)}},
                  "y = l[min(a, " + std::to_string(k - 1) + ")]", {{"y", label, batchedLabel ? "p" : "0", ""}});
}

} // namespace dcw::expansions::ml
