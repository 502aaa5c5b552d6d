// TfIdfVectorizer over integer tokens (int32/int64 X of shape [C] or [N, C]): for each n-gram of the
// pool, how often it occurs in each row, with up to max_skip_count tokens skipped between its items,
// then weighted by mode:
//
//   count[b, j] = sum over skip d in 1..max_skip_count+1, position p:
//                   X[b, p + k*d] == pool[j][k] for every k < len(j)     (unigrams once, not per skip)
//   Y[b, ngram_indexes[j]] = TF: count;  IDF: count > 0 ? weight[j] : 0;  TFIDF: count * weight[j]
//
// Only n-grams with min_gram_length <= len <= max_gram_length count; a weight is 1 without `weights`.
// As ONNX Runtime counts them. The pool, its lengths and the output index of each output are constant
// arrays of the expansion. Over string tokens (pool_strings) the op runs on the host at the model's
// inputs (codegen/run/StringStages.h); one that reaches this expansion is refused.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <algorithm>
#include <cstring>

namespace dcw::expansions {

using namespace dcw::ir;
using ew::number;
using th::constantArray;
using th::float32Tensor;
using th::int64Tensor;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

Result expandTfIdfVectorizer(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  if (ctx.hasAttr("pool_strings"))
    return ctx.error("TfIdfVectorizer with a string pool: DCW does not lower strings", "tokenize to integer ids first");
  if (X->dtype != DType::Int32 && X->dtype != DType::Int64) return ctx.error("TfIdfVectorizer's X must hold int32 or int64 tokens");
  if (X->shape.empty() || X->shape.size() > 2) return ctx.error("TfIdfVectorizer's X must be [C] or [N, C], not " + X->typeString());
  const int64_t minN = ctx.attrInt("min_gram_length", 0), maxN = ctx.attrInt("max_gram_length", 0);
  const int64_t maxSkip = ctx.attrInt("max_skip_count", 0);
  const std::string mode = ctx.attrString("mode", "");
  const auto pool = ctx.attrInts("pool_int64s");
  const auto counts = ctx.attrInts("ngram_counts");
  const auto indexes = ctx.attrInts("ngram_indexes");
  const auto weights = ctx.attrFloats("weights");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return ctx.error("TfIdfVectorizer's mode must be TF, IDF or TFIDF, not '" + mode + "'");
  if (minN < 1 || maxN < minN) return ctx.error("TfIdfVectorizer needs 1 <= min_gram_length <= max_gram_length");
  if (maxSkip < 0) return ctx.error("TfIdfVectorizer's max_skip_count must be >= 0");
  if (counts.empty() || counts[0] != 0) return ctx.error("TfIdfVectorizer's ngram_counts must start at 0");

  // The pool's n-grams: ngram_counts[n-1] is where the n-grams start in pool_int64s.
  std::vector<std::vector<int64_t>> grams;
  for (size_t n = 1; n <= counts.size(); ++n) {
    const int64_t begin = counts[n - 1], end = n < counts.size() ? counts[n] : int64_t(pool.size());
    if (begin > end || end > int64_t(pool.size()) || (end - begin) % int64_t(n) != 0)
      return ctx.error("TfIdfVectorizer's ngram_counts do not split pool_int64s into " + std::to_string(n) + "-grams");
    for (int64_t at = begin; at < end; at += int64_t(n)) grams.emplace_back(pool.begin() + at, pool.begin() + at + int64_t(n));
  }
  if (grams.empty()) return ctx.error("TfIdfVectorizer's pool is empty");
  if (indexes.size() != grams.size())
    return ctx.error("TfIdfVectorizer has " + std::to_string(grams.size()) + " n-grams but " + std::to_string(indexes.size()) +
                     " ngram_indexes");
  if (!weights.empty() && weights.size() != grams.size())
    return ctx.error("TfIdfVectorizer has " + std::to_string(grams.size()) + " n-grams but " + std::to_string(weights.size()) + " weights");
  const sym::Expr K = Y->shape.back();
  const auto k = K.constantValue();
  if (!k) return ctx.error("TfIdfVectorizer's output size must be known");
  const int64_t slots = indexes.empty() ? 0 : *std::max_element(indexes.begin(), indexes.end()) + 1;
  if (*k != slots)
    return ctx.error("TfIdfVectorizer's output has " + std::to_string(*k) + " values per row, but its ngram_indexes make " +
                     std::to_string(slots) + " (the largest index + 1)");
  // Output slot -> the n-gram it counts (-1: none).
  std::vector<int64_t> source(size_t(*k), -1);
  for (size_t j = 0; j < indexes.size(); ++j) {
    if (indexes[j] < 0 || indexes[j] >= *k)
      return ctx.error("ngram_indexes[" + std::to_string(j) + "] = " + std::to_string(indexes[j]) + " lies outside the output's " +
                       std::to_string(*k) + " values");
    if (source[size_t(indexes[j])] >= 0)
      return ctx.error("ngram_indexes gives two n-grams the output index " + std::to_string(indexes[j]));
    source[size_t(indexes[j])] = int64_t(j);
  }
  const size_t widest = counts.size();
  std::vector<int64_t> padded, lengths;
  for (auto& g : grams) {
    for (size_t i = 0; i < widest; ++i) padded.push_back(i < g.size() ? g[i] : 0);
    lengths.push_back(int64_t(g.size()));
  }
  std::vector<float> w(grams.size(), 1.0f);
  for (size_t j = 0; j < weights.size(); ++j) w[j] = float(weights[j]);

  const bool batched = X->shape.size() == 2;
  const sym::Expr C = X->shape.back(), rows = batched ? X->shape[0] : sym::Expr(1);
  const auto J = int64_t(grams.size());
  SdfgBuilder b(ctx);
  const std::string poolArr = constantArray(b, "pool", int64Tensor({J, int64_t(widest)}, padded));
  const std::string lenArr = constantArray(b, "gram_length", int64Tensor({J}, lengths));
  const std::string srcArr = constantArray(b, "source", int64Tensor({*k}, source));
  const std::string wArr = constantArray(b, "weight", float32Tensor({int64_t(w.size())}, w));
  const std::string cnt = b.transient("count", DType::Float32, {rows, sym::Expr(J)});
  b.mappedTasklet("zero", {{"b", Range::full(rows)}, {"j", Range::full(sym::Expr(J))}}, {}, "c = 0.0", {{"c", cnt, "b, j", ""}});

  b.nextState("count");
  const std::string row = batched ? "b, 0:" + C.str() : "0:" + C.str();
  const std::string last = "(" + C.str() + ") - 1";
  std::string match = "len >= " + std::to_string(minN) + " && len <= " + std::to_string(maxN) + " && (s == 0 || len >= 2) && p + (len - 1) * (s + 1) < " + C.str();
  for (size_t i = 0; i < widest; ++i) {
    const std::string at = "min(p + " + std::to_string(i) + " * (s + 1), " + last + ")";
    const std::string eq = "int64(x[" + at + "]) == g[" + std::to_string(i) + "]";
    match += i == 0 ? " && " + eq : " && (len <= " + std::to_string(i) + " || " + eq + ")";
  }
  b.mappedTasklet("match", {{"b", Range::full(rows)}, {"j", Range::full(sym::Expr(J))}, {"s", Range::full(sym::Expr(maxSkip + 1))}, {"p", Range::full(C)}},
                  {{"x", "X", row}, {"g", poolArr, "j, 0:" + std::to_string(widest)}, {"len", lenArr, "j"}},
                  "c = select(" + match + ", 1.0, 0.0)", {{"c", cnt, "b, j", "sum"}});

  b.nextState("weigh");
  std::string value = mode == "TF" ? "n" : mode == "IDF" ? "select(n > 0.0, wt, 0.0)" : "n * wt";
  b.mappedTasklet("weigh", {{"b", Range::full(rows)}, {"k", Range::full(K)}},
                  {{"n_row", cnt, "b, 0:" + std::to_string(J)}, {"src", srcArr, "k"}, {"w_all", wArr, "0:" + std::to_string(J)}},
                  "let j = max(src, 0)\nlet n = n_row[j]\nlet wt = w_all[j]\ny = " + th::castTo(Y->dtype, "select(src >= 0, " + value + ", 0.0)"),
                  {{"y", "Y", batched ? "b, k" : "k", ""}});
  return b.finish();
}

} // namespace

void registerTfIdfVectorizer(ExpansionRegistry& r) {
  r.add("", "TfIdfVectorizer", "pure", expandTfIdfVectorizer,
        "n-gram counts over integer tokens (with skips), weighted TF, IDF or TFIDF; a string pool is refused");
}

} // namespace dcw::expansions
