// TensorFile: tensors on disk as serialized ONNX TensorProto files (`input_0.pb`, `output_0.pb`),
// the format of ONNX's own backend test cases, read and written by `dcw run` and `dcw test-onnx`.
#pragma once

#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <string>

namespace dcw::onnx {

struct NamedTensor {
  std::string name;
  ir::Tensor tensor;
};

Expected<NamedTensor> readTensorFile(const std::string& path);
Expected<void> writeTensorFile(const std::string& path, const ir::Tensor& tensor, const std::string& name);

} // namespace dcw::onnx
