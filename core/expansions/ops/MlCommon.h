// Shared by the ai.onnx.ml expansions (MlPreprocessing.cpp, MlLinear.cpp, TreeEnsemble.cpp): the
// batch view of their [N, C] or [C] inputs, the score post-transforms and the arg-max that picks a
// classifier's label, as ONNX Runtime computes them.
#pragma once

#include "core/expansions/SdfgBuilder.h"

#include <string>
#include <vector>

namespace dcw::expansions::ml {

// X as rows of C features: [N, C] is N rows, [C] one row. `row(p)` is the subset of row p.
struct Rows {
  sym::Expr n, c;
  bool batched = true;
  std::string at(const std::string& p, const std::string& k) const { return batched ? p + ", " + k : k; }
  std::string row(const std::string& p) const { return batched ? p + ", 0:" + c.str() : "0:" + c.str(); }
};
Expected<Rows> rowsOf(const ExpansionContext& ctx, const ir::DataDescriptor& x);

// A classifier's integer class labels (attribute `attr`); string labels are refused (DCW does not
// lower strings), and so is a classifier with fewer than `least`.
Expected<std::vector<int64_t>> integerLabels(const ExpansionContext& ctx, const std::string& attr, size_t least);

// `scores` [n, k] (float32) -> `out` [n, k] by post_transform: NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO
// (PROBIT is refused: the tasklet language has no inverse error function). Starts a new state.
Expected<void> postTransform(SdfgBuilder& b, const ExpansionContext& ctx, const std::string& transform, const std::string& scores,
                             const std::string& out, const sym::Expr& n, int64_t k);

// label[p] = labels[the first k with the largest scores[p, k]] (int64). Starts a new state.
void argMaxLabel(SdfgBuilder& b, const std::string& scores, const std::string& labels, const std::string& label, const sym::Expr& n,
                 int64_t k, bool batchedLabel);

} // namespace dcw::expansions::ml
