// Cost: static cost of every operation of an SDFG — parameters (elements of the constant arrays it
// reads), FLOPs (from the op's formula for ONNX library nodes, from tasklet code times the iteration
// space for maps) and bytes moved (memlet volumes times element size, in and out). Everything is a
// symbolic expression over the SDFG's symbols, so a model with a `batch` dim gets costs in `batch`;
// evaluate() turns them into numbers once a user sets the symbols' values.
//
// Why static: the canvas overlays, the inspector and the status bar need a cost for every node the
// moment a model opens, long before anything is compiled or profiled. Formulas count a multiply-add
// as 2 FLOPs; ops without arithmetic (Reshape, Transpose, Gather, …) cost 0 FLOPs but still move
// bytes; an op without a formula counts one FLOP per output element and is marked `estimated`.
// A C++ tasklet (an opaque implementation such as `onednn`) counts the FLOPs its implementation
// declared (ir::Tasklet::flops); without a declaration its FLOPs are unknown: 0, marked `estimated`.
#pragma once

#include "core/ir/Element.h"
#include "core/symbolic/Expr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::analysis {

struct NodeCost {
  sym::Expr flops = sym::Expr(0);
  sym::Expr bytesRead = sym::Expr(0);
  sym::Expr bytesWritten = sym::Expr(0);
  int64_t parameters = 0;   // elements of constant arrays read by the node
  bool estimated = false;   // no exact formula: one FLOP per output element, or dynamic volumes
  sym::Expr bytes() const { return bytesRead + bytesWritten; }
};

struct CostReport {
  // Every library node, tasklet, nested SDFG and map (keyed by the MapEntry; the whole scope) at every
  // nesting level. Nodes inside a map count once per iteration of the enclosing maps.
  std::unordered_map<ir::ElementId, NodeCost> nodes;
  NodeCost total;                  // the root SDFG's top-level operations (what one run costs)
  std::set<std::string> symbols;   // free symbols of the totals and node costs

  const NodeCost* find(ir::ElementId id) const {
    auto it = nodes.find(id);
    return it == nodes.end() ? nullptr : &it->second;
  }
};

CostReport analyzeCost(const ir::Sdfg& sdfg);

// The value of a cost under symbol values (unset symbols default to `fallback`); nullopt on overflow.
std::optional<double> evaluate(const sym::Expr& cost, const std::map<std::string, int64_t>& symbols,
                               int64_t fallback = 1);

// "1.2 G", "35.4 M", "512" (SI prefixes), or the symbolic text when no value is known.
std::string formatCount(double value);

} // namespace dcw::analysis
