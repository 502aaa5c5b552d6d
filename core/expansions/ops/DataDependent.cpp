// The ops whose output size is a count of the values: NonZero, Compress with a run-time condition,
// Unique and NonMaxSuppression. Each is one sequential C++ tasklet that writes its outputs packed
// (row-major at the actual dims, into buffers allocated at the count's bound) and the count itself
// into the node's `extent` connector; the importer put the op at the end of its state, and the
// interstate edge after it makes the count the symbol the rest of the graph is shaped by
// (core/ir/DynamicExtent.h):
//
//   NonZero(X[2, 3])        -> Y[2, K]      Y[:, j] = the index of the j-th non-zero of X, row-major
//   Compress(X, cond, axis) -> Y[.., K, ..]  the slices along `axis` whose cond is true (flat without axis)
//   Unique(X, axis, sorted) -> Y[.., K, ..], indices[K], inverse_indices[len], counts[K]
//   NonMaxSuppression(boxes[B, S, 4], scores[B, C, S], max, iou, score) -> selected_indices[K, 3]
//
// As ONNX Runtime computes them: NonZero counts NaN as non-zero; Unique sorts ascending
// (lexicographically over a slice with an axis) or keeps first occurrences, a stable order either
// way; NonMaxSuppression takes boxes by descending score (the lower index first on a tie), above the
// score threshold, suppressing those whose IoU with a kept one exceeds the threshold, up to `max`
// per class. The dims are passed in as an int64 array written from the (symbolic) shapes, so one
// program serves every input size. Not differentiable (autodiff refuses the nodes).
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <optional>

