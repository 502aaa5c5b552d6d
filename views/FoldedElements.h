// FoldedElements: what the model view draws inside the op that reads it instead of as nodes of its
// own — constant arrays (weights), the weight preparation exporters write on them (Identity of a shared
// weight, a Transpose or Reshape of one: ops whose inputs are all folded), Constant ops, and shape
// arithmetic (Shape/Size and the integer ops computing on their results: `Shape -> Gather -> Unsqueeze
// -> Concat -> Reshape`). An op folds only when it writes arrays nothing else writes that are not the
// model's outputs. The canvas lists them on the reader's third line (`W 64×3×7×7`, `shape target 3`),
// the outline as rows under the reader.
#pragma once

#include "core/ir/Element.h"
#include "core/symbolic/Expr.h"

#include <QStringList>

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace dcw::ir {
class Sdfg;
class State;
} // namespace dcw::ir

namespace dcw::views {

struct FoldedElements {
  std::unordered_set<ir::ElementId> hidden;                    // folded nodes (arrays and ops)
  std::unordered_map<ir::ElementId, QStringList> listed;        // reader -> what it lists ("W 64×3×7×7")
  std::unordered_map<ir::ElementId, ir::ElementId> reader;      // folded node -> the first reader not folded
};

FoldedElements foldIntoReaders(const ir::State& st, const ir::Sdfg& sdfg);

// A shape as the views write it: `64×3×7×7`, `batch×768`, `scalar`.
QString dimsText(const std::vector<sym::Expr>& dims);

} // namespace dcw::views
