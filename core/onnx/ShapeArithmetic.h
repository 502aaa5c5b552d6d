// ShapeArithmetic: evaluates one ONNX op of the integer "shape arithmetic" that exporters emit
// (Shape, Size, Constant, Identity, Cast, Not, Neg, Abs, Gather, Unsqueeze, Squeeze, Concat, Slice, Reshape,
// Add, Sub, Mul, Div, Equal, Where, ConstantOfShape, Range, ReduceProd) on constant operands. Shared by
// the importer, which folds before ONNX shape inference so that shapes computed at run time become
// static, and by transforms/FoldConstants, which removes the same computations from the IR.
#pragma once

#include "core/ir/Attribute.h"
#include "core/ir/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace dcw::onnx {

struct ShapeOpInput {
  bool present = false;                        // the operand is connected
  const ir::Tensor* value = nullptr;           // its constant value, if known
  std::optional<std::vector<int64_t>> staticShape; // its static shape, if known (for Shape/Size)
};

// The values of an int64/int32/bool tensor (nullopt for other types or very large tensors).
std::optional<std::vector<int64_t>> intValues(const ir::Tensor& t);

// nullopt: not foldable (an op outside the list, a non-constant operand, a float operand, ...).
std::optional<ir::Tensor> evaluateShapeOp(const std::string& op, int64_t opsetVersion, const std::vector<ir::Attribute>& attrs,
                                          const std::vector<ShapeOpInput>& in,
                                          const std::optional<std::vector<int64_t>>& outShape);

} // namespace dcw::onnx
