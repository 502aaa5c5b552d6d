// The ai.onnx.ml feature transforms of scikit-learn exports, as maps over the rows of X ([N, C] or [C]):
//
//   Scaler:                Y[p, c] = (X[p, c] - offset[c]) * scale[c]        (one value: every feature)
//   Normalizer:            Y[p, c] = X[p, c] / d[p], d = max_c X (MAX), sum |X| (L1), sqrt(sum X^2) (L2);
//                          a row whose d is 0 is copied
//   Binarizer:             Y = X > threshold ? 1 : 0
//   Imputer:               Y[p, c] = X[p, c] == replaced (NaN: isnan) ? imputed[c] : X[p, c]
//   ArrayFeatureExtractor: Z[..., j] = X[..., Y[j]]                          ([C] in: [1, len(Y)] out)
//
// As ONNX Runtime computes them; Scaler and Normalizer write float32 whatever the input type.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/MlCommon.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <cmath>

namespace dcw::expansions {

using namespace dcw::ir;
using ew::number;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

// A per-feature table from an attribute of one value (every feature) or C values, and how a map over
// features `c` indexes it.
struct Table {
  std::string name, index;
};
Expected<Table> perFeature(SdfgBuilder& b, const ExpansionContext& ctx, const std::string& attr, const std::vector<double>& v,
                           const sym::Expr& c, double fallback) {
  std::vector<double> values = v.empty() ? std::vector<double>{fallback} : v;
  if (values.size() != 1 && !(c == sym::Expr(int64_t(values.size()))))
    return ctx.error(attr + " has " + std::to_string(values.size()) + " values for " + c.str() + " features", "give one value or one per feature");
  std::vector<float> f(values.begin(), values.end());
  return Table{th::constantArray(b, attr, th::float32Tensor({int64_t(f.size())}, f)), values.size() == 1 ? "0" : "c"};
}

Result expandScaler(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  (void)Y;
  DCW_TRY(auto rows, ml::rowsOf(ctx, *X));
  SdfgBuilder b(ctx);
  DCW_TRY(auto off, perFeature(b, ctx, "offset", ctx.attrFloats("offset"), rows.c, 0.0));
  DCW_TRY(auto sc, perFeature(b, ctx, "scale", ctx.attrFloats("scale"), rows.c, 1.0));
  b.mappedTasklet("scale", {{"p", Range::full(rows.n)}, {"c", Range::full(rows.c)}},
                  {{"x", "X", rows.at("p", "c")}, {"o", off.name, off.index}, {"s", sc.name, sc.index}}, "y = (float32(x) - o) * s",
                  {{"y", "Y", rows.at("p", "c"), ""}});
  return b.finish();
}

Result expandNormalizer(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  (void)Y;
  DCW_TRY(auto rows, ml::rowsOf(ctx, *X));
  const std::string norm = ctx.attrString("norm", "MAX");
  std::string init, term, wcr, den;
  if (norm == "MAX") init = "-inf", term = "float32(x)", wcr = "max", den = "d";
  else if (norm == "L1") init = "0.0", term = "abs(float32(x))", wcr = "sum", den = "d";
  else if (norm == "L2") init = "0.0", term = "float32(x) * float32(x)", wcr = "sum", den = "sqrt(d)";
  else return ctx.error("norm must be MAX, L1 or L2, not '" + norm + "'");
  SdfgBuilder b(ctx);
  const std::string d = b.transient("norm", DType::Float32, {rows.n});
  const std::vector<MapParam> all{{"p", Range::full(rows.n)}, {"c", Range::full(rows.c)}};
  b.mappedTasklet("init", {{"p", Range::full(rows.n)}}, {}, "d = " + init, {{"d", d, "p", ""}});
  b.nextState("reduce");
  b.mappedTasklet("reduce", all, {{"x", "X", rows.at("p", "c")}}, "d = " + term, {{"d", d, "p", wcr}});
  b.nextState("divide");
  b.mappedTasklet("divide", all, {{"x", "X", rows.at("p", "c")}, {"d", d, "p"}},
                  "let v = float32(x); y = select(d != 0.0, v / " + den + ", v)", {{"y", "Y", rows.at("p", "c"), ""}});
  return b.finish();
}

Result expandBinarizer(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  const double t = ctx.attrFloat("threshold", 0.0);
  SdfgBuilder b(ctx);
  const auto params = fullRangeParams(X->shape);
  const std::string idx = indexList(X->shape.size());
  b.mappedTasklet("binarize", params, {{"x", "X", idx}}, "y = " + ew::castTo(Y->dtype, "select(float64(x) > " + number(t) + ", 1, 0)"),
                  {{"y", "Y", idx, ""}});
  return b.finish();
}

Result expandImputer(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto rows, ml::rowsOf(ctx, *X));
  const bool ints = X->dtype == DType::Int64 || X->dtype == DType::Int32;
  std::vector<double> imputed;
  std::string match;
  if (ints) {
    for (auto v : ctx.attrInts("imputed_value_int64s")) imputed.push_back(double(v));
    match = "int64(x) == " + std::to_string(ctx.attrInt("replaced_value_int64", 0));
  } else {
    imputed = ctx.attrFloats("imputed_value_floats");
    const double r = ctx.attrFloat("replaced_value_float", 0.0);
    match = std::isnan(r) ? "isnan(x)" : "float32(x) == " + number(r);
  }
  if (imputed.empty()) return ctx.error("Imputer has no imputed values", "set imputed_value_floats or imputed_value_int64s");
  SdfgBuilder b(ctx);
  DCW_TRY(auto table, perFeature(b, ctx, "imputed", imputed, rows.c, 0.0));
  b.mappedTasklet("impute", {{"p", Range::full(rows.n)}, {"c", Range::full(rows.c)}}, {{"x", "X", rows.at("p", "c")}, {"v", table.name, table.index}},
                  "y = select(" + match + ", " + ew::castTo(Y->dtype, "v") + ", x)", {{"y", "Y", rows.at("p", "c"), ""}});
  return b.finish();
}

