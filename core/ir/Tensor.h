// Tensor: a constant value with dtype and concrete dims — the payload of constant arrays (ONNX
// initializers) and of tensor-valued attributes. Bytes are little-endian, densely packed, row-major,
// and shared (copying a Tensor or the IR that holds it never copies the weights).
#pragma once

#include "core/ir/DType.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dcw::ir {

struct Tensor {
  DType dtype = DType::Undefined;
  std::vector<int64_t> dims;
  std::shared_ptr<const std::string> bytes;       // numeric types
  std::shared_ptr<const std::vector<std::string>> strings; // DType::String

  int64_t elementCount() const; // product of dims (1 for a scalar)
  size_t byteSize() const { return bytes ? bytes->size() : 0; }
  bool operator==(const Tensor& o) const;
};

} // namespace dcw::ir
