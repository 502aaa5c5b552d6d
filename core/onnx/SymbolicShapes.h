// SymbolicShapes: DCW's own shape inference over symbolic dims, for the main graph of an imported
// model. ONNX's inference loses a dim as soon as arithmetic touches it: a Conv over a dynamic width, a
// Reshape whose target comes from Shape -> Gather -> Concat, a Slice up to a computed end all give
// fresh "unk__N" dims or an unknown rank, and such a model cannot be compiled. This pass walks the
// graph in order with every dim an expression of the inputs' dims and evaluates the shape arithmetic
// exporters emit on symbolic values, so that, e.g.,
//
//   x: float[batch, 3, H, W] -> Conv(k=3, s=2, p=1) -> [batch, 16, (H - 1)//2 + 1, (W - 1)//2 + 1]
//   Reshape(t, Concat(Gather(Shape(t), 0), [-1, 64]))   -> [batch, 12*seq, 64]   (was: rank unknown)
//
// Where ONNX knows a shape fully (numbers and the inputs' own dims) its answer stands; this pass fills
// the rest, op by op (elementwise and broadcasting ops, MatMul/Gemm, convolutions and pools, Reshape,
// Flatten, Transpose, (Un)Squeeze, Concat, Split, Slice, Gather, Expand, Tile, Pad, Resize, reductions,
// TopK, ConstantOfShape, Range, ...). A count that depends on tensor values (NonZero, Compress,
// Unique, NonMaxSuppression) is a param of its own with an upper bound (dataDependent); other
// value-dependent dims (a run-time k) stay unknown and are refused later, naming the node. Where a dim holds only for some input dims (two
// symbolic dims broadcast together must be equal or 1), the pair is kept: the importer records it in
// the SDFG (metadata "dims-check:N" = node, dim, dim, one a line) and a run whose dims break it is
// refused, naming the node and the dims. The elements of small integer graph inputs are symbols too
// (valueParams), so a length given as an input (a window's size, a Range's limit) gives symbolic dims
// bound when the run's inputs are known.
#pragma once

#include "core/symbolic/Expr.h"

#include <map>
#include <string>
#include <vector>

namespace onnx {
class GraphProto;
}

namespace dcw::onnx {

struct SymbolicShapes {
  // Value name -> dims. Symbols are placeholders `params[i]` stands for: the i-th dim_param of the
  // graph inputs (the importer maps each to its IR symbol).
  std::map<std::string, std::vector<sym::Expr>> shapes;
  std::vector<std::string> params;
  // What the inputs' dims must satisfy for the inferred dims to hold: two dims a node broadcasts
  // together, which must be equal or 1.
  struct Check {
    std::string node;
    sym::Expr a, b;
  };
  std::vector<Check> checks;
  // If nodes whose condition the inputs' dims decide (a branch on a tensor's rank, as TorchScript
  // exports write them), by their first output: true = then_branch. The importer splices the branch
  // taken in place of the If.
  std::map<std::string, bool> decidedIfs;
  // The params that stand for a value held by a small integer graph input rather than for a dim (a
  // window length, a Range bound, a TopK k given as an input): param index -> (input, element). The
  // importer records them (metadata "value-symbol:SYMBOL" = input, element, one a line) and a run binds
  // them from the input's elements, as it binds dims from the inputs' shapes.
  std::map<size_t, std::pair<std::string, int64_t>> valueParams;
  // The params that stand for a count only the run knows (NonZero's non-zero elements, Compress's
  // kept slices, Unique's distinct values, NonMaxSuppression's selected boxes), in the main graph:
  // param index -> the node's first output and the count's upper bound (in placeholders). The
  // importer makes them dynamic extents (core/ir/DynamicExtent.h).
  struct DataDependent {
    std::string output;
    sym::Expr bound;
  };
  std::map<size_t, DataDependent> dataDependent;
  // Element types (TensorProto::DataType) of values ONNX's inference leaves untyped (the outputs of
  // ai.onnx.ml ops it has no type function for), where this pass knows them.
  std::map<std::string, int32_t> elemTypes;
  static std::string placeholder(size_t i) { return "dcw_dim_" + std::to_string(i); }
};

// `g`: the main graph after ONNX's inference and DCW's constant folding (Constant nodes and folded
// values are initializers). Only values whose dims ONNX left incomplete are in the result.
SymbolicShapes inferSymbolicShapes(const ::onnx::GraphProto& g, int64_t opset);

} // namespace dcw::onnx