Result expandArrayFeatureExtractor(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto I, th::needIn(ctx, "Y"));
  DCW_TRY(auto Z, th::needOut(ctx, "Z"));
  if (X->shape.empty()) return ctx.error("ArrayFeatureExtractor needs X of rank >= 1");
  const sym::Expr c = X->shape.back(), k = I->totalSize();
  // Z: X's leading dims (one row for a [C] input), then one value per index.
  std::vector<sym::Expr> lead(X->shape.begin(), X->shape.end() - 1);
  sym::Expr rows(1);
  for (auto& d : lead) rows = rows * d;
  if (!(Z->totalSize() == rows * k)) return ctx.error("Z must hold " + (rows * k).str() + " values, not " + Z->typeString());
  SdfgBuilder b(ctx);
  const std::string xrow = lead.empty() ? "0:" + c.str() : th::join(th::unflatten("p", lead)) + ", 0:" + c.str();
  const auto zIdx = th::unflatten("p * " + th::par(k) + " + j", Z->shape);
  const auto iIdx = th::unflatten("j", I->shape);
  b.mappedTasklet("extract", {{"p", Range::full(rows)}, {"j", Range::full(k)}}, {{"x", "X", xrow}, {"ix", "Y", th::join(iIdx)}},
                  "y = x[min(max(int64(ix), 0), " + th::par(c - 1) + ")]", {{"y", "Z", th::join(zIdx), ""}});
  return b.finish();
}

} // namespace

void registerMlPreprocessing(ExpansionRegistry& r) {
  r.add("ai.onnx.ml", "Scaler", "pure", expandScaler, "map: (x - offset) * scale per feature");
  r.add("ai.onnx.ml", "Normalizer", "pure", expandNormalizer, "row reduction (max, L1, L2), then a dividing map");
  r.add("ai.onnx.ml", "Binarizer", "pure", expandBinarizer, "map: x > threshold");
  r.add("ai.onnx.ml", "Imputer", "pure", expandImputer, "map: the feature's imputed value where x is the replaced one");
  r.add("ai.onnx.ml", "ArrayFeatureExtractor", "pure", expandArrayFeatureExtractor, "map over rows and indices reading the indexed feature");
}

} // namespace dcw::expansions
