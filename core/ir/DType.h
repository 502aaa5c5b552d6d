// DType: element types of data descriptors, connectors and tensors. The set covers every ONNX tensor
// element type (opset <= 17) so that import never has to refuse a type; targets decide later which
// types they can compute with.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dcw::ir {

enum class DType {
  Undefined,
  Bool,
  Int8, Int16, Int32, Int64,
  UInt8, UInt16, UInt32, UInt64,
  Float16, BFloat16, Float32, Float64,
  Complex64, Complex128,
  String,
};

// Stable short name used in JSON, scripts and the UI: "float32", "int64", "bool", ...
std::string_view dtypeName(DType t);
std::optional<DType> dtypeFromName(std::string_view name);
// Size of one element in bytes (0 for Undefined and String, whose size is not fixed).
size_t dtypeSize(DType t);
bool isFloating(DType t);
bool isInteger(DType t);

} // namespace dcw::ir