namespace dcw::expansions {

using namespace dcw::ir;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

// An int64 array `dims` holding `shape`, written by one tasklet per element (the dims may be symbols).
std::string dimsArray(SdfgBuilder& b, const std::vector<sym::Expr>& shape) {
  std::string name = b.transient("dims", DType::Int64, {sym::Expr(int64_t(std::max<size_t>(shape.size(), 1)))});
  if (shape.empty()) {
    b.mappedTasklet("dim", {}, {}, "d = 1", {{"d", name, "0", ""}});
    return name;
  }
  for (size_t k = 0; k < shape.size(); ++k)
    b.mappedTasklet("dim" + std::to_string(k), {}, {}, "d = " + shape[k].str(), {{"d", name, std::to_string(k), ""}});
  return name;
}

// The scalar the op writes its count into: given to the op by the importer in the main graph only
// (an op in an If/Loop body or a function has none, and its count could not shape the rest).
Expected<void> needExtent(const ExpansionContext& ctx) {
  if (ctx.hasOut("extent")) return {};
  return ctx.error("the output size of " + ctx.node().opType +
                       " is counted at run time, which DCW supports in the main graph only (not in an If/Loop body or a function)",
                   "move the op out of the subgraph, or give it inputs whose values are known");
}

// C++ that views X (dims in the array `dims`) as [outer, len, inner] around `axis` (without an axis:
// one run of all the elements).
std::string splitAtAxis(const std::string& dims, int64_t rank, bool hasAxis, int64_t axis) {
  return "const int64_t rank = " + std::to_string(rank) + ";\n"
         "int64_t outer = 1, len = 1, inner = 1;\n"
         "for (int64_t k = 0; k < rank; ++k) {\n" +
         (hasAxis ? "  const int64_t a = " + std::to_string(axis) + ";\n"
                    "  if (k < a) outer *= " + dims + "[k]; else if (k == a) len = " + dims + "[k]; else inner *= " + dims + "[k];\n"
                  : "  len *= " + dims + "[k];\n") +
         "}\n";
}

// The `axis` attribute normalized to [0, rank), or nullopt when the node has none.
Expected<std::optional<int64_t>> axisAttr(const ExpansionContext& ctx, int64_t rank) {
  if (!ctx.hasAttr("axis")) return std::optional<int64_t>();
  auto a = th::normAxis(ctx.attrInt("axis", 0), rank);
  if (!a) return ctx.error("axis " + std::to_string(ctx.attrInt("axis", 0)) + " is out of range for rank " + std::to_string(rank));
  return std::optional<int64_t>(*a);
}

// `X[i] != 0` for the element type (half types are bit patterns: -0 is zero).
std::string nonZeroTest(DType t, const std::string& x) {
  if (t == DType::Float16 || t == DType::BFloat16) return "((" + x + ") & 0x7fff) != 0";
  return "(" + x + ") != 0";
}

// Where an optional output is not connected, a scratch container the tasklet writes instead.
std::string outputOrScratch(SdfgBuilder& b, const std::string& name, DType t, std::vector<sym::Expr> shape) {
  if (b.sdfg().findData(name)) return name;
  return b.transient(name + "_unused", t, std::move(shape));
}

Result expandNonZero(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_CHECK(needExtent(ctx));
  (void)Y;
  SdfgBuilder b(ctx);
  std::string dims = dimsArray(b, X->shape);
  const std::string R = std::to_string(X->shape.size());
  std::string code =
      "const int64_t rank = " + R + ";\n"
      "int64_t n = 1;\n"
      "for (int64_t k = 0; k < rank; ++k) n *= " + dims + "[k];\n"
      "int64_t c = 0;\n"
      "for (int64_t i = 0; i < n; ++i) c += " + nonZeroTest(X->dtype, "X[i]") + ";\n"
      "int64_t j = 0;\n"
      "for (int64_t i = 0; i < n; ++i) {\n"
      "  if (!(" + nonZeroTest(X->dtype, "X[i]") + ")) continue;\n"
      "  int64_t rest = i;\n"
      "  for (int64_t k = rank - 1; k >= 0; --k) {\n"
      "    Y[k * c + j] = rest % " + dims + "[k];\n"
      "    rest /= " + dims + "[k];\n"
      "  }\n"
      "  ++j;\n"
      "}\n"
      "extent = c;\n";
  b.cppTasklet("nonzero", {"X", dims}, code, {"Y", "extent"}, {}, std::nullopt);
  return b.finish();
}

Result expandUnique(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_CHECK(needExtent(ctx));
  (void)Y;
  const int64_t r = int64_t(X->shape.size());
  DCW_TRY(auto axisOpt, axisAttr(ctx, r));
  const bool hasAxis = axisOpt.has_value();
  const int64_t axis = axisOpt.value_or(0);
  const bool sorted = ctx.attrInt("sorted", 1) != 0;
  SdfgBuilder b(ctx);
  std::string dims = dimsArray(b, X->shape);
  sym::Expr len = hasAxis ? X->shape[size_t(axis)] : X->totalSize();
  std::string indices = outputOrScratch(b, "indices", DType::Int64, {len});
  std::string inverse = outputOrScratch(b, "inverse_indices", DType::Int64, {len});
  std::string counts = outputOrScratch(b, "counts", DType::Int64, {len});
  std::string code = splitAtAxis(dims, r, hasAxis, axis) +
      "auto at = [&](int64_t o, int64_t p, int64_t t) { return X[(o * len + p) * inner + t]; };\n"
      "auto less = [&](int64_t a, int64_t b) {\n"
      "  for (int64_t o = 0; o < outer; ++o)\n"
      "    for (int64_t t = 0; t < inner; ++t) {\n"
      "      auto x = at(o, a, t), y = at(o, b, t);\n"
      "      if (x < y) return true;\n"
      "      if (y < x) return false;\n"
      "    }\n"
      "  return false;\n"
      "};\n"
      "std::vector<int64_t> order(static_cast<size_t>(len));\n"
      "for (int64_t p = 0; p < len; ++p) order[size_t(p)] = p;\n"
      "std::stable_sort(order.begin(), order.end(), less);\n"
      "std::vector<int64_t> group(static_cast<size_t>(len)), first, count;\n"
      "for (size_t q = 0; q < order.size(); ++q) {\n"
      "  if (q == 0 || less(order[q - 1], order[q])) { first.push_back(order[q]); count.push_back(0); }\n"
      "  group[size_t(order[q])] = int64_t(first.size()) - 1;\n"
      "  ++count.back();\n"
      "}\n"
      "const int64_t K = int64_t(first.size());\n"
      "std::vector<int64_t> rank_of(static_cast<size_t>(K));\n"
      "std::vector<int64_t> by(static_cast<size_t>(K));\n"
      "for (int64_t u = 0; u < K; ++u) by[size_t(u)] = u;\n" +
      (sorted ? std::string() : "std::sort(by.begin(), by.end(), [&](int64_t a, int64_t b) { return first[size_t(a)] < first[size_t(b)]; });\n") +
      "for (int64_t u = 0; u < K; ++u) rank_of[size_t(by[size_t(u)])] = u;\n"
      "for (int64_t u = 0; u < K; ++u) {\n"
      "  const int64_t g = by[size_t(u)];\n"
      "  for (int64_t o = 0; o < outer; ++o)\n"
      "    for (int64_t t = 0; t < inner; ++t) Y[(o * K + u) * inner + t] = at(o, first[size_t(g)], t);\n"
      "  " + indices + "[u] = first[size_t(g)];\n"
      "  " + counts + "[u] = count[size_t(g)];\n"
      "}\n"
      "for (int64_t p = 0; p < len; ++p) " + inverse + "[p] = rank_of[size_t(group[size_t(p)])];\n"
      "extent = K;\n";
  b.cppTasklet("unique", {"X", dims}, code, {"Y", indices, inverse, counts, "extent"}, {}, std::nullopt);
  return b.finish();
}

Result expandNonMaxSuppression(const ExpansionContext& ctx) {
  DCW_TRY(auto boxes, th::needIn(ctx, "boxes"));
  DCW_TRY(auto scores, th::needIn(ctx, "scores"));
  DCW_TRY(auto S, th::needOut(ctx, "selected_indices"));
  DCW_CHECK(needExtent(ctx));
  (void)S;
  if (boxes->shape.size() != 3 || scores->shape.size() != 3)
    return ctx.error("NonMaxSuppression takes boxes [batch, boxes, 4] and scores [batch, classes, boxes], not " + boxes->typeString() +
                     " and " + scores->typeString());
  const bool center = ctx.attrInt("center_point_box", 0) != 0;
  SdfgBuilder b(ctx);
  std::string dims = dimsArray(b, {boxes->shape[0], scores->shape[1], boxes->shape[1]});
  std::vector<std::string> ins{"boxes", "scores", dims};
  // An optional scalar input: its value, or the default when absent.
  auto scalar = [&](const std::string& name, const std::string& fallback) {
    const DataDescriptor* d = b.sdfg().findData(name);
    if (!d) return fallback;
    ins.push_back(name);
    return d->dataKind == DataKind::Scalar ? name : name + "[0]";
  };
  std::string maxOut = scalar("max_output_boxes_per_class", "0");
  std::string iou = scalar("iou_threshold", "0.0f");
  std::string minScore = scalar("score_threshold", "");
  std::string code =
      "const int64_t B = " + dims + "[0], C = " + dims + "[1], N = " + dims + "[2];\n"
      "const int64_t max_out = int64_t(" + maxOut + ");\n"
      "const float iou_max = float(" + iou + ");\n"
      "struct Box { float y1, x1, y2, x2; };\n"
      "auto box = [&](int64_t bt, int64_t i) {\n"
      "  const auto* p = boxes + (bt * N + i) * 4;\n" +
      (center ? "  const float xc = float(p[0]), yc = float(p[1]), w = float(p[2]), h = float(p[3]);\n"
                "  return Box{yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2};\n"
              : "  const float a = float(p[0]), c = float(p[1]), e = float(p[2]), f = float(p[3]);\n"
                "  return Box{std::min(a, e), std::min(c, f), std::max(a, e), std::max(c, f)};\n") +
      "};\n"
      "auto suppress = [&](const Box& p, const Box& q) {\n"
      "  const float ih = std::min(p.y2, q.y2) - std::max(p.y1, q.y1), iw = std::min(p.x2, q.x2) - std::max(p.x1, q.x1);\n"
      "  if (ih <= 0 || iw <= 0) return false;\n"
      "  const float ap = (p.y2 - p.y1) * (p.x2 - p.x1), aq = (q.y2 - q.y1) * (q.x2 - q.x1);\n"
      "  if (ap <= 0 || aq <= 0) return false;\n"
      "  const float inter = ih * iw, uni = ap + aq - inter;\n"
      "  if (uni <= 0) return false;\n"
      "  return inter / uni > iou_max;\n"
      "};\n"
      "int64_t k = 0;\n"
      "std::vector<int64_t> cand, kept;\n"
      "for (int64_t bt = 0; bt < B && max_out > 0; ++bt)\n"
      "  for (int64_t c = 0; c < C; ++c) {\n"
      "    const auto* s = scores + (bt * C + c) * N;\n"
      "    cand.clear();\n"
      "    for (int64_t i = 0; i < N; ++i)\n" +
      (minScore.empty() ? "      cand.push_back(i);\n" : "      if (float(s[i]) > float(" + minScore + ")) cand.push_back(i);\n") +
      "    std::stable_sort(cand.begin(), cand.end(), [&](int64_t a, int64_t b) { return float(s[a]) > float(s[b]); });\n"
      "    kept.clear();\n"
      "    for (int64_t i : cand) {\n"
      "      if (int64_t(kept.size()) >= max_out) break;\n"
      "      const Box p = box(bt, i);\n"
      "      bool off = false;\n"
      "      for (int64_t j : kept) off = off || suppress(box(bt, j), p);\n"
      "      if (off) continue;\n"
      "      kept.push_back(i);\n"
      "      selected_indices[k * 3] = bt;\n"
      "      selected_indices[k * 3 + 1] = c;\n"
      "      selected_indices[k * 3 + 2] = i;\n"
      "      ++k;\n"
      "    }\n"
      "  }\n"
      "extent = k;\n";
  b.cppTasklet("non_max_suppression", ins, code, {"selected_indices", "extent"}, {}, std::nullopt);
  return b.finish();
}

} // namespace

