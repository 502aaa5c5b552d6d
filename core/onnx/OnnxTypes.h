// OnnxTypes: conversions between ONNX's protobuf types and the IR's — element types, tensor values
// (every storage field ONNX allows, raw or typed, densified from sparse form) and readable type
// text. Kept apart from the importer so that tests, the exporter and the runtime share one mapping.
#pragma once

#include "core/ir/DType.h"
#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace dcw::onnx {

ir::DType dtypeFromOnnx(int32_t elemType);
int32_t dtypeToOnnx(ir::DType t);
// "tensor(float)", "seq(tensor(int64))", "optional(tensor(float))", "map(string,tensor(float))"
std::string typeText(const ::onnx::TypeProto& t);

// Converts a tensor (raw_data or typed fields). When `steal` is true and the tensor holds raw_data,
// the bytes are moved out of the proto instead of copied (used for large initializers).
// `where` locates errors ("model.onnx: initializer 'W'").
Expected<ir::Tensor> tensorFromOnnx(::onnx::TensorProto& t, const std::string& where, bool steal);
Expected<ir::Tensor> tensorFromOnnx(const ::onnx::SparseTensorProto& t, const std::string& where);

// The TensorProto of a tensor (raw data), named `name`.
::onnx::TensorProto tensorToOnnx(const ir::Tensor& t, const std::string& name);

// Product of dims with overflow detection; nullopt when the product does not fit in int64.
std::optional<int64_t> checkedElementCount(const std::vector<int64_t>& dims);

} // namespace dcw::onnx
