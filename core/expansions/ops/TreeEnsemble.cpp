// TreeEnsembleRegressor and TreeEnsembleClassifier (ai.onnx.ml: scikit-learn's decision trees,
// random forests, gradient boosting, and XGBoost/LightGBM exports), as data-centric maps:
//
//   leaf[p, t]   = walk tree t on row p: `depth` unrolled steps of
//                  n = (x[feature[n]] <mode[n]> threshold[n]) || (isnan(x) && missing_true[n]) ? true[n] : false[n]
//                  (a leaf is its own child, so a shallower path stays on its leaf)
//   score[p, k] += weight[leaf[p, t], k]          (a summing map over rows, trees and targets)
//   Y = post_transform(score / trees (AVERAGE) + base_values)
//   classifier: label[p] = classlabels_int64s[arg-max score[p, :]]; with two classes, the second if
//               its score is > 0 (as ONNX Runtime decides them; it then returns 1 or 0 whatever the
//               labels are, DCW the labels)
//
// The nodes of every tree are numbered together; the node tables (feature, threshold, mode, children,
// missing-value direction) and the dense leaf-weight table are constant arrays of the expansion. As
// ONNX Runtime computes them for the SUM and AVERAGE aggregates and multi-class or two-class scores;
// refused, saying so: MIN/MAX aggregates, string labels, PROBIT, the binary form whose weights name
// one class only (ONNX Runtime then derives the second score) and two classes with two base values.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/MlCommon.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace dcw::expansions {

using namespace dcw::ir;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

struct Forest {
  int64_t nodes = 0, trees = 0, depth = 0;
  std::vector<int64_t> feature, mode, yes, no, missing, root;
  std::vector<float> threshold;
  std::vector<float> weights; // [targets, nodes]
};