Result expandCountedCompress(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "input"));
  DCW_TRY(auto C, th::needIn(ctx, "condition"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  const int64_t r = int64_t(X->shape.size());
  DCW_TRY(auto axisOpt, axisAttr(ctx, r));
  const bool hasAxis = axisOpt.has_value();
  const int64_t axis = axisOpt.value_or(0);
  (void)Y;
  DCW_CHECK(needExtent(ctx));
  SdfgBuilder b(ctx);
  std::string dims = dimsArray(b, X->shape);
  std::string xdims = dimsArray(b, C->shape);
  std::string code = splitAtAxis(dims, r, hasAxis, axis) +
      "const int64_t L = std::min<int64_t>(len, " + xdims + "[0]);\n"
      "int64_t K = 0;\n"
      "for (int64_t p = 0; p < L; ++p) K += " + nonZeroTest(C->dtype, "condition[p]") + ";\n"
      "for (int64_t o = 0; o < outer; ++o) {\n"
      "  int64_t j = 0;\n"
      "  for (int64_t p = 0; p < L; ++p) {\n"
      "    if (!(" + nonZeroTest(C->dtype, "condition[p]") + ")) continue;\n"
      "    for (int64_t t = 0; t < inner; ++t) output[(o * K + j) * inner + t] = input[(o * len + p) * inner + t];\n"
      "    ++j;\n"
      "  }\n"
      "}\n"
      "extent = K;\n";
  b.cppTasklet("compress", {"input", "condition", dims, xdims}, code, {"output", "extent"}, {}, std::nullopt);
  return b.finish();
}

void registerDataDependentOps(ExpansionRegistry& r) {
  r.add("", "NonZero", "pure", expandNonZero, "C++ tasklet: count, then the indices packed at the count");
  r.add("", "Unique", "pure", expandUnique, "C++ tasklet: stable sort of the slices, groups of equal ones");
  r.add("", "NonMaxSuppression", "pure", expandNonMaxSuppression, "C++ tasklet: greedy selection by score per batch and class");
}

} // namespace dcw::expansions
