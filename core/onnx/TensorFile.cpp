#include "core/onnx/TensorFile.h"

#include "core/onnx/OnnxTypes.h"
#include "core/support/AtomicFile.h"

#include <filesystem>
#include <fstream>

namespace dcw::onnx {

Expected<NamedTensor> readTensorFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, "cannot open the tensor file", "check the path");
  ::onnx::TensorProto t;
  if (!t.ParseFromIstream(&in))
    return fail(path, "not a serialized ONNX TensorProto", "tensor files are written by onnx.numpy_helper.from_array(...).SerializeToString()");
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
    return fail(path, "tensor files with external data are not supported", "store the tensor inline");
  DCW_TRY(auto tensor, tensorFromOnnx(t, path, /*steal=*/true));
  return NamedTensor{t.name(), std::move(tensor)};
}

Expected<void> writeTensorFile(const std::string& path, const ir::Tensor& tensor, const std::string& name) {
  ::onnx::TensorProto t = tensorToOnnx(tensor, name);
  std::string bytes;
  if (!t.SerializeToString(&bytes)) return fail(path, "cannot write the tensor file: it does not serialize (over 2 GiB?)");
  return writeFileAtomically(path, bytes);
}

} // namespace dcw::onnx