// Modes by code: 0 LEQ, 1 LT, 2 GTE, 3 GT, 4 EQ, 5 NEQ, 6 LEAF.
Expected<Forest> readForest(const ExpansionContext& ctx, const std::string& prefix, int64_t targets) {
  const auto treeIds = ctx.attrInts("nodes_treeids"), nodeIds = ctx.attrInts("nodes_nodeids");
  const auto features = ctx.attrInts("nodes_featureids"), yes = ctx.attrInts("nodes_truenodeids"), no = ctx.attrInts("nodes_falsenodeids");
  const auto modes = ctx.attrStrings("nodes_modes");
  auto values = ctx.attrFloats("nodes_values");
  if (values.empty())
    if (auto* a = ctx.node().attribute("nodes_values_as_tensor"))
      if (auto* t = std::get_if<Tensor>(&a->value); t && t->bytes && (t->dtype == DType::Float32 || t->dtype == DType::Float64))
        for (int64_t k = 0; k < t->elementCount(); ++k) {
          if (t->dtype == DType::Float32) {
            float v;
            std::memcpy(&v, t->bytes->data() + k * 4, 4);
            values.push_back(v);
          } else {
            double v;
            std::memcpy(&v, t->bytes->data() + k * 8, 8);
            values.push_back(v);
          }
        }
  const auto missing = ctx.attrInts("nodes_missing_value_tracks_true");
  const size_t n = treeIds.size();
  if (n == 0) return ctx.error("the ensemble has no nodes");
  for (auto* v : {&nodeIds, &features, &yes, &no})
    if (v->size() != n) return ctx.error("the nodes_* attributes differ in length (" + std::to_string(n) + " tree ids)");
  if (modes.size() != n || values.size() != n) return ctx.error("nodes_modes and nodes_values must have one entry per node");
  Forest f;
  f.nodes = int64_t(n);
  std::map<std::pair<int64_t, int64_t>, int64_t> index;
  std::map<int64_t, int64_t> treeIndex;
  for (size_t i = 0; i < n; ++i) {
    if (!index.emplace(std::make_pair(treeIds[i], nodeIds[i]), int64_t(i)).second)
      return ctx.error("tree " + std::to_string(treeIds[i]) + " has node " + std::to_string(nodeIds[i]) + " twice");
    treeIndex.emplace(treeIds[i], int64_t(treeIndex.size()));
  }
  f.trees = int64_t(treeIndex.size());
  static const std::map<std::string, int64_t> kModes{{"BRANCH_LEQ", 0}, {"BRANCH_LT", 1}, {"BRANCH_GTE", 2}, {"BRANCH_GT", 3},
                                                     {"BRANCH_EQ", 4}, {"BRANCH_NEQ", 5}, {"LEAF", 6}};
  std::vector<bool> isChild(n, false);
  for (size_t i = 0; i < n; ++i) {
    auto m = kModes.find(modes[i]);
    if (m == kModes.end()) return ctx.error("node mode '" + modes[i] + "' is not an ONNX tree node mode");
    f.mode.push_back(m->second);
    f.threshold.push_back(float(values[i]));
    f.missing.push_back(i < missing.size() ? missing[i] : 0);
    if (m->second == 6) {
      f.feature.push_back(0);
      f.yes.push_back(int64_t(i));
      f.no.push_back(int64_t(i));
      continue;
    }
    if (features[i] < 0) return ctx.error("node " + std::to_string(nodeIds[i]) + " of tree " + std::to_string(treeIds[i]) + " reads feature " + std::to_string(features[i]));
    f.feature.push_back(features[i]);
    for (auto [child, out] : {std::make_pair(yes[i], &f.yes), std::make_pair(no[i], &f.no)}) {
      auto it = index.find({treeIds[i], child});
      if (it == index.end())
        return ctx.error("node " + std::to_string(nodeIds[i]) + " of tree " + std::to_string(treeIds[i]) + " names child " + std::to_string(child) +
                         ", which the tree does not have");
      out->push_back(it->second);
      isChild[size_t(it->second)] = true;
    }
  }
  // One root per tree: the node no other node names as a child; the deepest path bounds the walk.
  f.root.assign(size_t(f.trees), -1);
  for (size_t i = 0; i < n; ++i)
    if (!isChild[i]) {
      int64_t& r = f.root[size_t(treeIndex.at(treeIds[i]))];
      if (r >= 0) return ctx.error("tree " + std::to_string(treeIds[i]) + " has two roots (nodes no other node leads to)");
      r = int64_t(i);
    }
  for (size_t t = 0; t < f.root.size(); ++t) {
    if (f.root[t] < 0) return ctx.error("a tree has no root: its nodes form a cycle");
    std::vector<std::pair<int64_t, int64_t>> stack{{f.root[t], 0}};
    while (!stack.empty()) {
      auto [node, d] = stack.back();
      stack.pop_back();
      if (d > f.nodes) return ctx.error("a tree's nodes form a cycle");
      f.depth = std::max(f.depth, d);
      if (f.mode[size_t(node)] == 6) continue;
      stack.push_back({f.yes[size_t(node)], d + 1});
      stack.push_back({f.no[size_t(node)], d + 1});
    }
  }
  // Leaf weights per target (or class).
  const auto wt = ctx.attrInts(prefix + "_treeids"), wn = ctx.attrInts(prefix + "_nodeids"), wi = ctx.attrInts(prefix + "_ids");
  const auto ww = ctx.attrFloats(prefix + "_weights");
  if (wt.size() != wn.size() || wt.size() != wi.size() || wt.size() != ww.size())
    return ctx.error("the " + prefix + "_* attributes differ in length");
  f.weights.assign(size_t(f.nodes * targets), 0.0f);
  for (size_t j = 0; j < wt.size(); ++j) {
    auto it = index.find({wt[j], wn[j]});
    if (it == index.end()) return ctx.error(prefix + " weight " + std::to_string(j) + " names node " + std::to_string(wn[j]) + " of tree " + std::to_string(wt[j]) + ", which does not exist");
    if (wi[j] < 0 || wi[j] >= targets) return ctx.error(prefix + " weight " + std::to_string(j) + " is for target " + std::to_string(wi[j]) + " of " + std::to_string(targets));
    f.weights[size_t(wi[j] * f.nodes + it->second)] += float(ww[j]);
  }
  return f;
}

