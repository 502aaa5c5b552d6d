// OpCategory: what kind of work an ONNX operator does, for the canvas's colours and legend — so that
// a model read at any zoom shows where its convolutions, matrix products, normalizations, activations
// and data movement are (Netron colours its nodes the same way). The category comes from the op type
// alone (a library node's opType, whatever its domain); unknown ops are Other.
#pragma once

#include <QString>

#include <string_view>

namespace dcw::views {

enum class OpCategory : unsigned char {
  Convolution,
  MatMul,        // MatMul, Gemm, Einsum and their quantized forms
  Recurrent,     // LSTM, GRU, RNN
  Normalization,
  Activation,    // Relu and its relatives, Softmax, Clip
  Pooling,
  Arithmetic,    // elementwise math, comparisons, logic, casts
  Reduction,     // Reduce*, ArgMax/ArgMin, TopK, CumSum
  DataMovement,  // reshapes, transposes, concatenation, slicing, gathers, padding, resizing
  Shape,         // Shape, Size, Range, ConstantOfShape: arithmetic on shapes
  ControlFlow,   // If, Loop, Scan
  Other,
};
constexpr int kOpCategoryCount = int(OpCategory::Other) + 1;

OpCategory opCategory(std::string_view opType);
QString opCategoryName(OpCategory c); // "convolution", "matmul / GEMM", …

} // namespace dcw::views