// score[p, k] for every row and target: the summed leaf weights (/ trees for AVERAGE) + base_values.
Expected<void> ensembleScores(SdfgBuilder& b, const ExpansionContext& ctx, const ml::Rows& rows, const Forest& f, int64_t targets,
                              const std::string& scores, bool average) {
  const std::string root = th::constantArray(b, "root", th::int64Tensor({f.trees}, f.root));
  const std::string feat = th::constantArray(b, "feature", th::int64Tensor({f.nodes}, f.feature));
  const std::string mode = th::constantArray(b, "mode", th::int64Tensor({f.nodes}, f.mode));
  const std::string yes = th::constantArray(b, "true_child", th::int64Tensor({f.nodes}, f.yes));
  const std::string no = th::constantArray(b, "false_child", th::int64Tensor({f.nodes}, f.no));
  const std::string miss = th::constantArray(b, "missing_true", th::int64Tensor({f.nodes}, f.missing));
  const std::string thr = th::constantArray(b, "threshold", th::float32Tensor({f.nodes}, f.threshold));
  const std::string W = th::constantArray(b, "leaf_weight", th::float32Tensor({targets, f.nodes}, f.weights));
  auto base = ctx.attrFloats("base_values");
  if (!base.empty() && int64_t(base.size()) != targets)
    return ctx.error(std::to_string(base.size()) + " base_values for " + std::to_string(targets) + " targets");
  base.resize(size_t(targets), 0.0);
  const std::string B = th::constantArray(b, "base_values", th::float32Tensor({targets}, std::vector<float>(base.begin(), base.end())));
  const std::string leaf = b.transient("leaf", DType::Int64, {rows.n, sym::Expr(f.trees)});
  const sym::Expr N(f.nodes), K(targets), T(f.trees);
  std::string code = "let n0 = r; ";
  for (int64_t d = 0; d < f.depth; ++d) {
    const std::string n = "n" + std::to_string(d), v = "v" + std::to_string(d), m = "m" + std::to_string(d), t = "t" + std::to_string(d);
    code += "let " + v + " = float32(x[fe[" + n + "]]); let " + m + " = mo[" + n + "]; let " + t + " = th[" + n + "]; ";
    code += "let n" + std::to_string(d + 1) + " = select((" + m + " == 0 && " + v + " <= " + t + ") || (" + m + " == 1 && " + v + " < " + t +
            ") || (" + m + " == 2 && " + v + " >= " + t + ") || (" + m + " == 3 && " + v + " > " + t + ") || (" + m + " == 4 && " + v +
            " == " + t + ") || (" + m + " == 5 && " + v + " != " + t + ") || (isnan(" + v + ") && mi[" + n + "] != 0), ye[" + n + "], no[" + n + "]); ";
  }
  code += "l = n" + std::to_string(f.depth);
  const std::string all = "0:" + std::to_string(f.nodes);
  b.mappedTasklet("walk", {{"p", Range::full(rows.n)}, {"t", Range::full(T)}},
                  {{"x", "X", rows.row("p")}, {"r", root, "t"}, {"fe", feat, all}, {"mo", mode, all}, {"th", thr, all}, {"ye", yes, all},
                   {"no", no, all}, {"mi", miss, all}},
                  code, {{"l", leaf, "p, t", ""}});
  b.nextState("aggregate");
  b.mappedTasklet("zero", {{"p", Range::full(rows.n)}, {"k", Range::full(K)}}, {}, "s = 0.0", {{"s", scores, "p, k", ""}});
  b.nextState("sum");
  b.mappedTasklet("sum", {{"p", Range::full(rows.n)}, {"t", Range::full(T)}, {"k", Range::full(K)}},
                  {{"l", leaf, "p, t"}, {"w", W, "k, " + all}}, "s = w[l]", {{"s", scores, "p, k", "sum"}});
  b.nextState("base");
  const std::string scale = average ? " / " + ew::number(double(f.trees)) : "";
  b.mappedTasklet("base", {{"p", Range::full(rows.n)}, {"k", Range::full(K)}}, {{"a", scores, "p, k"}, {"v", B, "k"}}, "s = a" + scale + " + v",
                  {{"s", scores, "p, k", ""}});
  return {};
}

Result expandTreeEnsembleRegressor(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto rows, ml::rowsOf(ctx, *X));
  const int64_t targets = ctx.attrInt("n_targets", 1);
  const std::string agg = ctx.attrString("aggregate_function", "SUM");
  if (agg != "SUM" && agg != "AVERAGE") return ctx.error("aggregate_function " + agg + " is not supported", "use SUM or AVERAGE");
  if (!(Y->shape.size() == 2 && Y->shape[1] == sym::Expr(targets))) return ctx.error("Y must be [N, " + std::to_string(targets) + "], not " + Y->typeString());
  DCW_TRY(auto forest, readForest(ctx, "target", targets));
  SdfgBuilder b(ctx);
  const std::string scores = b.transient("scores", DType::Float32, {rows.n, sym::Expr(targets)});
  DCW_CHECK(ensembleScores(b, ctx, rows, forest, targets, scores, agg == "AVERAGE"));
  DCW_CHECK(ml::postTransform(b, ctx, ctx.attrString("post_transform", "NONE"), scores, "Y", rows.n, targets));
  return b.finish();
}

Result expandTreeEnsembleClassifier(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto Z, th::needOut(ctx, "Z"));
  (void)Y;
  DCW_TRY(auto rows, ml::rowsOf(ctx, *X));
  DCW_TRY(auto labels, ml::integerLabels(ctx, "classlabels_int64s", 2));
  const int64_t classes = int64_t(labels.size());
  if (!(Z->shape.size() == 2 && Z->shape[1] == sym::Expr(classes)))
    return ctx.error("Z must be [N, " + std::to_string(classes) + "], not " + Z->typeString());
  const auto ids = ctx.attrInts("class_ids");
  if (classes == 2 && !ids.empty() && std::all_of(ids.begin(), ids.end(), [&](int64_t i) { return i == ids[0]; }))
    return ctx.error("the binary form whose weights name one class only is not supported", "export weights for both classes");
  if (classes == 2 && ctx.attrFloats("base_values").size() == 2)
    return ctx.error("two classes with two base_values are not supported (ONNX leaves their meaning open)", "fold the base values into the leaves");
  DCW_TRY(auto forest, readForest(ctx, "class", classes));
  SdfgBuilder b(ctx);
  const std::string scores = b.transient("scores", DType::Float32, {rows.n, sym::Expr(classes)});
  DCW_CHECK(ensembleScores(b, ctx, rows, forest, classes, scores, false));
  DCW_CHECK(ml::postTransform(b, ctx, ctx.attrString("post_transform", "NONE"), scores, "Z", rows.n, classes));
  if (classes == 2) { // as ONNX Runtime decides two classes: by the sign of the second score
    b.nextState("two_classes");
    b.mappedTasklet("label", {{"p", Range::full(rows.n)}}, {{"s", scores, "p, 1"}},
                    "y = select(s > 0.0, " + std::to_string(labels[1]) + ", " + std::to_string(labels[0]) + ")", {{"y", "Y", "p", ""}});
    return b.finish();
  }
  const std::string L = th::constantArray(b, "labels", th::int64Tensor({classes}, labels));
  ml::argMaxLabel(b, scores, L, "Y", rows.n, classes, true);
  return b.finish();
}

} // namespace

void registerTreeEnsemble(ExpansionRegistry& r) {
  r.add("ai.onnx.ml", "TreeEnsembleRegressor", "pure", expandTreeEnsembleRegressor,
        "map over rows and trees walking the tree (unrolled to its depth); summing map of leaf weights; post-transform");
  r.add("ai.onnx.ml", "TreeEnsembleClassifier", "pure", expandTreeEnsembleClassifier,
        "map over rows and trees walking the tree (unrolled to its depth); summing map of class weights; post-transform; arg-max label");
}

} // namespace dcw::expansions
